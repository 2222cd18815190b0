package ray

import (
	"slices"
	"strconv"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// What the provider writes so that Ray sees what Kubernetes gives the pod.
const (
	// LabelAcceleratorType is Ray's node label of the accelerator model
	// (Ray's "Default node labels"); KubeRay v1.5 passes a group's labels
	// field to `ray start --labels`, and the autoscaler reads it to scale a
	// group up from zero for a task that selects it.
	LabelAcceleratorType = "ray.io/accelerator-type"
	// EnvVisibleDevices = "void" makes the NVIDIA container runtime expose
	// no GPU at all to the container (NVIDIA Container Toolkit,
	// "GPU Enumeration"): a pod without GPUs on a GPU node would otherwise
	// see every GPU of the node when its image sets the variable to "all"
	// (the CUDA images do), which Ray then counts (kuberay#2098).
	EnvVisibleDevices  = "NVIDIA_VISIBLE_DEVICES"
	VisibleDevicesVoid = "void"
)

// Rendered is the objects of a Ray cluster.
type Rendered struct {
	// Objects in apply order: the groups' DRA claim templates and
	// ComputeDomains, then the Ray object (RayCluster, RayJob or
	// RayService), last.
	Objects []workload.Object
	// Exactly one of these is set: the Ray object.
	Cluster *rayv1.RayCluster
	Job     *rayv1.RayJob
	Service *rayv1.RayService
	// Groups are the head and the worker groups, in order.
	Groups []GroupRendered
	// Manifest is Objects as canonical YAML (workload.ManifestOf).
	Manifest string
}

// GroupRendered is one group as rendered.
type GroupRendered struct {
	// Name is the worker group's name, "head" for the head.
	Name string
	Head bool
	// GPUs is what the pod gets and Ray is told (num-gpus).
	GPUs int64
	// ResourceName is the GPU's extended resource ("" for a DRA claim or no
	// GPU); DRA is true when a claim gives the GPUs.
	ResourceName string
	DRA          bool
	// Cloud and GPU are the group's after its pool filled them, for the
	// queue's flavor matching.
	Cloud string
	GPU   spec.GPU
	Pod   *workload.PodRendered
}

// Object is the Ray object, the last of Objects.
func (r *Rendered) Object() workload.Object { return r.Objects[len(r.Objects)-1] }

// ClusterSpec is the Ray cluster's spec inside the Ray object.
func (r *Rendered) ClusterSpec() *rayv1.RayClusterSpec {
	switch {
	case r.Job != nil:
		return r.Job.Spec.RayClusterSpec
	case r.Service != nil:
		return &r.Service.Spec.RayClusterSpec
	}
	return &r.Cluster.Spec
}

// Render builds the objects of a strict resolution; the resolution's own
// findings are the caller's to report. opts.Pool is ignored: each group
// has its pool.
func Render(resolved Resolved, opts workload.Options) (*Rendered, gpudiag.Diagnostics) {
	diags := gpudiag.Unresolved("Ray cluster", resolved.Strict, resolved.Findings)
	if diags.HasError() {
		return nil, diags
	}
	c := resolved.Cluster
	r := &Rendered{}
	clusterSpec := rayv1.RayClusterSpec{RayVersion: c.RayVersion}
	if c.Autoscaling != nil {
		clusterSpec.EnableInTreeAutoscaling = ptr(true)
		if c.Autoscaling.IdleTimeoutSeconds != nil {
			clusterSpec.AutoscalerOptions = &rayv1.AutoscalerOptions{IdleTimeoutSeconds: c.Autoscaling.IdleTimeoutSeconds}
		}
	}
	for _, g := range resolved.groups {
		pod, podDiags := renderGroupPod(g, opts)
		if diags.Append(onGroup(g, podDiags)); diags.HasError() {
			return nil, diags
		}
		gr := groupRendered(g, pod)
		r.Groups = append(r.Groups, gr)
		r.Objects = append(r.Objects, pod.Objects...)
		addGroup(&clusterSpec, c, g, gr)
	}
	for k, g := range resolved.groups {
		patchGroup(&clusterSpec, g, &r.Groups[k], &diags)
	}
	if diags.HasError() {
		return nil, diags
	}
	r.Objects = append(r.Objects, rayObject(c, clusterSpec, r))
	manifest, err := workload.ManifestOf(r.Objects)
	if err != nil {
		diags.AddError(nil, "Could not encode the manifest", err.Error()+"; this is a provider bug, please report it.")
		return nil, diags
	}
	r.Manifest = manifest
	return r, diags
}

// renderGroupPod renders the group's pod with gpu_workload's code, then
// takes the stand-in GPU of a group without GPUs away again.
func renderGroupPod(g group, opts workload.Options) (*workload.PodRendered, gpudiag.Diagnostics) {
	pod, diags := workload.RenderPod(g.resolved, opts)
	if pod == nil || g.gpus {
		return pod, diags
	}
	withoutGPU(pod, g.NodePool == nil)
	return pod, diags
}

// withoutGPU removes the GPU from a pod rendered with a stand-in one: its
// limit and request (or its DRA claim), and, without a pool, the GPU
// node's placement. The pod still runs on a GPU pool's nodes when it has
// one, so it cannot see their GPUs either.
func withoutGPU(pod *workload.PodRendered, unplaced bool) {
	spec := &pod.Pod.Spec
	c := &spec.Containers[0]
	if name := corev1.ResourceName(pod.ResourceName); name != "" {
		delete(c.Resources.Limits, name)
		delete(c.Resources.Requests, name)
	}
	c.Resources.Claims, spec.ResourceClaims = nil, nil
	pod.Objects, pod.ResourceName = nil, ""
	if unplaced {
		spec.NodeSelector, spec.Affinity, spec.Tolerations, spec.HostIPC = nil, nil, nil, false
	}
	c.Env = append(slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == EnvVisibleDevices }),
		corev1.EnvVar{Name: EnvVisibleDevices, Value: VisibleDevicesVoid})
}

func groupRendered(g group, pod *workload.PodRendered) GroupRendered {
	gpus, _ := groupGPUs(g)
	gr := GroupRendered{Name: g.groupName(), Head: g.head, GPUs: gpus, ResourceName: pod.ResourceName,
		DRA: g.gpus && g.resolved.Intent.DRA, Cloud: g.workload.Cloud, Pod: pod}
	if g.gpus {
		gr.GPU = g.workload.GPU
	}
	return gr
}

// addGroup puts the group into the cluster's spec: Ray's start parameters
// with num-gpus set to the pod's GPUs, Ray's labels with the accelerator
// type, and a worker group's replicas.
func addGroup(s *rayv1.RayClusterSpec, c spec.RayCluster, g group, gr GroupRendered) {
	params := startParams(g, gr)
	labels := rayLabels(g)
	if g.head {
		s.HeadGroupSpec = rayv1.HeadGroupSpec{RayStartParams: params, Labels: labels, Template: gr.Pod.Pod}
		return
	}
	replicas := desiredReplicas(g.RayGroup)
	lo, hi := replicas, replicas // without autoscaling the group runs exactly replicas
	if c.Autoscaling != nil {
		lo, hi = valueOr(g.MinReplicas, 0), valueOr(g.MaxReplicas, replicas)
	}
	s.WorkerGroupSpecs = append(s.WorkerGroupSpecs, rayv1.WorkerGroupSpec{
		GroupName: g.Name, Replicas: ptr(replicas), MinReplicas: ptr(lo), MaxReplicas: ptr(hi),
		RayStartParams: params, Labels: labels, Template: gr.Pod.Pod,
	})
}

// startParams are the user's, with num-gpus always the pod's GPUs:
// KubeRay infers it only from a limit whose name ends in "gpu" or is a
// mixed-strategy MIG resource (utils.IsGPUResourceKey), never from a DRA
// claim or nvidia.com/gpu.shared, and a group without GPUs must say 0 so
// that Ray counts none of a node's.
func startParams(g group, gr GroupRendered) map[string]string {
	params := make(map[string]string, len(g.RayStartParams)+1)
	for k, v := range g.RayStartParams {
		params[k] = v
	}
	params[ParamNumGPUs] = strconv.FormatInt(gr.GPUs, 10)
	return params
}

// rayLabels give Ray the accelerator type of a group with GPUs.
func rayLabels(g group) map[string]string {
	if !g.gpus {
		return nil
	}
	if t := AcceleratorType(g.workload.GPU.Accelerator); t != "" {
		return map[string]string{LabelAcceleratorType: t}
	}
	return nil
}

// rayObject wraps the cluster's spec in the object the intent asks for.
func rayObject(c spec.RayCluster, s rayv1.RayClusterSpec, r *Rendered) workload.Object {
	meta := objectMeta(c)
	switch {
	case c.Job != nil:
		j := c.Job
		shutdown := j.ShutdownAfterJobFinishes == nil || *j.ShutdownAfterJobFinishes
		r.Job = &rayv1.RayJob{TypeMeta: typeMeta("RayJob"), ObjectMeta: meta, Spec: rayv1.RayJobSpec{
			Entrypoint: j.Entrypoint, RuntimeEnvYAML: j.RuntimeEnvYAML, RayClusterSpec: &s,
			SubmissionMode: rayv1.K8sJobMode, ShutdownAfterJobFinishes: shutdown,
			TTLSecondsAfterFinished: valueOr(j.TTLSecondsAfterFinished, 0),
			ActiveDeadlineSeconds:   j.ActiveDeadlineSeconds, BackoffLimit: j.BackoffLimit,
		}}
		return r.Job
	case c.Serve != nil:
		r.Service = &rayv1.RayService{TypeMeta: typeMeta("RayService"), ObjectMeta: meta, Spec: rayv1.RayServiceSpec{
			ServeConfigV2: c.Serve.ConfigYAML, RayClusterSpec: s,
		}}
		return r.Service
	}
	r.Cluster = &rayv1.RayCluster{TypeMeta: typeMeta("RayCluster"), ObjectMeta: meta, Spec: s}
	return r.Cluster
}

// objectMeta is the Ray object's: the cluster's labels under the
// provider's, and Kueue's queue label, which Kueue reads on the RayCluster,
// RayJob or RayService itself (docs/design/queues.md).
func objectMeta(c spec.RayCluster) metav1.ObjectMeta {
	labels := make(map[string]string, len(c.Labels)+4)
	for k, v := range c.Labels {
		labels[k] = v
	}
	labels[spec.LabelName], labels[spec.LabelInstance], labels[spec.LabelManagedBy] = c.Name, c.Name, spec.ManagedBy
	if c.Queue != "" {
		labels[workload.LabelKueueQueueName] = c.Queue
	}
	namespace := c.Namespace
	if namespace == "" {
		namespace = spec.DefaultNamespace
	}
	return metav1.ObjectMeta{Name: c.Name, Namespace: namespace, Labels: labels, Annotations: cloneMap(c.Annotations)}
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: rayv1.GroupVersion.String(), Kind: kind}
}

func ptr[T any](v T) *T { return &v }

func valueOr(p *int32, fallback int32) int32 {
	if p == nil {
		return fallback
	}
	return *p
}
