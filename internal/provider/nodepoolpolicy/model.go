package nodepoolpolicy

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// nodePoolPolicyModel is gpu_node_pool_policy's Terraform data.
type nodePoolPolicyModel struct {
	// Intent holds what only render reads: accelerator, gpus_per_node,
	// partition, mig_strategy, sharing, replicas, spot, labels, taints,
	// dedicated and the topology block, decoded into spec.PoolPolicy by
	// name. A null or unknown taint (a dynamic block over values known after
	// apply) stays a blank taint in its place, which render skips as
	// unknown, so later indices still match the configuration.
	Intent             tfconv.Attributes
	Name               types.String  `tfsdk:"name"`
	Cloud              types.String  `tfsdk:"cloud"`
	GPUAllocation      types.String  `tfsdk:"gpu_allocation"`
	ApplyDeviceClass   types.Bool    `tfsdk:"apply_device_class"`
	ManageNodes        types.Object  `tfsdk:"manage_nodes"`
	DevicePluginConfig types.Object  `tfsdk:"device_plugin_config"`
	TopologyLevels     types.List    `tfsdk:"topology_levels"`
	ID                 types.String  `tfsdk:"id"`
	Ref                types.Object  `tfsdk:"ref"`
	NodeLabels         types.Map     `tfsdk:"node_labels"`
	CloudSetLabels     types.Map     `tfsdk:"cloud_set_labels"`
	NodeTaints         types.List    `tfsdk:"node_taints"`
	GKE                types.Object  `tfsdk:"gke"`
	AKS                types.Object  `tfsdk:"aks"`
	EKS                types.Object  `tfsdk:"eks"`
	KarpenterNodePool  types.String  `tfsdk:"karpenter_node_pool"`
	NodeSelector       types.Map     `tfsdk:"node_selector"`
	Tolerations        types.List    `tfsdk:"tolerations"`
	Affinity           types.Dynamic `tfsdk:"affinity"`
	K8sV1Affinity      types.Object  `tfsdk:"kubernetes_v1_affinity"`
	ResourceName       types.String  `tfsdk:"resource_name"`
	ResourcesPerNode   types.Map     `tfsdk:"resources_per_node"`
	DevicePluginName   types.String  `tfsdk:"device_plugin_config_name"`
	DevicePluginYAML   types.String  `tfsdk:"device_plugin_config_yaml"`
	MIGConfig          types.String  `tfsdk:"mig_config"`
	DeviceClassName    types.String  `tfsdk:"device_class_name"`
	DeviceClassYAML    types.String  `tfsdk:"device_class_yaml"`
	ManagedNodes       types.List    `tfsdk:"managed_nodes"`
	Drift              types.List    `tfsdk:"drift"`
}

type manageNodesModel struct {
	Selector types.String `tfsdk:"selector"`
}

type configMapRefModel struct {
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
}

var taintAttrTypes = tfconv.StringObjectTypes(taintFields)

// policyFromModelWith converts the configuration or plan. Unknown values become
// zero values and set conv.unknown, as for workloads.
func policyFromModelWith(c *tfconv.Converter, m nodePoolPolicyModel, defaultCloud string) spec.PoolPolicy {
	p := spec.PoolPolicy{Name: c.Str(m.Name), Cloud: c.Str(m.Cloud), GPUAllocation: c.Str(m.GPUAllocation)}
	m.Intent.DecodeInto(c, &p)
	p.Cloud, _ = resourcekit.PickCloud(m.Cloud, "", defaultCloud)
	return p
}

func emptyMapIfNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// setPoolOutputs copies the policy's ref and what render derived from it
// into the computed attributes.
func setPoolOutputs(ctx context.Context, m *nodePoolPolicyModel, policy spec.PoolPolicy, p *spec.PoolRendered) diag.Diagnostics {
	var diags diag.Diagnostics
	outputs := nodePoolOutputAttributes()
	m.ID = types.StringValue(p.ID)
	ref, err := refs.RefFromPool(policy)
	if err != nil {
		diags.AddError("Provider bug: the pool's ref", err.Error())
	}
	m.Ref = ref
	m.NodeLabels = tfconv.NullableMap(emptyMapIfNil(p.NodeLabels))
	m.CloudSetLabels = tfconv.NullableMap(emptyMapIfNil(p.CloudSetLabels))
	m.NodeTaints = taintList(p.NodeTaints, &diags)
	// The cloud shapes are render's structs as they are (tfconv.ObjectFrom);
	// AKS's two GPU profile settings stay null on device-plugin pools, as in
	// states written before them.
	// The network fields stay null without a GPU network, as in states
	// written before them.
	m.GKE = tfconv.ObjectFrom(outputs["gke"], p.GKE, &diags, "additional_node_networks")
	m.AKS = tfconv.ObjectFrom(outputs["aks"], p.AKS, &diags, "gpu_driver", "gpu_management_mode", "infiniband")
	m.EKS = tfconv.ObjectFrom(outputs["eks"], p.EKS, &diags, "efa_interfaces", "placement_group_strategy")
	m.KarpenterNodePool = types.StringValue(p.KarpenterNodePool)
	m.NodeSelector = tfconv.NullableMap(emptyMapIfNil(p.NodeSelector))
	m.Tolerations = tfconv.TolerationList(p.Tolerations, &diags)
	affinity, err := tfconv.DynamicFrom(p.Affinity)
	if err != nil {
		diags.AddError("Cannot encode the pool's affinity", err.Error())
	}
	m.Affinity = affinity
	affinityV1, affinityDiags := tfconv.KubernetesV1AffinityFrom(ctx, p.Affinity)
	diags.Append(affinityDiags...)
	m.K8sV1Affinity = affinityV1
	m.ResourceName = types.StringValue(p.ResourceName)
	counts := make(map[string]attr.Value, len(p.ResourcesPerNode))
	for k, v := range p.ResourcesPerNode {
		counts[k] = types.Int64Value(v)
	}
	m.ResourcesPerNode = types.MapValueMust(types.Int64Type, counts)
	m.DevicePluginName = types.StringValue(p.DevicePluginConfigName)
	m.DevicePluginYAML = types.StringValue(p.DevicePluginConfig)
	m.MIGConfig = types.StringValue(p.MIGConfig)
	m.DeviceClassName = tfconv.NullableString(p.DeviceClassName)
	m.DeviceClassYAML = tfconv.NullableString(p.DeviceClass)
	m.TopologyLevels = topologyLevelsFrom(p.TopologyLevels, &diags)
	return diags
}

// fillK8sV1Affinity derives kubernetes_v1_affinity from the stored
// affinity, which holds the same node affinity in the API's shape. An
// affinity this release cannot read (one a newer release wrote) leaves the
// attribute as it is: the plan computes it from the configuration anyway,
// so failing the refresh would only block the user.
func (m *nodePoolPolicyModel) fillK8sV1Affinity(ctx context.Context) diag.Diagnostics {
	affinity, err := tfconv.AffinityFromDynamic(m.Affinity)
	if err != nil {
		return nil
	}
	filled, diags := tfconv.KubernetesV1AffinityFrom(ctx, affinity)
	if !diags.HasError() {
		m.K8sV1Affinity = filled
	}
	return diags
}

// taintList is Kubernetes taints as a list of key, value and effect
// objects (taintAttrTypes).
func taintList(taints []corev1.Taint, diags *diag.Diagnostics) types.List {
	rows := make([]map[string]string, 0, len(taints))
	for _, t := range taints {
		rows = append(rows, map[string]string{"key": t.Key, "value": t.Value, "effect": string(t.Effect)})
	}
	return tfconv.StringObjectList(taintAttrTypes, rows, diags)
}

// setPoolOutputsUnknown marks every derived attribute unknown, for plans
// whose inputs are not known yet.
func setPoolOutputsUnknown(m *nodePoolPolicyModel) {
	outputs := nodePoolOutputAttributes()
	m.ID = m.Name // the name, or unknown with it
	m.Ref = types.ObjectUnknown(refs.PoolType.AttrTypes)
	m.NodeLabels = types.MapUnknown(types.StringType)
	m.CloudSetLabels = types.MapUnknown(types.StringType)
	m.NodeTaints = types.ListUnknown(types.ObjectType{AttrTypes: taintAttrTypes})
	m.GKE = types.ObjectUnknown(tfconv.AttrTypesOf(outputs["gke"]))
	m.AKS = types.ObjectUnknown(tfconv.AttrTypesOf(outputs["aks"]))
	m.EKS = types.ObjectUnknown(tfconv.AttrTypesOf(outputs["eks"]))
	m.KarpenterNodePool = types.StringUnknown()
	m.NodeSelector = types.MapUnknown(types.StringType)
	m.Tolerations = types.ListUnknown(types.ObjectType{AttrTypes: tfconv.TolerationAttrTypes})
	m.Affinity = types.DynamicUnknown()
	m.K8sV1Affinity = types.ObjectUnknown(tfconv.KubernetesV1AffinityAttrTypes)
	m.ResourceName = types.StringUnknown()
	m.ResourcesPerNode = types.MapUnknown(types.Int64Type)
	m.DevicePluginName = types.StringUnknown()
	m.DevicePluginYAML = types.StringUnknown()
	m.MIGConfig = types.StringUnknown()
	m.DeviceClassName = types.StringUnknown()
	m.DeviceClassYAML = types.StringUnknown()
	m.TopologyLevels = types.ListUnknown(types.ObjectType{AttrTypes: topologyLevelAttrTypes})
}
