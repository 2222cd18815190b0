package numaflow

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// TestMPSNeedsHostIPCOnGKE: a vertex cannot set hostIPC, which GKE's MPS
// daemon needs, so MPS sharing on GKE is refused with the shared wording.
func TestMPSNeedsHostIPCOnGKE(t *testing.T) {
	_, diags := Generate(clouds.Lookup(spec.CloudGKE), Values{GPU: spec.GPU{Count: 1, Accelerator: "t4", Sharing: spec.SharingMPS}}, true)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "numaflow.gpu.sharing", clouds.GKEMPSHostIPC("a Numaflow vertex"))
}
