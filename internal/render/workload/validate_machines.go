package workload

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// checkCountFitsMachines: all of a pod's GPUs are on one node, so a count
// that no machine of the cloud carries for the model never schedules (and
// no autoscaler creates a node for it). The machine shapes are the cloud
// profile's (MachineRules.Machines); a model whose shapes are unknown, as on
// generic clusters, accepts any count.
//
// With a preference list the pod can still run when some models fit: the
// others get a warning on their entry and stay in the placement (the
// scheduler skips their nodes for lack of GPUs), so the plan says exactly
// what was written. When none fits it is an error on gpu.count.
func checkCountFitsMachines(g spec.GPU, in clouds.GPUIntent, cloud clouds.MachineCatalog, diags *gpudiag.Diagnostics) {
	if !cloud.Known() || in.Count == 0 || in.DRA || in.Sharing != "" || len(in.Accelerators) == 0 {
		return
	}
	var misfits []string
	var warnings []gpudiag.Diagnostic
	var largest int64 // the most GPUs (or instances) one machine of a listed model holds
	for _, a := range in.Accelerators {
		shapes := cloud.Machines(a)
		if len(shapes) == 0 {
			return // unknown machines: this model may fit, so the pod may
		}
		misfit, most := machineMisfit(in, cloud, a, shapes)
		largest = max(largest, most)
		if misfit == "" {
			continue
		}
		misfits = append(misfits, misfit)
		if i := slices.Index(g.Accelerators, a.Name); i >= 0 {
			warnings = append(warnings, gpudiag.Diagnostic{Severity: gpudiag.SeverityWarning, Path: gpudiag.At("gpu", "accelerators", i),
				Summary: "No machine has " + strconv.FormatInt(in.Count, 10) + " of this model",
				Detail: misfit + ", so gpu.count = " + strconv.FormatInt(in.Count, 10) +
					" never lands on it; the other models in the list can take the pod. Allowed: remove it from the list."})
		}
	}
	switch {
	case len(misfits) == 0:
	case len(misfits) < len(in.Accelerators):
		*diags = append(*diags, warnings...)
	case cloud.ExactGPUCounts() && in.Partition == nil:
		diags.AddError(gpudiag.At("gpu", "count"), "GPU count not offered on "+string(cloud.Name()),
			"gpu.count is "+strconv.FormatInt(in.Count, 10)+": "+strings.Join(misfits, "; ")+
				". Allowed: gpu.count = one of these counts, or another model.")
	default:
		diags.AddError(gpudiag.At("gpu", "count"), "No machine has that many GPUs",
			"gpu.count is "+strconv.FormatInt(in.Count, 10)+", and all of a pod's GPUs must be on one machine: "+
				strings.Join(misfits, "; ")+". Allowed: gpu.count up to "+strconv.FormatInt(largest, 10)+countHint(in)+".")
	}
}

// machineMisfit says why no machine of the cloud serves count of a ("" when
// one does), and the most GPUs (MIG instances for a partition) one machine
// holds.
func machineMisfit(in clouds.GPUIntent, cloud clouds.MachineCatalog, a *catalog.Accelerator, shapes []clouds.MachineShape) (string, int64) {
	counts := clouds.GPUCounts(shapes)
	most := counts[len(counts)-1]
	// The messages are built only for a misfit: most counts fit.
	model := func() string { return strconv.Quote(a.Name) + " (" + a.DisplayName + ")" }
	if in.Partition != nil {
		perGPU := int64(in.Partition.InstancesPerGPU)
		if perGPU <= 0 || in.Count <= perGPU*most {
			return "", perGPU * most
		}
		return strconv.Quote(string(cloud.Name())) + " machines hold at most " + strconv.FormatInt(perGPU*most, 10) + " " +
			in.Partition.Name + " instances of " + model() + " (" + strconv.FormatInt(perGPU, 10) + " per GPU, " +
			strconv.FormatInt(most, 10) + " GPUs per machine)", perGPU * most
	}
	offers := func() string {
		return strconv.Quote(string(cloud.Name())) + " offers " + model() + " with " + orList(counts) + " GPUs per machine"
	}
	if cloud.ExactGPUCounts() {
		if slices.Contains(counts, in.Count) {
			return "", most
		}
		// Autopilot sizes the node from this selector (gkeProfile.place).
		return offers() + ", and its " + clouds.GKELabelAcceleratorCount + " selector must be one of these", most
	}
	if in.Count <= most {
		return "", most
	}
	return offers(), most
}

// countHint completes "Allowed: gpu.count up to N".
func countHint(in clouds.GPUIntent) string {
	if in.Partition != nil {
		return ", or a smaller partition (more instances per GPU)"
	}
	return ", or a model with larger machines"
}

// orList prints counts as "1, 2 or 4".
func orList(counts []int64) string {
	if len(counts) == 1 {
		return strconv.FormatInt(counts[0], 10)
	}
	return clouds.FormatCounts(counts[:len(counts)-1]) + " or " + strconv.FormatInt(counts[len(counts)-1], 10)
}
