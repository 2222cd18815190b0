package nodepoolpolicy

import (
	"context"
	_ "embed"
	"maps"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// description is gpu_node_pool_policy's description, which opens its docs
// page.
//
//go:embed gpu_node_pool_policy.md
var description string

// Schema describes gpu_node_pool_policy: a GPU pool described once, with
// everything the nodes, the cloud's node-pool resource, the workloads and the
// device plugin need derived from it at plan time.
func (r *poolPolicyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := nodePoolInputAttributes()
	maps.Copy(attrs, nodePoolOutputAttributes())
	resp.Schema = schema.Schema{
		MarkdownDescription: tfconv.MarkdownFile(description),
		Attributes:          attrs,
		Blocks: map[string]schema.Block{
			"manage_nodes": schema.SingleNestedBlock{
				MarkdownDescription: "Label and taint existing nodes matching `selector` with server-side apply, " +
					"declaratively (what `kubectl label` and `kubectl taint` do by hand). Drift on those nodes and " +
					"nodes that appear later show up in the plan (`drift`); destroy removes only what this policy added.",
				Attributes: map[string]schema.Attribute{
					"selector": schema.StringAttribute{
						MarkdownDescription: "Label selector of the nodes, e.g. `cloud.google.com/gke-nodepool=a100`. " +
							"Required in the block; an empty selector (every node) is refused.",
						Optional: true,
						Validators: []validator.String{
							stringvalidator.LengthAtLeast(1),
							tfconv.LabelSelector(),
						},
					},
				},
			},
			"topology":    topologyBlock(),
			"gpu_network": gpuNetworkBlock(),
			"device_plugin_config": schema.SingleNestedBlock{
				MarkdownDescription: "Write this pool's device plugin configuration (`device_plugin_config_yaml`) as the " +
					"`device_plugin_config_name` key of a ConfigMap the NVIDIA device plugin or GPU Operator reads " +
					"(`devicePlugin.config.name`). Several policies can share one ConfigMap: each owns only its key.",
				Attributes: map[string]schema.Attribute{
					"namespace": schema.StringAttribute{
						MarkdownDescription: "Namespace of the ConfigMap, e.g. `gpu-operator`. Required in the block.",
						Optional:            true,
						Validators:          []validator.String{tfconv.DNSLabel("ConfigMap namespace")},
					},
					"name": schema.StringAttribute{
						MarkdownDescription: "Name of the ConfigMap, e.g. `device-plugin-config`. Required in the block.",
						Optional:            true,
						Validators:          []validator.String{tfconv.DNSSubdomain("ConfigMap name")},
					},
				},
			},
		},
		Version: 1,
	}
}

// UpgradeState reads states of version 0, whose id carried the whole
// policy (docs/design/formats.md): the id becomes the name and ref the
// policy.
func (r *poolPolicyResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: resourcekit.RawStateUpgrader(refs.UpgradePoolState)}
}

func nodePoolInputAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"name": schema.StringAttribute{
			MarkdownDescription: "Pool name (a DNS-1123 label), used in derived names such as the device plugin config key.",
			Required:            true,
		},
		"cloud": resourcekit.PlannedCloudAttribute(clouds.PoolNames(), "Cloud of the pool: one of ",
			" (GKE Autopilot has no node pools). Defaults to the provider's `default_cloud`."),
		"accelerator": schema.StringAttribute{
			MarkdownDescription: "Accelerator of the nodes: one of " + tfconv.MarkdownList(catalog.AcceleratorNames()) + ".",
			Required:            true,
			Validators:          []validator.String{stringvalidator.OneOf(catalog.AcceleratorNames()...)},
		},
		"gpus_per_node": schema.Int64Attribute{
			MarkdownDescription: "Physical GPUs per node, 1 to " + strconv.Itoa(spec.MaxGPUsPerPod) +
				"; must be a count some machine type of the cloud has.",
			Required:   true,
			Validators: []validator.Int64{int64validator.Between(1, spec.MaxGPUsPerPod)},
		},
		"partition": schema.StringAttribute{
			MarkdownDescription: "MIG partitioning of every GPU: a profile such as `2g.10gb`, a mig-manager layout such as " +
				"`all-1g.5gb`, or `" + spec.PartitionAllBalanced + "` (needs `mig_strategy = \"mixed\"`).",
			Optional: true,
		},
		"mig_strategy": tfconv.OneOf(spec.MIGStrategyNames(), "MIG strategy of the device plugin: one of ",
			". Defaults to `single`."),
		"sharing": tfconv.OneOf(spec.SharingNames(), "GPU sharing on the nodes: one of ", ". Requires `replicas`."),
		"replicas": schema.Int64Attribute{
			MarkdownDescription: "Time-slicing replicas or MPS clients per GPU: at least " + strconv.Itoa(minSharedReplicas) +
				", at most " + strconv.Itoa(clouds.MaxMPSClients) + " with MPS or on GKE. Required with `sharing`.",
			Optional:   true,
			Validators: []validator.Int64{int64validator.AtLeast(minSharedReplicas)},
		},
		"spot": schema.BoolAttribute{
			MarkdownDescription: "Spot / preemptible capacity.",
			Optional:            true,
		},
		"labels": schema.MapAttribute{
			MarkdownDescription: "Extra node labels; workloads on the pool select them.",
			Optional:            true,
			ElementType:         types.StringType,
		},
		"taints": schema.ListNestedAttribute{
			MarkdownDescription: "Extra node taints; workloads on the pool tolerate them.",
			Optional:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"key":   schema.StringAttribute{Required: true, MarkdownDescription: "Taint key."},
				"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Taint value."},
				// No schema validator: Terraform cannot show the line of a
				// diagnostic inside a nested attribute's object, so render
				// checks the effect and reports it on the list element.
				"effect": schema.StringAttribute{
					Required:            true,
					MarkdownDescription: "One of " + tfconv.MarkdownList(spec.TaintEffectNames()) + ".",
				},
			}},
		},
		"gpu_allocation": gpuAllocationAttribute(),
		"machine_type":   machineTypeAttribute(),
		"apply_device_class": schema.BoolAttribute{
			MarkdownDescription: "With `gpu_allocation = \"dra\"`: apply the pool's DeviceClass (`device_class_yaml`) to the " +
				"cluster at apply and delete it at destroy (default), since a claim on a missing class is never allocated. " +
				"`false` only renders it, for GitOps: commit `device_class_yaml` beside the workloads' `manifests`; the " +
				"pool then needs no cluster.",
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(true),
		},
		"dedicated": schema.BoolAttribute{
			MarkdownDescription: "Taint the pool with the cloud's GPU taint so only GPU workloads land there. Defaults to `true`.",
			Optional:            true,
			Computed:            true,
			Default:             booldefault.StaticBool(true),
		},
	}
}

func nodePoolOutputAttributes() map[string]schema.Attribute {
	str := func(d string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d}
	}
	strMap := func(d string) schema.MapAttribute {
		return schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: d}
	}
	return map[string]schema.Attribute{
		"id": str("The pool's `name`."),
		"ref": schema.ObjectAttribute{Computed: true, AttributeTypes: refs.PoolType.AttrTypes,
			MarkdownDescription: "The pool's settings as one object, with defaults left out, for `node_pool` of " +
				"`gpu_workload`, `gpu_queue`, `gpu_operator_values` and `gpu_pod_placement`: they check a workload " +
				"against the pool while planning, with no cluster and no state."},
		"node_labels":      strMap("Labels someone must add to the nodes (not set by the cloud or the GPU Operator)."),
		"cloud_set_labels": strMap("Labels the cloud or the GPU Operator sets on such nodes; workloads select some of them."),
		"node_taints":      taintListAttribute("Taints the nodes carry."),
		"gke":              gkeShapeAttribute(),
		"aks":              aksShapeAttribute(),
		"eks":              eksShapeAttribute(),
		"karpenter_node_pool": str("A complete Karpenter `NodePool` manifest (YAML) for `karpenter` and `eks-auto` pools; " +
			"empty for other clouds."),
		"node_selector": strMap("Node selector of workloads for this pool."),
		"tolerations":   tfconv.TolerationsAttribute("Tolerations of workloads for this pool."),
		"affinity": schema.DynamicAttribute{Computed: true, MarkdownDescription: "Node affinity of workloads for this pool " +
			"(a Kubernetes `Affinity` object), or null."},
		"kubernetes_v1_affinity": schema.ObjectAttribute{Computed: true, AttributeTypes: tfconv.KubernetesV1AffinityAttrTypes,
			MarkdownDescription: tfconv.KubernetesV1AffinityDescription("affinity", "`node_selector` and `tolerations`")},
		"resource_name": str("Extended resource workloads request, e.g. `nvidia.com/gpu`, `nvidia.com/mig-1g.5gb`, " +
			"`nvidia.com/gpu.shared`; empty for `all-balanced`, which offers several (`resources_per_node`)."),
		"resources_per_node": schema.MapAttribute{Computed: true, ElementType: types.Int64Type,
			MarkdownDescription: "Each extended resource a node advertises, with its count."},
		"device_plugin_config_name": str("Key of this pool's entry in the device plugin ConfigMap (selected per node by the " +
			"`nvidia.com/device-plugin.config` label); empty when the pool needs none."),
		"device_plugin_config_yaml": str("The NVIDIA device plugin configuration file for this pool (time-slicing, MPS, MIG strategy)."),
		"mig_config":                str("mig-manager layout the nodes need (`nvidia.com/mig.config`), empty if none."),
		"device_class_name": str("With `gpu_allocation = \"dra\"`: the pool's DeviceClass, `<name>.gpu.gpuform.io`, which the " +
			"claims of workloads on the pool name (no CEL selector, so Kueue's `deviceClassMappings` can count them). " +
			"Null for device-plugin pools."),
		"device_class_yaml": str("With `gpu_allocation = \"dra\"`: the pool's `resource.k8s.io/v1` DeviceClass (YAML), selecting " +
			"NVIDIA's DRA driver's devices of the pool's type, product and MIG profile. The resource applies it to the " +
			"cluster (server-side apply) and deletes it on destroy. Null for device-plugin pools."),
		"topology_levels": topologyLevelsAttribute(),
		"managed_nodes": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "With `manage_nodes`: the nodes this policy labelled and tainted at the last apply."},
		"drift": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "What a refresh found different from the policy on the cluster (a removed label or " +
				"taint, a new node matching the selector, an edited ConfigMap entry). Always planned empty: a " +
				"non-empty value means the next apply repairs it."},
	}
}

// taintFields are a taint's attributes, described.
var taintFields = map[string]string{"key": "Taint key.", "value": "Taint value.", "effect": "Taint effect."}

func taintListAttribute(description string) schema.ListNestedAttribute {
	return tfconv.ComputedStringObjects(description, taintFields)
}

func gkeShapeAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "For `gke`: the GPU part of a `google_container_node_pool` (`node_config`), null otherwise. " +
			"Taint effects are in the API's enum form (`NO_SCHEDULE`); GKE's own `nvidia.com/gpu` taint is left out " +
			"because GKE adds it and rejects a duplicate.",
		Attributes: map[string]schema.Attribute{
			"machine_type": schema.StringAttribute{Computed: true, MarkdownDescription: "Suggested machine type (empty for N1 GPUs)."},
			"spot":         schema.BoolAttribute{Computed: true, MarkdownDescription: "`node_config.spot`."},
			"labels":       schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "`node_config.labels`."},
			"taints":       taintListAttribute("`node_config.taint` blocks."),
			"guest_accelerator": schema.SingleNestedAttribute{
				Computed:            true,
				MarkdownDescription: "`node_config.guest_accelerator`.",
				Attributes: map[string]schema.Attribute{
					"type":                       schema.StringAttribute{Computed: true, MarkdownDescription: "Accelerator type."},
					"count":                      schema.Int64Attribute{Computed: true, MarkdownDescription: "GPUs per node."},
					"gpu_partition_size":         schema.StringAttribute{Computed: true, MarkdownDescription: "MIG partition size."},
					"gpu_sharing_strategy":       schema.StringAttribute{Computed: true, MarkdownDescription: "`TIME_SHARING` or `MPS`."},
					"max_shared_clients_per_gpu": schema.Int64Attribute{Computed: true, MarkdownDescription: "Clients per GPU."},
					"gpu_driver_version":         schema.StringAttribute{Computed: true, MarkdownDescription: "`gpu_driver_installation_config.gpu_driver_version`."},
				},
			},
			"additional_node_networks": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The GPU NICs' VPC networks, in the order the pods' interfaces use them " +
					"(`network_config.additional_node_network_configs`, and a GKE `Network` of each name): `vpc1`..`vpc8` " +
					"on A3 Mega, `gvnic-1` then `rdma-0`..`rdma-7` on A3 Ultra and A4. Null without a GPU network."},
		},
	}
}

func aksShapeAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed:            true,
		MarkdownDescription: "For `aks`: the GPU part of an `azurerm_kubernetes_cluster_node_pool`, null otherwise.",
		Attributes: map[string]schema.Attribute{
			"vm_size":     schema.StringAttribute{Computed: true, MarkdownDescription: "Suggested VM size."},
			"priority":    schema.StringAttribute{Computed: true, MarkdownDescription: "`Spot` or `Regular`."},
			"node_labels": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "`node_labels`."},
			"node_taints": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "`node_taints` as `key=value:Effect` strings."},
			"gpu_driver": schema.StringAttribute{Computed: true, MarkdownDescription: "`gpu_driver` (the API's " +
				"`gpuProfile.driver`): `None` on DRA pools, whose driver the GPU Operator installs; null leaves AKS's default."},
			"gpu_management_mode": schema.StringAttribute{Computed: true, MarkdownDescription: "The API's " +
				"`gpuProfile.nvidia.managementMode` (preview): `Unmanaged` on DRA pools, so AKS installs no device plugin; null otherwise."},
			"infiniband": schema.BoolAttribute{Computed: true, MarkdownDescription: "`true` when the VM size's InfiniBand NICs " +
				"carry the pool's GPU network: register the `AKSInfinibandSupport` feature and keep a job in one agent pool " +
				"(one scale set shares a fabric). Null otherwise."},
		},
	}
}

func eksShapeAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed:            true,
		MarkdownDescription: "For `eks`: the GPU part of an `aws_eks_node_group`, null otherwise.",
		Attributes: map[string]schema.Attribute{
			"instance_types": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "`instance_types`."},
			"capacity_type":  schema.StringAttribute{Computed: true, MarkdownDescription: "`ON_DEMAND` or `SPOT`."},
			"ami_type":       schema.StringAttribute{Computed: true, MarkdownDescription: "Accelerated AMI type."},
			"labels":         schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "`labels`."},
			"taints":         taintListAttribute("`taint` blocks (`NO_SCHEDULE` form)."),
			"efa_interfaces": schema.Int64Attribute{Computed: true, MarkdownDescription: "EFA interfaces for the launch " +
				"template's `network_interfaces` (`interface_type = \"efa\"` on card 0, `efa-only` on the others), one per " +
				"EFA device of the instance type; null without a GPU network."},
			"placement_group_strategy": schema.StringAttribute{Computed: true, MarkdownDescription: "`cluster` with a GPU " +
				"network: the launch template's placement group, so EFA traffic stays close. Null otherwise."},
		},
	}
}

// gpuAllocationAttribute is gpu_allocation. Optional without a default:
// null is the device plugin, so states written before the attribute plan
// no change.
func gpuAllocationAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "How the nodes hand out GPUs: one of " + tfconv.MarkdownList(spec.GPUAllocationNames()) +
			". Defaults to `" + spec.GPUAllocationDevicePlugin + "` (extended resources such as `nvidia.com/gpu`). With `" +
			spec.GPUAllocationDRA + "`, NVIDIA's DRA driver publishes the GPUs and workloads on the pool ask for them through " +
			"a ResourceClaim on the pool's DeviceClass (`device_class_name`); the node-pool shapes turn every device plugin " +
			"off (GKE: driver installation disabled and GKE's device plugin off; AKS: `gpu_driver = \"None\"`, unmanaged; " +
			"every cloud: `nvidia.com/gpu.deploy.device-plugin=false` for the GPU Operator). One node, one way: device " +
			"plugin settings (`mig_strategy`, `sharing`, `replicas`, `device_plugin_config`) are refused on a DRA pool, " +
			"as are GKE partitions and sharing and EKS Auto Mode; Karpenter is warned (claims need v1.15's `enableDRA`).",
		Optional:   true,
		Validators: []validator.String{stringvalidator.OneOf(spec.GPUAllocationNames()...)},
	}
}
