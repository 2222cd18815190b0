package fiftyone

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// TestMPSNeedsHostIPCOnGKE: the chart cannot set hostIPC, which GKE's MPS
// daemon needs, so an MPS runner on GKE is refused with the shared wording.
func TestMPSNeedsHostIPCOnGKE(t *testing.T) {
	in := Values{Deployments: []FiftyOneDeployment{{Runner: Runner{Key: "gpuWorker", GPU: &spec.GPU{Count: 1, Accelerator: "t4", Sharing: spec.SharingMPS}}}}}
	_, diags := Generate(clouds.Lookup(spec.CloudGKE), in, true)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].gpu.sharing", clouds.GKEMPSHostIPC("the FiftyOne chart"))
}
