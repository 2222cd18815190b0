package clustercapacity

import (
	"context"
	_ "embed"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/capacity"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// NewClusterCapacityDataSource returns the gpu_cluster_capacity data source.
// It reports the live cluster's GPU pools: the same grouping gpu_workload uses
// to explain pods that cannot schedule.
func NewClusterCapacityDataSource() datasource.DataSource {
	return resourcekit.NewDataSource(resourcekit.DataSourceSpec[clusterCapacityModel]{
		TypeSuffix: "_cluster_capacity", Schema: clusterCapacitySchema, NeedsCluster: true, Read: readClusterCapacity,
	})
}

type clusterCapacityModel struct {
	Selector types.String `tfsdk:"selector"`
	Pools    types.List   `tfsdk:"pools"`
}

// clusterCapacityDescription is gpu_cluster_capacity's description, which
// opens its docs page.
//
//go:embed gpu_cluster_capacity.md
var clusterCapacityDescription string

// clusterCapacitySchema is gpu_cluster_capacity's schema, read into clusterCapacityModel.
func clusterCapacitySchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: tfconv.MarkdownFile(clusterCapacityDescription),
		Attributes: map[string]schema.Attribute{
			"selector": schema.StringAttribute{
				MarkdownDescription: "Only nodes matching this label selector, e.g. `cloud.google.com/gke-nodepool=a100`. " +
					"Checked while validating, before the cluster is read.",
				Optional:   true,
				Validators: []validator.String{tfconv.LabelSelector()},
			},
			"pools": poolsAttribute(),
		},
	}
}

// poolsAttribute is the schema of the result and, through
// tfconv.EncodeOutput, its conversion from poolOutput.
func poolsAttribute() schema.ListNestedAttribute {
	return resourcekit.ComputedObjects("GPU pools, sorted by key. Nodes without NVIDIA resources, GPU labels or DRA devices are left out.",
		map[string]schema.Attribute{
			"key": resourcekit.ComputedString("Stable pool key, e.g. `gke/<node pool>` or `generic/<GFD product>`; a pool of DRA nodes ends in " +
				"`/dra` (`generic/NVIDIA-H100-80GB-HBM3/dra`)."),
			"cloud":       resourcekit.ComputedString("Cloud guessed from the node labels (empty when nothing says)."),
			"accelerator": resourcekit.ComputedString("Catalog id of the model, empty when not recognised."),
			"product":     resourcekit.ComputedString("The label value that identified the model."),
			"nodes":       resourcekit.ComputedStrings("Node names."),
			"resources": resourcekit.ComputedObjects("Each NVIDIA extended resource summed over the pool's nodes.",
				map[string]schema.Attribute{
					"name":        resourcekit.ComputedString("Resource name, e.g. `nvidia.com/gpu`."),
					"capacity":    resourcekit.ComputedInt64("Node capacity."),
					"allocatable": resourcekit.ComputedInt64("Node allocatable."),
					"requested":   resourcekit.ComputedInt64("Requested by pods that have not finished."),
					"free":        resourcekit.ComputedInt64("Allocatable minus requested."),
				}),
			"mig_partition":  resourcekit.ComputedString("GKE MIG partition size of the nodes."),
			"mig_config":     resourcekit.ComputedString("GPU Operator mig-manager layout (`nvidia.com/mig.config`)."),
			"mig_strategy":   resourcekit.ComputedString("`single` or `mixed`."),
			"sharing":        resourcekit.ComputedString("`time-slicing` or `mps`."),
			"shared_clients": resourcekit.ComputedInt64("Clients per GPU when shared."),
			"taints":         taintListDataAttribute(),
			"dra_driver": resourcekit.ComputedString("The DRA driver whose ResourceSlices the pool's nodes publish (`gpu.nvidia.com`); empty " +
				"for a pool whose GPUs are extended resources (the device plugin's)."),
			"dra_devices": draDevicesAttribute(),
			"topology_domains": resourcekit.ComputedObjects("The domains of the pool's top network topology level (GKE `block`, AWS `layer-1`, "+
				"generic `clique`: the outermost level of the cloud some node carries), sorted by value: how many "+
				"GPUs one multi-node job kept in one domain can still get there. Empty when no node carries a level.",
				map[string]schema.Attribute{
					"level":      resourcekit.ComputedString("Level name, e.g. `block`."),
					"node_label": resourcekit.ComputedString("The level's node label, e.g. `cloud.google.com/gce-topology-block`."),
					"value":      resourcekit.ComputedString("The domain: the label's value."),
					"nodes":      resourcekit.ComputedInt64("Nodes of the pool in the domain."),
					"free_gpus": resourcekit.ComputedInt64("Free units of the pool's GPU resources (whole GPUs, MIG instances or shared " +
						"slots) and DRA devices on the domain's schedulable nodes."),
				}),
		})
}

func draDevicesAttribute() schema.ListNestedAttribute {
	return resourcekit.ComputedObjects("The DRA driver's devices on the pool's nodes, one entry per product, device type and MIG "+
		"profile, sorted by them. Published devices are those of each node's ResourceSlices (the newest generation of "+
		"the driver's pool); allocated ones are named in a ResourceClaim's `status.allocation` in any namespace. "+
		"Empty for a pool of extended resources.",
		map[string]schema.Attribute{
			"product":   resourcekit.ComputedString("The devices' `productName` attribute, e.g. `NVIDIA H100 80GB HBM3` (NVML's name)."),
			"type":      resourcekit.ComputedString("The devices' `type` attribute: `gpu` (whole GPUs), `mig` (MIG devices) or `vfio`."),
			"profile":   resourcekit.ComputedString("The MIG profile of `mig` devices, e.g. `1g.5gb`; empty for whole GPUs."),
			"published": resourcekit.ComputedInt64("Devices the driver publishes."),
			"allocated": resourcekit.ComputedInt64("Published devices allocated to a ResourceClaim."),
			"tainted": resourcekit.ComputedInt64("Published devices no claim holds that carry a `NoSchedule` or `NoExecute` " +
				"device taint in their ResourceSlice (Kubernetes 1.36+, `DRADeviceTaints`; e.g. the driver's health checks " +
				"taint a failing GPU) or from a DeviceTaintRule that selects them (Kubernetes 1.37+): claims without a " +
				"matching toleration, such as the provider's, do not get them."),
			"partitionable": resourcekit.ComputedInt64("Published devices no claim holds (and no taint blocks) that consume " +
				"shared counters (partitionable devices, the DRA driver's dynamic MIG): whether one is free depends on its " +
				"siblings, which the provider does not model, so none is counted as free."),
			"free": resourcekit.ComputedInt64("Published devices a claim could get now: not allocated, not tainted, not " +
				"partitionable."),
		})
}

func taintListDataAttribute() schema.ListNestedAttribute {
	return resourcekit.ComputedObjects("Distinct taints of the pool's nodes.",
		map[string]schema.Attribute{
			"key":    resourcekit.ComputedString("Taint key."),
			"value":  resourcekit.ComputedString("Taint value."),
			"effect": resourcekit.ComputedString("Taint effect."),
		})
}

func readClusterCapacity(ctx context.Context, env resourcekit.ReadEnv, m *clusterCapacityModel, diags *diag.Diagnostics) {
	pools, _, err := LiveCapacity(ctx, env.Client, m.Selector.ValueString())
	if err != nil {
		diags.AddError("Cannot read the cluster's GPU capacity", err.Error())
		return
	}
	outputs := make([]poolOutput, len(pools))
	for i, p := range pools {
		outputs[i] = poolOutput{PoolCapacity: p, Nodes: nodeNames(p.Nodes)}
	}
	m.Pools = tfconv.EncodeOutput[types.List](poolsAttribute(), outputs, diags)
}

// LiveCapacity reads nodes and adds up the requests of the pods that still
// hold resources, reads the DRA driver's devices and the claims holding
// them, and groups the nodes into pools. The DRA inputs are returned too:
// explaining a pending claim evaluates its selectors on the devices.
func LiveCapacity(ctx context.Context, client *kube.Client, selector string) ([]spec.PoolCapacity, *capacity.DRAInputs, error) {
	requested := capacity.Requests{}
	draInputs := capacity.NewDRAInputs()
	var nodes []corev1.Node
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var err error
		nodes, err = client.CapacityInputs(gctx, selector, requested.Add)
		return err
	})
	g.Go(func() error {
		return client.DRAInputs(gctx, capacity.DRADriver,
			kube.DRAReaders{Slice: draInputs.AddSlice, Claim: draInputs.AddClaim, TaintRule: draInputs.AddTaintRule})
	})
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return capacity.SummarizeDRA(nodes, requested, draInputs), draInputs, nil
}

// poolOutput is a pool as gpu_cluster_capacity reports it: render's
// summary, with its nodes by name.
type poolOutput struct {
	spec.PoolCapacity
	Nodes []string
}

func nodeNames(nodes []spec.NodeCapacity) []string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	return names
}
