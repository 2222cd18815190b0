package capacity

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
)

// classifyNode groups by the most specific pool label present: each
// profile in registry order recognises its own nodes (a cloud's own
// node-pool label first, since a GKE or AKS node may also carry GFD labels;
// then Karpenter's, then the GPU Operator's), then the instance type.
func classifyNode(n *corev1.Node) clouds.NodeClass {
	l := n.Labels
	c, found := clouds.NodeClass{}, false
	for _, reader := range clouds.NodeReaders() {
		if c, found = reader.Classify(n); found {
			break
		}
	}
	switch {
	case found:
	case l[clouds.LabelInstanceType] != "":
		c = clouds.NodeClass{Key: "instance-type/" + l[clouds.LabelInstanceType], Product: l[clouds.LabelInstanceType]}
	default:
		c = clouds.NodeClass{Key: "node/" + n.Name}
	}
	if c.Accel == nil {
		c.Accel = cmp.Or(acceleratorForGFDProduct(l[clouds.LabelGFDProduct]), clouds.AcceleratorForInstanceType(l[clouds.LabelInstanceType]))
	}
	return c
}

// acceleratorForGFDProduct matches nvidia.com/gpu.product, including the
// MIG ("-MIG-<profile>") and shared ("-SHARED") forms GFD produces.
func acceleratorForGFDProduct(product string) *catalog.Accelerator {
	if product == "" {
		return nil
	}
	product = strings.TrimSuffix(product, "-SHARED")
	if i := strings.Index(product, "-MIG-"); i >= 0 {
		product = product[:i]
	}
	for i := range catalog.Table {
		if slices.Contains(catalog.Table[i].GFDProducts, product) {
			return &catalog.Table[i]
		}
	}
	return nil
}

// Requests are the GPU requests of the pods bound to each node that still
// hold their resources (not Succeeded or Failed), added up one pod at a
// time: a caller reading a large cluster's pods page by page keeps only
// these sums, not the pods.
type Requests map[string]map[corev1.ResourceName]int64

// Add counts one pod's GPU requests on its node.
func (r Requests) Add(p *corev1.Pod) {
	if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return
	}
	byNode := r[p.Spec.NodeName]
	if byNode == nil {
		byNode = map[corev1.ResourceName]int64{}
		r[p.Spec.NodeName] = byNode
	}
	for name, v := range podGPURequests(&p.Spec) {
		byNode[name] = clouds.AddSat(byNode[name], v)
	}
}

// requestsByNode sums the GPU requests of the pods per node.
func requestsByNode(pods []corev1.Pod) Requests {
	out := Requests{}
	for i := range pods {
		out.Add(&pods[i])
	}
	return out
}

// podGPURequests is the scheduler's effective request for GPU resources:
// containers and restartable init containers (sidecars) add up; a regular
// init container needs its own request plus the sidecars started before it,
// and the pod needs the larger of the two; pod overhead comes on top.
func podGPURequests(spec *corev1.PodSpec) map[corev1.ResourceName]int64 {
	sum := map[corev1.ResourceName]int64{}
	for i := range spec.Containers {
		addRequests(sum, &spec.Containers[i])
	}
	initPeak := map[corev1.ResourceName]int64{}
	sidecars := map[corev1.ResourceName]int64{}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addRequests(sum, c)
			addRequests(sidecars, c)
			continue
		}
		single := map[corev1.ResourceName]int64{}
		addRequests(single, c)
		for name, v := range single {
			initPeak[name] = max(initPeak[name], clouds.AddSat(v, sidecars[name]))
		}
	}
	for name, v := range initPeak {
		sum[name] = max(sum[name], v)
	}
	for name, q := range spec.Overhead {
		if isGPUResource(name) {
			sum[name] = clouds.AddSat(sum[name], max(q.Value(), 0))
		}
	}
	return sum
}

// addRequests adds a container's GPU requests; a limit without a request
// counts as the request (the API server defaults it so for extended
// resources, but objects built in memory may not have been defaulted).
func addRequests(sum map[corev1.ResourceName]int64, c *corev1.Container) {
	for name, q := range c.Resources.Requests {
		if isGPUResource(name) {
			sum[name] = clouds.AddSat(sum[name], max(q.Value(), 0))
		}
	}
	for name, q := range c.Resources.Limits {
		if _, requested := c.Resources.Requests[name]; !requested && isGPUResource(name) {
			sum[name] = clouds.AddSat(sum[name], max(q.Value(), 0))
		}
	}
}
