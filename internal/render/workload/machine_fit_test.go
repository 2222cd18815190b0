package workload

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// TestGPUCountMustFitAMachine (issue #12 finding 2): a pod's GPUs are all on
// one machine, so asking more than any machine of the cloud carries for the
// model can never schedule, node_pool or not.
func TestGPUCountMustFitAMachine(t *testing.T) {
	cases := []struct {
		name, cloud string
		gpu         spec.GPU
		path, want  string
	}{
		{"autopilot 16 L4", "gke-autopilot", spec.GPU{Count: 16, Accelerator: "l4"}, "gpu.count", `"l4" (NVIDIA L4) with 1, 2, 4 or 8 GPUs per machine`},
		{"autopilot count it does not offer", "gke-autopilot", spec.GPU{Count: 3, Accelerator: "l4"}, "gpu.count", "gke-accelerator-count selector must be one of these"},
		{"gke 8 T4", "gke", spec.GPU{Count: 8, Accelerator: "t4"}, "gpu.count", `"t4" (NVIDIA T4) with 1, 2 or 4 GPUs per machine`},
		{"eks 16 L40S", "eks", spec.GPU{Count: 16, Accelerator: "l40s"}, "gpu.count", "1, 4 or 8 GPUs per machine"},
		{"aks 8 T4", "aks", spec.GPU{Count: 8, Accelerator: "t4"}, "gpu.count", "1 or 4 GPUs per machine"},
		{"karpenter 2 H100 fits nowhere but 1 and 8", "karpenter", spec.GPU{Count: 9, Accelerator: "h100-80gb"}, "gpu.count", "1 or 8"},
		{"preference list where no model fits", "eks", spec.GPU{Count: 16, Accelerators: []string{"l4", "a10g"}}, "gpu.count", `"a10g"`},
		{"MIG instances beyond a machine", "eks", spec.GPU{Count: 9, Accelerator: "a100-40gb", Partition: "7g.40gb"}, "gpu.count", "at most 8 7g.40gb instances"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := rendertest.ValidWorkload()
			w.Cloud, w.GPU = c.cloud, c.gpu
			rendertest.RequireDiag(t, Validate(w), gpudiag.SeverityError, c.path, c.want)
		})
	}
}

func TestGPUCountThatFitsPlans(t *testing.T) {
	cases := []struct {
		name, cloud string
		gpu         spec.GPU
	}{
		{"gke 3 L4 fit on a 4-GPU machine", "gke", spec.GPU{Count: 3, Accelerator: "l4"}},
		{"autopilot 8 L4", "gke-autopilot", spec.GPU{Count: 8, Accelerator: "l4"}},
		{"gke 16 A100 on a2-megagpu-16g", "gke", spec.GPU{Count: 16, Accelerator: "a100-40gb"}},
		{"generic knows no machines", "generic", spec.GPU{Count: 16, Accelerator: "t4"}},
		{"any GPU", "eks", spec.GPU{Count: 8}},
		{"MIG instances on one machine", "eks", spec.GPU{Count: 8, Accelerator: "a100-40gb", Partition: "7g.40gb"}},
		{"small MIG instances on one machine", "eks", spec.GPU{Count: 16, Accelerator: "a100-40gb", Partition: "1g.5gb"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := rendertest.ValidWorkload()
			w.Cloud, w.GPU = c.cloud, c.gpu
			rendertest.RequireNoErrors(t, Validate(w))
		})
	}
	// A preference list where only some models fit warns on the others and
	// still plans.
	w := rendertest.ValidWorkload()
	w.Cloud, w.GPU = "aks", spec.GPU{Count: 8, Accelerators: []string{"a100-80gb", "t4"}}
	diags := Validate(w)
	rendertest.RequireNoErrors(t, diags)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityWarning, "gpu.accelerators[1]", "1 or 4 GPUs per machine")
}
