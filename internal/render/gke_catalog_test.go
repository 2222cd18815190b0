package render

import (
	"slices"
	"strings"
	"testing"
)

// GKE Autopilot offers its own GPU list, without the V100 (issue #12,
// finding 8): a V100 workload there is a plan error naming what it offers.
func TestAutopilotOffersOnlyItsGPUs(t *testing.T) {
	if slices.Contains(CloudAccelerators(CloudGKEAutopilot), "v100-16gb") {
		t.Fatal("GKE Autopilot has no V100")
	}
	if !slices.Contains(CloudAccelerators(CloudGKE), "v100-16gb") {
		t.Fatal("GKE Standard attaches V100s to N1 machines")
	}
	_, diags := Render(Workload{Name: "w", Kind: KindDeployment, Cloud: string(CloudGKEAutopilot), Image: "img",
		GPU: GPU{Count: 1, Accelerator: "v100-16gb"}}, Options{})
	requireDiag(t, diags, SeverityError, "gpu.accelerator", `Accelerators offered on "gke-autopilot": "a100-40gb"`)
}

// Every GKE node pool the provider describes names a machine type that takes
// its accelerator and count: N1 machines for the attached T4 and V100, the
// accelerator-optimized machine otherwise. An empty machine type would get
// GKE's default machine, which takes no GPU (issue #12, finding 8).
func TestEveryGKEPoolNamesAMachineForItsGPUs(t *testing.T) {
	for _, name := range CloudAccelerators(CloudGKE) {
		a := lookupAccelerator(name)
		for _, count := range gpuCounts(machinesFor(CloudGKE, a)) {
			r, diags := RenderPool(PoolPolicy{Name: "p", Cloud: string(CloudGKE), Accelerator: name, GPUsPerNode: count})
			requireNoErrors(t, diags)
			np := r.GKE
			if np == nil || np.MachineType == "" {
				t.Errorf("%s x%d: no machine type", name, count)
				continue
			}
			if strings.HasPrefix(np.MachineType, "n1-") && !slices.Contains([]string{"nvidia-tesla-t4", "nvidia-tesla-v100"}, np.GuestAccelerator.Type) {
				t.Errorf("%s x%d: %s is an N1 machine, which only takes attached T4 or V100", name, count, np.MachineType)
			}
		}
	}
}
