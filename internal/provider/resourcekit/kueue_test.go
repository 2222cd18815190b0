package resourcekit

import (
	"context"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
)

// TestDataKueue: kueue_version wins; without it and without a cluster the
// release is unknown, with the reason; and the answer is kept for the
// provider's process.
func TestDataKueue(t *testing.T) {
	ctx := context.Background()
	set := &Data{Kube: kube.NewLazy(kube.Config{Host: "https://203.0.113.10"}), KueueVersion: "v0.19.1"}
	if k := set.Kueue(ctx); k.Name() != "Kueue v0.19.1" || !strings.Contains(k.From, "kueue_version") {
		t.Errorf("with kueue_version: %+v", k)
	}
	offline := &Data{Kube: kube.NewLazy(kube.Config{})}
	if k := offline.Kueue(ctx); k.Version != nil || k.From != "no cluster is configured" {
		t.Errorf("without a cluster: %+v", k)
	}
	offline.kueue.known.From = "remembered"
	if k := offline.Kueue(ctx); k.From != "remembered" {
		t.Errorf("read twice: %+v", k)
	}
	var none *Data
	if k := none.Kueue(ctx); k.Version != nil || k.From == "" {
		t.Errorf("before configuration: %+v", k)
	}
}
