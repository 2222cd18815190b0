// Every rule of Karpenter on AWS and of EKS Auto Mode (which runs Karpenter
// with AWS-managed NodeClasses, device plugin and driver): workloads,
// NodePools, live nodes and chart values. EC2 shapes and labels shared with
// EKS node groups are in aws.go.
//
// Upstream sources of its labels and facts: Karpenter's well-known labels
// (karpenter.k8s.aws/instance-gpu-name, -gpu-count, -gpu-memory, derived from
// EC2 DescribeInstanceTypes; karpenter.sh/capacity-type, karpenter.sh/nodepool)
// and its karpenter.sh/v1 NodePool API (pkg/apis/v1/nodepool.go); EKS Auto
// Mode's "Supported labels" and "Create a NodePool" pages (eks.amazonaws.com/
// instance-gpu-*, compute-type, the eks.amazonaws.com NodeClass) and its GPU
// page (AWS-managed NVIDIA driver and device plugin, no MIG or sharing
// configuration).

package clouds

import (
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// EKS Auto Mode labels that tell its nodes from self-managed Karpenter's.
const (
	eksAutoComputeType  = "eks.amazonaws.com/compute-type"
	eksAutoLabelGPUName = "eks.amazonaws.com/instance-gpu-name"
)

// awsKarpenterProfile covers EKS Auto Mode (auto, eks.amazonaws.com/
// labels) and self-managed Karpenter (karpenter.k8s.aws/ labels). Both
// derive GPU labels from EC2 instance data, so they share one rule set.
type awsKarpenterProfile struct {
	operatorProfile
	ec2Machines
	al2023DRALabels
	auto bool
}

func (k awsKarpenterProfile) cloud() spec.Cloud {
	if k.auto {
		return spec.CloudEKSAuto
	}
	return spec.CloudKarpenter
}

// labelPrefix is the domain of the instance-gpu-* labels.
func (k awsKarpenterProfile) labelPrefix() string {
	if k.auto {
		return "eks.amazonaws.com/"
	}
	return "karpenter.k8s.aws/"
}

func (awsKarpenterProfile) Offers(a *catalog.Accelerator) bool { return a.AWSGPUName != "" }

// Validate: EKS Auto Mode cannot configure MIG or sharing (see
// checkPoolPartition), so a workload asking for either never schedules.
func (k awsKarpenterProfile) Validate(in GPUIntent, _ bool) gpudiag.Diagnostics {
	if !k.auto {
		return warnSharedClientsWithoutLabel(k.cloud(), in)
	}
	var diags gpudiag.Diagnostics
	if in.Partition != nil {
		summary, detail := eksAutoNoMIG()
		diags.AddError(gpudiag.At("gpu", "partition"), summary, detail)
	}
	if in.Sharing != "" {
		summary, detail := eksAutoNoSharing()
		diags.AddError(gpudiag.At("gpu", "sharing"), summary, detail)
	}
	return diags
}

// eksAutoNoMIG and eksAutoNoSharing explain, for pools and workloads alike,
// why EKS Auto Mode has neither (its GPU page: AWS-managed device plugin,
// no GPU Operator).
func eksAutoNoMIG() (summary, detail string) {
	return "MIG not configurable on EKS Auto Mode",
		"EKS Auto Mode runs an AWS-managed NVIDIA device plugin and no GPU Operator mig-manager, so nothing reads " +
			spec.LabelMIGConfig + ". Allowed: remove partition, or use cloud \"karpenter\" or \"eks\" with the GPU Operator."
}

func eksAutoNoSharing() (summary, detail string) {
	return "GPU sharing not configurable on EKS Auto Mode",
		"EKS Auto Mode runs an AWS-managed NVIDIA device plugin that reads no " + spec.LabelDevicePluginConfig +
			" config, so GPUs cannot be time-sliced or shared through MPS. Allowed: remove sharing, or use cloud " +
			"\"karpenter\" or \"eks\" with the GPU Operator."
}

func (k awsKarpenterProfile) Place(in GPUIntent) Placement {
	// EKS Auto Mode's AWS-managed device plugin neither partitions nor
	// shares GPUs (mechanismCloudManaged): every node is whole.
	p := devicePluginPlacement(in, !k.auto, func(a *catalog.Accelerator) []LabelRequirement {
		term := []LabelRequirement{{Key: k.labelPrefix() + "instance-gpu-name", Values: []string{a.AWSGPUName}}}
		// "a100" is both p4d (40 GB) and p4de (80 GB); "v100" both p3 and
		// p3dn. Per-GPU memory (MiB, from EC2) tells them apart.
		if a.AWSGPUMemoryMiB > 0 {
			term = append(term, LabelRequirement{
				Key:    k.labelPrefix() + "instance-gpu-memory",
				Values: []string{strconv.FormatInt(a.AWSGPUMemoryMiB, 10)},
			})
		}
		return term
	})
	// Neither EKS Auto Mode nor Karpenter taints GPU nodes by itself, but
	// NodePools commonly add nvidia.com/gpu:NoSchedule; tolerating is harmless.
	p.Tolerations = append(p.Tolerations, TolerateGPUTaint())
	if in.Spot {
		p.NodeSelector[karpenterLabelCapacityType] = "spot"
	}
	return p
}

// Mechanism: EKS Auto Mode's AWS-managed device plugin reads no per-node
// config; self-managed Karpenter nodes run the GPU Operator.
func (k awsKarpenterProfile) Mechanism() gpuMechanism {
	if k.auto {
		return mechanismCloudManaged
	}
	return MechanismGPUOperator
}

func (k awsKarpenterProfile) RejectsMIGLayouts() bool { return k.auto }

func (k awsKarpenterProfile) CheckPoolPartition(_ PoolIntent, _ string, diags *gpudiag.Diagnostics) {
	if k.auto {
		summary, detail := eksAutoNoMIG()
		diags.AddError(gpudiag.At("partition"), summary, detail)
	}
}

func (k awsKarpenterProfile) CheckPoolSharing(sharing string, diags *gpudiag.Diagnostics) {
	if sharing != "" && k.auto {
		summary, detail := eksAutoNoSharing()
		diags.AddError(gpudiag.At("sharing"), summary, detail)
	}
}

// ReservedLabelDomains: NodePool template labels in Karpenter's own
// domains are rejected.
func (k awsKarpenterProfile) ReservedLabelDomains() []ReservedDomain {
	const by = "Karpenter reserves for labels it derives from the instance"
	domain := "karpenter.k8s.aws"
	if k.auto {
		domain = "eks.amazonaws.com"
	}
	return []ReservedDomain{{"karpenter.sh", by}, {domain, by}}
}

// poolLabels: Karpenter and EKS Auto Mode label nodes from EC2 instance
// data, which is why the NodePool selects on these keys.
func (k awsKarpenterProfile) poolLabels(pi PoolIntent, _, set map[string]string) {
	prefix := k.labelPrefix()
	if pi.Accel != nil {
		set[prefix+"instance-gpu-name"] = pi.Accel.AWSGPUName
		if pi.Accel.AWSGPUMemoryMiB > 0 {
			set[prefix+"instance-gpu-memory"] = strconv.FormatInt(pi.Accel.AWSGPUMemoryMiB, 10)
		}
	}
	if pi.GPUs > 0 {
		set[prefix+"instance-gpu-count"] = strconv.FormatInt(pi.GPUs, 10)
	}
	set[karpenterLabelCapacityType] = "on-demand"
	if pi.Spot {
		set[karpenterLabelCapacityType] = "spot"
	}
	if pi.Name != "" {
		set[karpenterLabelNodePool] = pi.Name
	}
}

// PoolNameLabel: Karpenter (and EKS Auto Mode) label every node with the
// NodePool that launched it, which the rendered NodePool names after the
// policy.
func (awsKarpenterProfile) PoolNameLabel() string { return karpenterLabelNodePool }

// topologyLevels: the AWS network node layers; the cloud controller manager
// labels every EC2 node, whoever launched it (aws.go).
func (awsKarpenterProfile) topologyLevels() []TopologyLevel { return awsTopologyLevels() }

func (k awsKarpenterProfile) poolIdentity(pi PoolIntent, _, _ map[string]string) map[string]string {
	return poolNameIdentity(k.PoolNameLabel(), pi.Name)
}

// CheckPoolDRA (dra.md §9.4, §9.5). EKS Auto Mode: AWS says its nodes run
// the NVIDIA DRA driver only from Kubernetes 1.36 (before, DRA "is not
// supported" there), and how a NodePool opts in is not documented in the
// sources read. A pool knows no cluster version and could not render the
// opt-in, so it is refused whatever the version.
//
// Karpenter: up to v1.14 it ignores pods whose GPUs come from claims
// (settings.ignoreDRARequests, default true), so it launches no node for
// them; v1.15 provisions for claims behind the alpha settings.enableDRA.
// The pool does not know the Karpenter release, so it warns: refusing
// would lock out v1.15 users, and the warning says what to check before a
// workload sits Pending (a gpu_workload's apply still fails with the
// scheduler's reason instead of waiting forever).
func (k awsKarpenterProfile) CheckPoolDRA(_ spec.PoolPolicy, _ PoolIntent, diags *gpudiag.Diagnostics) {
	if k.auto {
		draNotOnCloud(diags, "EKS Auto Mode does not support DRA before Kubernetes 1.36",
			"AWS documents the NVIDIA DRA driver on EKS Auto Mode only from Kubernetes 1.36 (earlier releases run "+
				"Auto Mode's own device plugin, and AWS says DRA is not supported there), and how an Auto Mode NodePool "+
				"opts into DRA is not documented, so the provider cannot render it; the pool knows no cluster version, "+
				"so it is refused on every version.")
		return
	}
	diags.AddWarning(gpudiag.At("gpu_allocation"), "Karpenter provisions for DRA claims only from v1.15",
		"Karpenter v1.14 and earlier ignore pods whose GPUs come from ResourceClaims (settings.ignoreDRARequests "+
			"defaults to true) and launch no node for them, so this pool's workloads stay Pending unless nodes "+
			"already exist. Karpenter v1.15 provisions for claims behind its alpha Helm setting settings.enableDRA "+
			"(Kubernetes 1.34 or newer). Allowed: Karpenter v1.15 or newer with enableDRA = true, a NodePool with "+
			"static capacity (spec.replicas, StaticCapacity gate), or gpu_allocation = \""+spec.GPUAllocationDevicePlugin+"\".")
}

// Classify: EKS Auto Mode uses eks.amazonaws.com/ instance labels,
// self-managed Karpenter karpenter.k8s.aws/ ones; both profiles recognise
// both, so the node's own labels decide.
func (awsKarpenterProfile) Classify(n *corev1.Node) (NodeClass, bool) {
	l := n.Labels
	if l[karpenterLabelNodePool] == "" {
		return NodeClass{}, false
	}
	k := awsKarpenterProfile{auto: l[eksAutoComputeType] == "auto" || l[eksAutoLabelGPUName] != ""}
	prefix := k.labelPrefix()
	c := NodeClass{Cloud: k.cloud(), Key: string(k.cloud()) + "/" + l[karpenterLabelNodePool], Product: l[prefix+"instance-gpu-name"]}
	c.Accel = acceleratorForAWSGPU(l[prefix+"instance-gpu-name"], l[prefix+"instance-gpu-memory"], l[LabelInstanceType])
	return c, true
}

func (k awsKarpenterProfile) MarksGPUNode(l map[string]string) bool {
	return positive(l[k.labelPrefix()+"instance-gpu-count"])
}

// DriverPreinstalled and managesDevicePlugin: EKS Auto Mode ships its own
// driver and device plugin (docs/design/clouds.md#eks); Karpenter's node images are
// the cluster's choice, so the GPU Operator installs both.
func (k awsKarpenterProfile) DriverPreinstalled() bool  { return k.auto }
func (k awsKarpenterProfile) ManagesDevicePlugin() bool { return k.auto }

func (k awsKarpenterProfile) NodePoolShape(r *spec.PoolRendered, pi PoolIntent, taints []PoolTaint) {
	r.KarpenterNodePool = karpenterNodePool(pi, k.nodeClassRef(), r.NodeLabels, r.CloudSetLabels, taints)
}

// nodeClassRef is a placeholder named "default": networking, AMI and IAM
// belong to the cluster, not to the GPU pool.
func (k awsKarpenterProfile) nodeClassRef() karpenterNodeClassRef {
	if k.auto {
		return karpenterNodeClassRef{Group: "eks.amazonaws.com", Kind: "NodeClass", Name: "default"}
	}
	return karpenterNodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
}

// KarpenterNodePoolManifest mirrors the fields of a karpenter.sh/v1
// NodePool that a GPU pool sets. Karpenter's Go types are not a dependency
// of this module; the JSON names are Karpenter's (pkg/apis/v1/nodepool.go).
type KarpenterNodePoolManifest struct {
	APIVersion string                `json:"apiVersion"`
	Kind       string                `json:"kind"`
	Metadata   karpenterMeta         `json:"metadata"`
	Spec       karpenterNodePoolSpec `json:"spec"`
}

type karpenterMeta struct {
	Name   string            `json:"name,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

type karpenterNodePoolSpec struct {
	Template karpenterTemplate `json:"template"`
}

type karpenterTemplate struct {
	Metadata *karpenterMeta        `json:"metadata,omitempty"` // nil without labels
	Spec     karpenterTemplateSpec `json:"spec"`
}

type karpenterTemplateSpec struct {
	NodeClassRef karpenterNodeClassRef            `json:"nodeClassRef"`
	Requirements []corev1.NodeSelectorRequirement `json:"requirements"`
	Taints       []corev1.Taint                   `json:"taints,omitempty"`
}

type karpenterNodeClassRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

// karpenterNodePool renders the NodePool for self-managed Karpenter
// (EC2NodeClass) or EKS Auto Mode (NodeClass).
//
// Requirements are exactly the pool's cloud-set labels (instance GPU name,
// count and, where AWS uses one GPU name for two models, memory; capacity
// type; the GFD product for "single" MIG), each "In [value]". Karpenter
// only launches a node for a pod whose selectors its requirements and
// template labels satisfy, so deriving both from the labels the placement
// selects on keeps NodePool and workloads in step. A requirement on a key
// Karpenter does not know (nvidia.com/gpu.product) with one value is also
// applied as a node label at launch, until GPU Feature Discovery sets the
// same value.
func karpenterNodePool(pi PoolIntent, ref karpenterNodeClassRef, labels, cloudSet map[string]string, taints []PoolTaint) string {
	np := KarpenterNodePoolManifest{
		APIVersion: "karpenter.sh/v1",
		Kind:       "NodePool",
		Metadata:   karpenterMeta{Name: pi.Name, Labels: map[string]string{spec.LabelManagedBy: spec.ManagedBy}},
		Spec: karpenterNodePoolSpec{Template: karpenterTemplate{
			Spec: karpenterTemplateSpec{
				NodeClassRef: ref,
				Requirements: karpenterRequirements(cloudSet),
				Taints:       TaintList(taints),
			},
		}},
	}
	if len(labels) > 0 {
		np.Spec.Template.Metadata = &karpenterMeta{Labels: maps.Clone(labels)}
	}
	out, err := yaml.Marshal(np)
	if err != nil {
		return "" // unreachable: plain strings and maps always marshal
	}
	return string(out)
}

// karpenterRequirements turns cloud-set labels into NodePool requirements,
// sorted by key. karpenter.sh/nodepool is left out: Karpenter sets it and
// rejects it as a requirement.
func karpenterRequirements(cloudSet map[string]string) []corev1.NodeSelectorRequirement {
	var out []corev1.NodeSelectorRequirement
	for _, key := range slices.Sorted(maps.Keys(cloudSet)) {
		if key == karpenterLabelNodePool {
			continue
		}
		out = append(out, corev1.NodeSelectorRequirement{
			Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{cloudSet[key]},
		})
	}
	return out
}
