package resourcekit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
)

// versionServer answers /version with minor, counting the requests.
func versionServer(t *testing.T, minor string, asked *atomic.Int32) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/version" {
			http.NotFound(w, r)
			return
		}
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"` + minor + `","gitVersion":"v1.` + minor + `.2"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func warningsOf(diags diag.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags.Warnings() {
		b.WriteString(d.Summary() + ": " + d.Detail() + "\n")
	}
	return b.String()
}

func TestKubernetesVersionSources(t *testing.T) {
	ctx := context.Background()
	// Neither cluster nor setting: the floor, assumed, with a warning that
	// says so and what to set.
	k, diags := (&Data{Kube: kube.NewLazy(kube.Config{})}).Kubernetes(ctx)
	if k.Known() || kubever.MinorOf(k.Minor()) != "1.34" || diags.HasError() {
		t.Errorf("no version: %+v %v", k, diags)
	}
	if w := warningsOf(diags); !strings.Contains(w, "assumed: 1.34") || !strings.Contains(w, "kubernetes_version") || !strings.Contains(w, "no cluster is configured") {
		t.Errorf("assumed warning: %q", w)
	}
	// The setting, no cluster: no diagnostics.
	k, diags = (&Data{Kube: kube.NewLazy(kube.Config{}), KubernetesVersion: "1.36"}).Kubernetes(ctx)
	if k.Source != kubever.FromSetting || kubever.MinorOf(k.V) != "1.36" || len(diags) != 0 {
		t.Errorf("setting: %+v %v", k, diags)
	}
	// The cluster answers: its version wins, asked once per provider run,
	// and a differing setting is a warning.
	var asked atomic.Int32
	d := &Data{Kube: kube.NewLazy(kube.Config{Host: versionServer(t, "35", &asked)}), KubernetesVersion: "1.37"}
	for range 3 {
		k, diags = d.Kubernetes(ctx)
	}
	if k.Source != kubever.FromCluster || kubever.MinorOf(k.V) != "1.35" || diags.HasError() {
		t.Errorf("cluster: %+v %v", k, diags)
	}
	if w := warningsOf(diags); !strings.Contains(w, "kubernetes_version is 1.37 but the cluster runs Kubernetes 1.35") {
		t.Errorf("mismatch warning: %q", w)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("/version asked %d times, want once", n)
	}
	// A cluster that does not answer: the setting, or the floor with the reason.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	k, diags = (&Data{Kube: kube.NewLazy(kube.Config{Host: closed.URL})}).Kubernetes(ctx)
	if k.Known() || !strings.Contains(warningsOf(diags), "the cluster did not answer") {
		t.Errorf("unreachable cluster: %+v %q", k, warningsOf(diags))
	}
	k, _ = (&Data{Kube: kube.NewLazy(kube.Config{Host: closed.URL}), KubernetesVersion: "1.35"}).Kubernetes(ctx)
	if k.Source != kubever.FromSetting {
		t.Errorf("unreachable cluster with a setting: %+v", k)
	}
	// Before configuration (validation): the floor, silently.
	if k, diags := (*Data)(nil).Kubernetes(ctx); k.Known() || len(diags) != 0 {
		t.Errorf("nil data: %+v %v", k, diags)
	}
}
