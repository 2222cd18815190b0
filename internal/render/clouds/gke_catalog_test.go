package clouds_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// GKE Autopilot offers its own GPU list, without the V100 (issue #12,
// finding 8): a V100 workload there is a plan error naming what it offers.
func TestAutopilotOffersOnlyItsGPUs(t *testing.T) {
	if slices.Contains(clouds.Lookup(spec.CloudGKEAutopilot).Accelerators(), "v100-16gb") {
		t.Fatal("GKE Autopilot has no V100")
	}
	if !slices.Contains(clouds.Lookup(spec.CloudGKE).Accelerators(), "v100-16gb") {
		t.Fatal("GKE Standard attaches V100s to N1 machines")
	}
	_, diags := workload.ResolveAndRender(spec.Workload{Name: "w", Kind: spec.KindDeployment, Cloud: string(spec.CloudGKEAutopilot), Image: "img",
		GPU: spec.GPU{Count: 1, Accelerator: "v100-16gb"}}, workload.Options{})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu.accelerator", `Accelerators offered on "gke-autopilot": "a100-40gb"`)
}

// factAutopilotGPUs are the cloud.google.com/gke-accelerator values GKE
// "Deploy GPU workloads in Autopilot"
// (https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-gpus)
// lists as supported, written here independently of clouds/gke.go.
var factAutopilotGPUs = []string{
	"nvidia-gb200", "nvidia-b200", "nvidia-h200-141gb", "nvidia-h100-mega-80gb", "nvidia-h100-80gb",
	"nvidia-a100-80gb", "nvidia-tesla-a100", "nvidia-l4", "nvidia-tesla-t4", "nvidia-rtx-pro-6000",
}

// Every model Autopilot offers is one of its GPUs, and every one of its GPUs
// the catalog knows is offered.
func TestAutopilotListMatchesItsDocs(t *testing.T) {
	offered := clouds.Lookup(spec.CloudGKEAutopilot).Accelerators()
	for _, name := range offered {
		a := catalog.Find(name)
		if !slices.ContainsFunc(a.GKEAccelerators, func(v string) bool { return slices.Contains(factAutopilotGPUs, v) }) {
			t.Errorf("%s is offered on Autopilot, but none of %q is an Autopilot GPU", name, a.GKEAccelerators)
		}
	}
	for _, value := range factAutopilotGPUs {
		if a := clouds.AcceleratorForGKE(value); a != nil && !slices.Contains(offered, a.Name) {
			t.Errorf("Autopilot provisions %s (%s), but the catalog does not offer it there", value, a.Name)
		}
	}
}

// factN1MaxVCPUs: the most vCPUs an N1 machine may have to take that many
// attached GPUs (Compute Engine "GPU machine types", N1 table; GKE's
// cluster-autoscaler GPU table, maxCpuCount, has the same numbers).
var factN1MaxVCPUs = map[string]map[int64]int{
	"nvidia-tesla-t4":   {1: 48, 2: 48, 4: 96},
	"nvidia-tesla-v100": {1: 12, 2: 24, 4: 48, 8: 96},
}

// n1StandardVCPUs reads the vCPU count of an n1-standard-<n> machine.
func n1StandardVCPUs(machine string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(machine, "n1-standard-"))
	return n, err == nil && strings.HasPrefix(machine, "n1-standard-")
}

// Every GKE node pool the provider describes names a machine type that takes
// its accelerator and count: for accelerator-optimized machines, the
// catalog's machine with exactly that many GPUs; for the attached T4 and
// V100, an N1 machine within Compute Engine's vCPU limit for the count. An
// empty machine type would get GKE's default machine, which takes no GPU
// (issue #12, finding 8).
func TestEveryGKEPoolNamesAMachineForItsGPUs(t *testing.T) {
	for _, name := range clouds.Lookup(spec.CloudGKE).Accelerators() {
		a := catalog.Find(name)
		for _, count := range clouds.GPUCounts(clouds.Lookup(spec.CloudGKE).MachinesOf(a)) {
			r, diags := pool.Render(spec.PoolPolicy{Name: "p", Cloud: string(spec.CloudGKE), Accelerator: name, GPUsPerNode: count})
			rendertest.RequireNoErrors(t, diags)
			if r.GKE == nil || r.GKE.MachineType == "" {
				t.Errorf("%s x%d: no machine type", name, count)
				continue
			}
			machine, accel := r.GKE.MachineType, r.GKE.GuestAccelerator.Type
			if limits, attached := factN1MaxVCPUs[accel]; attached {
				vcpus, ok := n1StandardVCPUs(machine)
				if !ok || vcpus > limits[count] {
					t.Errorf("%s x%d: %s is not an N1 machine of at most %d vCPUs", name, count, machine, limits[count])
				}
				continue
			}
			if !slices.Contains(clouds.MachinesWithGPUs(clouds.GKEMachines[accel], count), machine) {
				t.Errorf("%s x%d: %s does not come with %d %s", name, count, machine, count, accel)
			}
		}
	}
}

// The default N1 machines stay within the limits for every count, including
// counts no pool test above reaches.
func TestN1DefaultsWithinVCPULimits(t *testing.T) {
	for accel, limits := range factN1MaxVCPUs {
		if len(clouds.GKEN1Machines[accel]) != len(limits) {
			t.Errorf("%s: defaults for counts %v, Compute Engine allows %v", accel, clouds.GKEN1Machines[accel], limits)
		}
		for count, machine := range clouds.GKEN1Machines[accel] {
			if vcpus, ok := n1StandardVCPUs(machine); !ok || vcpus > limits[count] {
				t.Errorf("%s x%d: %s exceeds %d vCPUs", accel, count, machine, limits[count])
			}
		}
	}
}
