package clouds_test

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// TestEKSAutoRejectsMIGAndSharing (issue #12 finding 3): EKS Auto Mode's
// AWS-managed device plugin neither partitions nor shares GPUs, so a
// workload asking for either can never schedule there; the same on a pool
// is already an error.
func TestEKSAutoRejectsMIGAndSharing(t *testing.T) {
	cases := []struct {
		name, path, substring string
		edit                  func(g *spec.GPU)
	}{
		{"mig partition", "gpu.partition", "EKS Auto Mode", func(g *spec.GPU) { g.Accelerator, g.Partition = "a100-40gb", "1g.5gb" }},
		{"mig partition mixed", "gpu.partition", "karpenter", func(g *spec.GPU) {
			g.Accelerator, g.Partition, g.MIGStrategy = "a100-40gb", "1g.5gb", spec.MIGStrategyMixed
		}},
		{"time-slicing", "gpu.sharing", "EKS Auto Mode", func(g *spec.GPU) { g.Sharing = spec.SharingTimeSlicing }},
		{"mps", "gpu.sharing", "remove sharing", func(g *spec.GPU) { g.Sharing = spec.SharingMPS }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := rendertest.ValidWorkload()
			w.Cloud = string(spec.CloudEKSAuto)
			c.edit(&w.GPU)
			rendertest.RequireDiag(t, workload.Validate(w), gpudiag.SeverityError, c.path, c.substring)
			_, diags := workload.ResolveAndRender(w, workload.Options{})
			rendertest.RequireDiag(t, diags, gpudiag.SeverityError, c.path, c.substring)
		})
	}
	// The same workloads stay valid on self-managed Karpenter.
	w := rendertest.ValidWorkload()
	w.Cloud, w.GPU.Sharing = string(spec.CloudKarpenter), spec.SharingTimeSlicing
	rendertest.RequireNoErrors(t, workload.Validate(w))
}
