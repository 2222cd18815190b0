package resourcekit

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
)

// An apply without a usable cluster says how to go on without one, naming
// the attribute that holds the rendered objects (`manifests`; `manifest`
// was removed in issue #31) and the setting that keeps only those.
func TestApplyClient_withoutClusterNamesManifests(t *testing.T) {
	d := &Data{Kube: kube.NewLazy(kube.Config{})}
	var diags diag.Diagnostics
	if _, ok := d.ApplyClient("gpu_workload", true, nil, &diags); ok || !diags.HasError() {
		t.Fatal("an apply with no cluster configured got a client")
	}
	detail := diags.Errors()[0].Detail()
	for _, want := range []string{"`manifests` attribute", "set apply = false"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the error does not say %q:\n%s", want, detail)
		}
	}
	if strings.Contains(detail, "the manifest ") {
		t.Errorf("the error still names the removed `manifest`:\n%s", detail)
	}
}
