package ray

import (
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// A group's patch is gpu_workload's escape hatch for one Ray group: a
// strategic merge patch of its KubeRay group spec, for the fields no
// attribute covers (volumes, sidecars, security contexts, a worker group's
// scaleStrategy or idleTimeoutSeconds, rayStartParams beyond the typed
// ones). Per group rather than of the whole object because the group specs
// are a list KubeRay's Go types give no merge key: a patch of the object
// would replace every group. What the rules decided must survive it, as
// for gpu_workload (workload.CheckPatchedPod), and so must Ray's view of
// the GPUs: num-gpus, the accelerator type, a GPU-less group's hidden
// GPUs. The attributes that own a field (name, replicas) keep it.

// groupPatchAllowed is what the attribute takes, for its error message.
const groupPatchAllowed = "a strategic merge patch of the group's KubeRay spec, e.g. " +
	"\"template:\\n  spec:\\n    priorityClassName: high\""

// readGroupPatch checks the group's patch reads as an object.
func readGroupPatch(g group, diags *gpudiag.Diagnostics) ([]byte, bool) {
	if g.Patch == "" {
		return nil, false
	}
	return workload.ReadPatch(g.Patch, g.path("patch"), groupPatchAllowed, diags)
}

// patchGroup applies g's patch to its spec in s (index i of the groups,
// the head first) and checks the result; the patched pod template becomes
// the group's (gr.Pod.Pod), so the queue's check counts what it asks for.
func patchGroup(s *rayv1.RayClusterSpec, g group, gr *GroupRendered, diags *gpudiag.Diagnostics) {
	patchJSON, ok := readGroupPatch(g, diags)
	if !ok {
		return
	}
	at := g.path("patch")
	var findings gpudiag.Diagnostics
	if g.head {
		var after rayv1.HeadGroupSpec
		if !workload.PatchTyped(s.HeadGroupSpec, patchJSON, &after, at, &findings) {
			diags.Append(findings)
			return
		}
		checkPatchedGroup(groupView{s.HeadGroupSpec.RayStartParams, s.HeadGroupSpec.Labels, &s.HeadGroupSpec.Template},
			groupView{after.RayStartParams, after.Labels, &after.Template}, g, *gr, &findings)
		if diags.Append(findings); !findings.HasError() {
			s.HeadGroupSpec, gr.Pod.Pod = after, after.Template
		}
		return
	}
	before := &s.WorkerGroupSpecs[g.index]
	var after rayv1.WorkerGroupSpec
	if !workload.PatchTyped(*before, patchJSON, &after, at, &findings) {
		diags.Append(findings)
		return
	}
	checkWorkerFieldsKept(*before, after, at, &findings)
	checkPatchedGroup(groupView{before.RayStartParams, before.Labels, &before.Template},
		groupView{after.RayStartParams, after.Labels, &after.Template}, g, *gr, &findings)
	if diags.Append(findings); !findings.HasError() {
		*before, gr.Pod.Pod = after, after.Template
	}
}

// groupView is what the head's and a worker group's specs share.
type groupView struct {
	params, labels map[string]string
	template       *corev1.PodTemplateSpec
}

// checkPatchedGroup: the pod keeps its GPU rules, Ray's view keeps
// agreeing with the pod, the accelerator type stays the model's, and a
// group without GPUs still cannot see a node's.
func checkPatchedGroup(before, after groupView, g group, gr GroupRendered, diags *gpudiag.Diagnostics) {
	at := g.path("patch")
	podFindings := workload.CheckPatchedPod(before.template, after.template, g.workload.SelectorLabels, at)
	diags.Append(podFindings)
	if !podFindings.HasError() { // else the pod's GPUs are not the group's, and that is the error
		checkRayView(after.params, *after.template, gr, at, diags)
	}
	if want, ok := before.labels[LabelAcceleratorType]; ok && after.labels[LabelAcceleratorType] != want {
		diags.AddError(at, "Patch changes Ray's accelerator type", "The group's Ray label "+LabelAcceleratorType+" is "+
			quote(want)+", the model its pods get; the patch makes it "+quote(after.labels[LabelAcceleratorType])+
			", so Ray would schedule tasks for another model here. Allowed: choose the model with the gpu block.")
	}
	if !g.gpus && len(after.template.Spec.Containers) > 0 {
		c := after.template.Spec.Containers[0]
		if visibleDevices(c) != VisibleDevicesVoid {
			diags.AddError(at, "Patch shows a node's GPUs to a group without GPUs", "The "+g.label()+" asks for no GPU, so "+
				"its Ray container has "+EnvVisibleDevices+"="+VisibleDevicesVoid+": without it the NVIDIA runtime shows "+
				"every GPU of the node to a pod Kubernetes gave none (kuberay#2098). Allowed: leave "+EnvVisibleDevices+
				" out of the patch, or add a gpu block.")
		}
	}
}

// checkWorkerFieldsKept: the attributes that own a worker group's fields
// keep them; a patch that moved them would make the plan lie (Kueue counts
// the pod set by replicas, and the group's name is its pod set's).
func checkWorkerFieldsKept(before, after rayv1.WorkerGroupSpec, at []any, diags *gpudiag.Diagnostics) {
	for _, f := range []struct {
		field, attr   string
		before, after any
	}{
		{"groupName", "name", before.GroupName, after.GroupName},
		{"replicas", "replicas", before.Replicas, after.Replicas},
		{"minReplicas", "min_replicas", before.MinReplicas, after.MinReplicas},
		{"maxReplicas", "max_replicas", before.MaxReplicas, after.MaxReplicas},
		{"numOfHosts", "replicas (one host per pod)", before.NumOfHosts, after.NumOfHosts},
	} {
		if !equality.Semantic.DeepEqual(f.before, f.after) {
			diags.AddError(at, "Patch changes "+f.field, "The worker group's "+f.field+" comes from its "+f.attr+
				" attribute, which the queue check and the plan count with. Allowed: set "+f.attr+" instead, and leave "+
				f.field+" out of the patch.")
		}
	}
}

// visibleDevices is the container's NVIDIA_VISIBLE_DEVICES value.
func visibleDevices(c corev1.Container) string {
	for _, e := range c.Env {
		if e.Name == EnvVisibleDevices {
			return e.Value
		}
	}
	return ""
}
