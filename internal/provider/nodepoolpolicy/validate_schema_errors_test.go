package nodepoolpolicy

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// A value the schema rejects is reported once, by the schema's validator:
// render, which would say the same again, sees it blanked.
func TestNodePoolPolicy_schemaErrorsAreNotRepeated(t *testing.T) {
	for _, p := range []spec.PoolPolicy{
		{Cloud: "gcp"}, {Accelerator: "k80"}, {MIGStrategy: "none"}, {Sharing: "vgpu"},
		{GPUsPerNode: 17}, {GPUsPerNode: -1}, {Replicas: 1}, {Replicas: -3},
	} {
		if diags := pool.Validate(withoutSchemaErrors(p)); len(diags) > 0 {
			t.Errorf("%+v: render repeats the schema's error: %v", p, diags)
		}
	}
	if got := withoutSchemaErrors(spec.PoolPolicy{Cloud: "gke-autopilot"}).Cloud; got != "gke-autopilot" {
		t.Errorf("gke-autopilot must reach render, which says what to use instead; got %q", got)
	}
}
