package workload

import (
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The pool's GPU network in the workload's pods (issue #42,
// docs/design/gpu-networks.md#workloads). Which pods get it:
//
//   - only workloads of several pods (job.parallelism, replicas > 1): one
//     pod's GPUs talk over NVLink inside the node and need no NIC, and a
//     NIC request a cluster cannot serve (no EFA device plugin) would keep
//     a single inference pod Pending for nothing;
//   - only whole GPUs on a device-plugin pool: NICs follow GPUs, and a MIG
//     slice or a shared GPU has no NIC of its own;
//   - a pod asking every GPU of the machine gets every NIC; fewer GPUs get
//     the NICs in proportion where that is a whole number (p5.48xlarge: 4
//     EFA per GPU) or one unit of a shared RDMA device plugin. Other counts,
//     and any count below the machine's on GKE (whose NICs attach to one pod
//     by annotation), are an error at gpu.count.

// resolveNetwork is the network pieces of the workload's pods, nil when
// they get none. It reports counts that match no NIC share, and warns
// when a multi-node job runs on a pool whose network is turned off.
func resolveNetwork(w spec.Workload, rules podRules, in clouds.GPUIntent, pool *spec.PoolPolicy, strict bool, diags *gpudiag.Diagnostics) *clouds.NetworkPod {
	if pool == nil {
		return nil
	}
	n, state := clouds.PoolNetwork(*pool)
	if state == clouds.NetworkOff || state == clouds.NetworkUnknown {
		warnNoNetwork(w, rules, n, state, pool.Name, strict, diags)
		return nil
	}
	pods, podsAttr := topologyPods(rules.kind, w)
	return networkShare(n, state, podShape{pods: pods, podsAttr: podsAttr, gpus: in.Count,
		whole: in.WholeGPUs() && !in.DRA, pool: pool.Name}, diags)
}

// NetworkFor is resolveNetwork for a pod the provider does not own
// (pod_placement, pod_template): gpu as placed on pool, in a job of pods
// pods (the request's pods key).
func NetworkFor(pool spec.PoolPolicy, gpu spec.GPU, pods int64) (*clouds.NetworkPod, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	n, state := clouds.PoolNetwork(pool)
	whole := gpu.Partition == "" && gpu.Sharing == "" && gpu.DRA == nil && !pool.UsesDRA()
	net := networkShare(n, state, podShape{pods: pods, podsAttr: "pods", gpus: gpu.Count, whole: whole, pool: pool.Name}, &diags)
	return net, diags
}

// podShape is what decides a pod's share of the network: how many pods
// the workload runs (and the attribute saying so), its GPUs, whether they
// are whole GPUs, and the pool, for findings.
type podShape struct {
	pods     int64
	podsAttr string
	gpus     int64
	whole    bool
	pool     string
}

// networkShare is the pod's network pieces under the rule above.
func networkShare(n clouds.GPUNetwork, state clouds.NetworkState, p podShape, diags *gpudiag.Diagnostics) *clouds.NetworkPod {
	if state != clouds.NetworkOn || p.pods <= 1 || !p.whole || p.gpus <= 0 {
		return nil
	}
	pod, ok := n.PodFor(p.gpus)
	if !ok {
		diags.AddError(gpudiag.At("gpu", "count"), "GPUs do not match the pool's GPU network",
			"gpu.count is "+strconv.FormatInt(p.gpus, 10)+" and "+p.podsAttr+" is "+strconv.FormatInt(p.pods, 10)+", but "+
				strconv.Quote(n.Machine)+" of node pool "+strconv.Quote(p.pool)+" has "+strconv.FormatInt(n.NICs, 10)+" "+
				n.Kind+" NICs for "+strconv.FormatInt(n.GPUs, 10)+" GPUs, which "+strconv.FormatInt(p.gpus, 10)+
				" GPUs cannot have a whole share of. Allowed: gpu.count = "+shareCounts(n)+
				", or turn the pool's network off (gpu_network { enabled = false }).")
		return nil
	}
	return &pod
}

// shareCounts lists the GPU counts with a NIC share, for findings.
func shareCounts(n clouds.GPUNetwork) string {
	return clouds.FormatCounts(n.ShareCounts())
}

// warnNoNetwork: several pods of one job exchange gradients over the
// GPU network; on a pool whose machines have one the pods do not get
// (turned off, or not known well enough to give), NCCL falls back to TCP
// sockets. Jobs only: a Deployment's replicas serve on their own.
func warnNoNetwork(w spec.Workload, rules podRules, n clouds.GPUNetwork, state clouds.NetworkState, poolName string, strict bool, diags *gpudiag.Diagnostics) {
	if !strict || !rules.multiNode {
		return
	}
	pods, attr := topologyPods(rules.kind, w)
	if pods <= 1 {
		return
	}
	why, allowed := "turns off the "+n.Kind+" network of its "+strconv.Quote(n.Machine)+" machines (gpu_network { "+
		"enabled = false })", "remove enabled = false from the pool's gpu_network"
	if state == clouds.NetworkUnknown {
		why, allowed = "runs "+strconv.Quote(n.Machine)+" machines, whose "+n.Kind+" network the pods cannot be given: "+
			n.Unknown, "a machine_type whose network the provider knows, the network's devices through pod_template, "+
			"or gpu_network { enabled = false } on the pool to say the job runs without it"
	}
	diags.AddWarning(gpudiag.At("node_pool"), "Multi-node job without the GPU network",
		attr+" is "+strconv.FormatInt(pods, 10)+", and node pool "+strconv.Quote(poolName)+" "+why+", so the pods get "+
			"none of its NICs and NCCL falls back to TCP sockets, at a fraction of the bandwidth. Allowed: "+allowed+
			", or ignore this for jobs whose pods do not talk to each other.")
}

// AddNetwork merges the network pieces into the pod: resources into the
// GPU container (requests equal to limits, as extended resources and huge
// pages require), annotations and env under the user's own, the native
// sidecars, volumes and mounts, and IPC_LOCK.
func AddNetwork(pod *corev1.PodTemplateSpec, net clouds.NetworkPod) {
	c := &pod.Spec.Containers[0]
	for name, q := range net.Resources {
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		if c.Resources.Limits == nil {
			c.Resources.Limits = corev1.ResourceList{}
		}
		c.Resources.Requests[name], c.Resources.Limits[name] = q.DeepCopy(), q.DeepCopy()
	}
	if len(net.Annotations) > 0 {
		annotations := maps.Clone(net.Annotations)
		maps.Copy(annotations, pod.Annotations)
		pod.Annotations = annotations
	}
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, net.Sidecars...)
	pod.Spec.Volumes = append(pod.Spec.Volumes, net.Volumes...)
	c.VolumeMounts = append(c.VolumeMounts, net.Mounts...)
	c.Env = mergeEnv(c.Env, net.Env)
	if net.IPCLock {
		addCapability(c, "IPC_LOCK")
	}
}

// mergeEnv adds the network's variables the container does not set,
// keeping the plain variables sorted by name ahead of secret references.
func mergeEnv(env []corev1.EnvVar, add map[string]string) []corev1.EnvVar {
	if len(add) == 0 {
		return env
	}
	plain := slices.DeleteFunc(slices.Clone(env), func(e corev1.EnvVar) bool { return e.ValueFrom != nil })
	refs := slices.DeleteFunc(slices.Clone(env), func(e corev1.EnvVar) bool { return e.ValueFrom == nil })
	for name, value := range add {
		if !slices.ContainsFunc(env, func(e corev1.EnvVar) bool { return e.Name == name }) {
			plain = append(plain, corev1.EnvVar{Name: name, Value: value})
		}
	}
	sortEnvByName(plain)
	return append(plain, refs...)
}

func addCapability(c *corev1.Container, capability corev1.Capability) {
	if c.SecurityContext == nil {
		c.SecurityContext = &corev1.SecurityContext{}
	}
	if c.SecurityContext.Capabilities == nil {
		c.SecurityContext.Capabilities = &corev1.Capabilities{}
	}
	if !slices.Contains(c.SecurityContext.Capabilities.Add, capability) {
		c.SecurityContext.Capabilities.Add = append(c.SecurityContext.Capabilities.Add, capability)
	}
}

// UnadvertisedNetwork names the resources of the pods' network (the NIC
// resource, huge pages) that no node the pods may land on has
// allocatable, sorted: whatever else is free, the scheduler places such a
// pod on none of them. It also returns how many of nodes the pods may land
// on (MayLandOn); with none there is nothing to say.
func (r *Rendered) UnadvertisedNetwork(nodes []corev1.Node) (missing []corev1.ResourceName, poolNodes int) {
	if r.Network == nil {
		return nil, 0
	}
	nodes = slices.DeleteFunc(slices.Clone(nodes), func(n corev1.Node) bool { return !r.MayLandOn(&n) })
	return unadvertisedNetwork(r.Network, nodes), len(nodes)
}

// MayLandOn is the scheduler's verdict on node for the rendered pods,
// resources aside: their node selector and required node affinity match
// it, and they tolerate its NoSchedule and NoExecute taints. Labels shared
// by several pools (the accelerator's, the instance type) select them all;
// a pool's own labels and taints tell them apart.
func (r *Rendered) MayLandOn(node *corev1.Node) bool {
	pod := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: r.NodeSelector, Affinity: r.Affinity}}
	if ok, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); err != nil || !ok {
		return false
	}
	hard := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, r.Tolerations, hard, false)
	return !untolerated
}

func unadvertisedNetwork(net *clouds.NetworkPod, nodes []corev1.Node) []corev1.ResourceName {
	if len(nodes) == 0 {
		return nil
	}
	var missing []corev1.ResourceName
	for name := range net.Resources {
		if !slices.ContainsFunc(nodes, func(n corev1.Node) bool {
			q, ok := n.Status.Allocatable[name]
			return ok && q.Sign() > 0
		}) {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	return missing
}
