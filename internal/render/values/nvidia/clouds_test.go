package nvidia

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// TestCheckNvidiaCloud: the stack checks moved from the cloud profiles
// refuse NVIDIA's stack on GKE Autopilot (at cloud, naming what), warn on
// GKE Standard and EKS Auto Mode (at the block), and say nothing elsewhere.
func TestCheckNvidiaCloud(t *testing.T) {
	block := gpudiag.At("gpu_operator")
	for _, cloud := range clouds.All() {
		var diags gpudiag.Diagnostics
		checkNvidiaCloud(cloud, block, "the GPU Operator", &diags)
		switch cloud.Name() {
		case spec.CloudGKEAutopilot:
			rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "cloud", "privileged DaemonSets the GPU Operator needs")
			if diags[0].Summary != "The GPU Operator cannot run on GKE Autopilot" {
				t.Errorf("summary %q", diags[0].Summary)
			}
		case spec.CloudGKE:
			rendertest.RequireDiag(t, diags, gpudiag.SeverityWarning, "gpu_operator", "Running the GPU Operator too")
		case spec.CloudEKSAuto:
			rendertest.RequireDiag(t, diags, gpudiag.SeverityWarning, "gpu_operator", "the GPU Operator must not install them again")
		default:
			if len(diags) != 0 {
				t.Errorf("%s: unexpected findings:\n%s", cloud.Name(), rendertest.FormatDiags(diags))
			}
		}
	}
}
