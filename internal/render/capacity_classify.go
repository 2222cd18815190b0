package render

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Node labels that name the pool a node belongs to (domain.md §5).
const (
	gkeLabelNodePool    = "cloud.google.com/gke-nodepool"
	aksLabelAgentPool   = "kubernetes.azure.com/agentpool"
	aksLegacyAgentPool  = "agentpool"
	aksNAPLabelGPUName  = "karpenter.azure.com/sku-gpu-name"
	eksLabelNodeGroup   = "eks.amazonaws.com/nodegroup"
	eksAutoComputeType  = "eks.amazonaws.com/compute-type"
	eksAutoLabelGPUName = "eks.amazonaws.com/instance-gpu-name"
)

// nodeClass is where a node belongs and what GPU it has.
type nodeClass struct {
	key     string
	cloud   Cloud
	product string
	accel   *Accelerator
}

// classifyNode groups by the most specific pool label present: the cloud's
// own node-pool label first (a GKE or AKS node may also carry GFD labels),
// then Karpenter's, then the GPU Operator's, then the instance type.
func classifyNode(n *corev1.Node) nodeClass {
	l := n.Labels
	var c nodeClass
	switch {
	case l[gkeLabelAccelerator] != "":
		c = classifyGKE(n)
	case l[aksLabelAgentPool] != "" || l[aksLegacyAgentPool] != "" || l[aksNAPLabelGPUName] != "":
		c = classifyAKS(l)
	case l[eksLabelNodeGroup] != "":
		c = nodeClass{cloud: CloudEKS, key: "eks/" + l[eksLabelNodeGroup], product: cmp.Or(l[eksLabelAccelerator], l[labelInstanceType])}
		c.accel = cmp.Or(acceleratorForInstanceType(l[labelInstanceType]), acceleratorForEKS(l[eksLabelAccelerator]))
	case l[karpenterLabelNodePool] != "":
		c = classifyKarpenter(l)
	case l[labelGFDProduct] != "" || l[labelGPUPresent] == "true":
		c = nodeClass{cloud: CloudGeneric, key: genericPoolKey(l), product: l[labelGFDProduct]}
	case l[labelInstanceType] != "":
		c = nodeClass{key: "instance-type/" + l[labelInstanceType], product: l[labelInstanceType]}
	default:
		c = nodeClass{key: "node/" + n.Name}
	}
	if c.accel == nil {
		c.accel = cmp.Or(acceleratorForGFDProduct(l[labelGFDProduct]), acceleratorForInstanceType(l[labelInstanceType]))
	}
	return c
}

// classifyGKE: Autopilot nodes are named gk3-... and live in
// auto-provisioned (nap-...) pools; NAP on Standard looks the same.
func classifyGKE(n *corev1.Node) nodeClass {
	l := n.Labels
	cloud := CloudGKE
	pool := l[gkeLabelNodePool]
	if strings.HasPrefix(n.Name, "gk3-") || strings.HasPrefix(pool, "nap-") {
		cloud = CloudGKEAutopilot
	}
	if pool == "" {
		pool = l[gkeLabelAccelerator]
	}
	return nodeClass{cloud: cloud, key: string(cloud) + "/" + pool, product: l[gkeLabelAccelerator],
		accel: acceleratorForGKE(l[gkeLabelAccelerator])}
}

// classifyAKS: agent pools, or node auto-provisioning (Karpenter on Azure).
func classifyAKS(l map[string]string) nodeClass {
	pool := cmp.Or(l[aksLabelAgentPool], l[aksLegacyAgentPool])
	if pool == "" {
		pool = "nap-" + cmp.Or(l[karpenterLabelNodePool], l[aksNAPLabelGPUName])
	}
	c := nodeClass{cloud: CloudAKS, key: "aks/" + pool, product: l[labelInstanceType]}
	if size := l[labelInstanceType]; size != "" {
		for i := range catalog {
			if slices.Contains(catalog[i].AKSVMSizes, size) {
				c.accel = &catalog[i]
			}
		}
	}
	return c
}

// classifyKarpenter: EKS Auto Mode uses eks.amazonaws.com/ instance labels,
// self-managed Karpenter karpenter.k8s.aws/ ones.
func classifyKarpenter(l map[string]string) nodeClass {
	cloud := CloudKarpenter
	if l[eksAutoComputeType] == "auto" || l[eksAutoLabelGPUName] != "" {
		cloud = CloudEKSAuto
	}
	prefix := karpenterLabelPrefix(cloud)
	c := nodeClass{cloud: cloud, key: string(cloud) + "/" + l[karpenterLabelNodePool], product: l[prefix+"instance-gpu-name"]}
	c.accel = acceleratorForAWSGPU(l[prefix+"instance-gpu-name"], l[prefix+"instance-gpu-memory"], l[labelInstanceType])
	return c
}

// acceleratorForAWSGPU matches EC2's GPU name; where two models share it
// (a100, v100), the per-GPU memory or the instance type decides.
func acceleratorForAWSGPU(name, memoryMiB, instanceType string) *Accelerator {
	if name == "" {
		return nil
	}
	var candidates []*Accelerator
	for i := range catalog {
		if catalog[i].AWSGPUName == name {
			candidates = append(candidates, &catalog[i])
		}
	}
	if len(candidates) == 1 {
		return candidates[0]
	}
	for _, a := range candidates {
		if a.AWSGPUMemoryMiB > 0 && strconv.FormatInt(a.AWSGPUMemoryMiB, 10) == memoryMiB {
			return a
		}
	}
	if a := acceleratorForInstanceType(instanceType); a != nil && slices.Contains(candidates, a) {
		return a
	}
	return nil
}

// acceleratorForEKS matches the cluster-autoscaler accelerator label; it is
// ambiguous for nvidia-tesla-v100 (16 and 32 GB), which then stays unknown
// unless the instance type resolved it.
func acceleratorForEKS(value string) *Accelerator {
	var found *Accelerator
	for i := range catalog {
		if value != "" && catalog[i].EKSAccelerator == value {
			if found != nil {
				return nil
			}
			found = &catalog[i]
		}
	}
	return found
}

// acceleratorForGFDProduct matches nvidia.com/gpu.product, including the
// MIG ("-MIG-<profile>") and shared ("-SHARED") forms GFD produces.
func acceleratorForGFDProduct(product string) *Accelerator {
	if product == "" {
		return nil
	}
	product = strings.TrimSuffix(product, "-SHARED")
	if i := strings.Index(product, "-MIG-"); i >= 0 {
		product = product[:i]
	}
	for i := range catalog {
		if slices.Contains(catalog[i].GFDProducts, product) {
			return &catalog[i]
		}
	}
	return nil
}

// genericPoolKey groups GPU Operator nodes by model and configuration.
func genericPoolKey(l map[string]string) string {
	parts := []string{"generic", cmp.Or(l[labelGFDProduct], "unknown-gpu")}
	if cfg := l[LabelMIGConfig]; cfg != "" && cfg != MIGConfigDisabled {
		parts = append(parts, "mig-"+cfg)
	}
	if s := l[labelSharingStrategy]; s != "" && s != "none" {
		parts = append(parts, s+"-"+cmp.Or(l[labelGPUReplicas], "0"))
	}
	return strings.Join(parts, "/")
}

// requestsByNode sums the GPU requests of the pods bound to each node that
// still hold their resources (not Succeeded or Failed).
func requestsByNode(pods []corev1.Pod) map[string]map[corev1.ResourceName]int64 {
	out := map[string]map[corev1.ResourceName]int64{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		byNode := out[p.Spec.NodeName]
		if byNode == nil {
			byNode = map[corev1.ResourceName]int64{}
			out[p.Spec.NodeName] = byNode
		}
		for name, v := range podGPURequests(&p.Spec) {
			byNode[name] = addSat(byNode[name], v)
		}
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
			initPeak[name] = max(initPeak[name], addSat(v, sidecars[name]))
		}
	}
	for name, v := range initPeak {
		sum[name] = max(sum[name], v)
	}
	for name, q := range spec.Overhead {
		if isGPUResource(name) {
			sum[name] = addSat(sum[name], max(q.Value(), 0))
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
			sum[name] = addSat(sum[name], max(q.Value(), 0))
		}
	}
	for name, q := range c.Resources.Limits {
		if _, requested := c.Resources.Requests[name]; !requested && isGPUResource(name) {
			sum[name] = addSat(sum[name], max(q.Value(), 0))
		}
	}
}
