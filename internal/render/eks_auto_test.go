package render

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// TestEKSAutoRejectsMIGAndSharing (issue #12 finding 3): EKS Auto Mode's
// AWS-managed device plugin neither partitions nor shares GPUs, so a
// workload asking for either can never schedule there; the same on a pool
// is already an error.
func TestEKSAutoRejectsMIGAndSharing(t *testing.T) {
	cases := []struct {
		name, path, substring string
		edit                  func(g *GPU)
	}{
		{"mig partition", "gpu.partition", "EKS Auto Mode", func(g *GPU) { g.Accelerator, g.Partition = "a100-40gb", "1g.5gb" }},
		{"mig partition mixed", "gpu.partition", "karpenter", func(g *GPU) {
			g.Accelerator, g.Partition, g.MIGStrategy = "a100-40gb", "1g.5gb", MIGStrategyMixed
		}},
		{"time-slicing", "gpu.sharing", "EKS Auto Mode", func(g *GPU) { g.Sharing = SharingTimeSlicing }},
		{"mps", "gpu.sharing", "remove sharing", func(g *GPU) { g.Sharing = SharingMPS }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := validWorkload()
			w.Cloud = string(CloudEKSAuto)
			c.edit(&w.GPU)
			requireDiag(t, Validate(w), gpudiag.SeverityError, c.path, c.substring)
			_, diags := Render(w, Options{})
			requireDiag(t, diags, gpudiag.SeverityError, c.path, c.substring)
		})
	}
	// The same workloads stay valid on self-managed Karpenter.
	w := validWorkload()
	w.Cloud, w.GPU.Sharing = string(CloudKarpenter), SharingTimeSlicing
	requireNoErrors(t, Validate(w))
}
