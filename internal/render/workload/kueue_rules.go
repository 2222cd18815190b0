package workload

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The rules of a queued workload that depend on the Kueue release that
// runs the queue (w.Kueue: kueue_version, the cluster's install, or the
// oldest supported release when neither is known). Each diagnostic names
// the release it judged by (kueuever, docs/design/kueue-versions.md).

// inKueue reports whether Kueue admits the workload.
func inKueue(w spec.Workload) bool {
	return w.Queue != "" && (w.QueueScheduler == "" || w.QueueScheduler == spec.QueueSchedulerKueue)
}

// KueueRulesApply reports whether w is judged by release-dependent Kueue
// rules: a queued DRA workload. The provider asks for the release only
// then.
func KueueRulesApply(w spec.Workload) bool { return w.GPU.DRA != nil && inKueue(w) }

// checkKueueRules runs the release-dependent rules of a queued DRA
// workload. They need the provider's configuration (kueue_version, the
// cluster): without it (w.Kueue nil: the configuration validated alone)
// they wait for the plan, and their findings are Final, which the plan
// reports.
func checkKueueRules(w spec.Workload, in clouds.GPUIntent, diags *gpudiag.Diagnostics) {
	if !KueueRulesApply(w) || w.Kueue == nil {
		return
	}
	k := *w.Kueue
	checkDRAQueue(w, k, in, diags)
	checkDRATopology(w, k, diags)
	checkDRAGate(k, diags)
}

// checkDRAQueue: Kueue counts a claim template's devices per device class
// and marks a workload whose template it cannot count inadmissible: it
// never starts. What it can count grows with the release (CEL selectors
// from v0.18.0, constraints from v0.18.2; firstAvailable in none).
func checkDRAQueue(w spec.Workload, k kueuever.Known, in clouds.GPUIntent, diags *gpudiag.Diagnostics) {
	refusal, rule := dra.BuildClaim(DRARequestOf(w.GPU, in)).KueueRefusal(k.Effective())
	if refusal == "" {
		return
	}
	path, allowed := gpudiag.At("gpu", "dra"), "a claim that only names a device class and a count: set "+
		"gpu.dra.device_class to a class selecting the devices (mapped in Kueue's deviceClassMappings), without "+
		"selectors or min_memory; or Kueue v0.18 or later (kueue_version names it when the cluster's is not read)."
	switch rule.Name {
	case kueuever.DeviceConstraints.Name:
		path, allowed = gpudiag.At("gpu", "dra", "same"), "no gpu.dra.same, or Kueue v0.18.2 or later (kueue_version "+
			"names it when the cluster's is not read)."
	case kueuever.FirstAvailable.Name:
		path, allowed = gpudiag.At("gpu", "accelerators"), "one model (gpu.accelerator) or a device class "+
			"(gpu.dra.device_class) instead of a preference list."
	}
	name := k.Name()
	diags.AddFinalError(path, name+" cannot admit this claim", "The workload's ResourceClaimTemplate has what "+name+
		" refuses (\""+refusal+"\"), so Kueue marks the workload inadmissible and it never starts. Kueue accepts "+
		rule.Name+" "+rule.Since()+" ("+rule.Ref+"). "+k.Describe()+" Allowed: "+allowed)
}

// checkDRATopology: Kueue's Topology Aware Scheduling picks nodes by the
// pods' requests and does not count DRA devices, in every release: the
// pods would be pinned to a domain whose devices may all be taken, and
// stay pending there while other domains have free ones.
func checkDRATopology(w spec.Workload, k kueuever.Known, diags *gpudiag.Diagnostics) {
	if w.Topology == nil || kueuever.DRAWithTopology.In(k.Effective()) {
		return
	}
	diags.AddFinalError(gpudiag.At("topology"), "Kueue cannot place DRA devices by topology", "topology asks Kueue's "+
		"Topology Aware Scheduling to place the pods, and their GPUs are DRA devices (gpu.dra, or a pool with "+
		"gpu_allocation = \"dra\"). Kueue counts "+kueuever.DRAWithTopology.Name+" "+kueuever.DRAWithTopology.Since()+
		" ("+kueuever.DRAWithTopology.Ref+"): it would place the pods by their CPU and memory alone, in a domain "+
		"whose devices may be taken, where they stay pending. "+k.Describe()+" Allowed: no topology block, a "+
		"pool with gpu_allocation = \""+spec.GPUAllocationDevicePlugin+"\", or a queue_scheduler other than Kueue.")
}

// checkDRAGate: before v0.18 Kueue's DRA integration is an alpha feature
// gate, off by default, and with it off Kueue ignores the claims: the
// workload is admitted on its other requests, its GPUs charged to no
// quota. The provider cannot see Kueue's gates, so this is a warning.
func checkDRAGate(k kueuever.Known, diags *gpudiag.Diagnostics) {
	if kueuever.DRAIntegrationByDefault.In(k.Effective()) {
		return
	}
	name := k.Name()
	diags.AddFinalWarning(gpudiag.At("queue"), name+" counts DRA devices only with a feature gate", "The workload's "+
		"GPUs are DRA devices. "+name+" counts them against the queue's quota only with its DynamicResourceAllocation "+
		"feature gate on (alpha, off by default; Kueue's DRA integration is on by default "+
		kueuever.DRAIntegrationByDefault.Since()+", "+kueuever.DRAIntegrationByDefault.Ref+"). With the gate off "+
		"Kueue does not read the claims and admits the workload on its CPU and memory alone, whatever the GPU quota. "+
		k.Describe()+" Allowed: keep it where the gate is on (with the queue's kueue_device_class_mappings in "+
		"Kueue's configuration), or turn the gate on, or Kueue v0.18 or later.")
}
