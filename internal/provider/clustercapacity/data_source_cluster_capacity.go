package clustercapacity

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/nodepoolpolicy"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/capacity"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// NewClusterCapacityDataSource returns the gpu_cluster_capacity data source.
func NewClusterCapacityDataSource() datasource.DataSource {
	return resourcekit.New[clusterCapacityDataSource]("_cluster_capacity")
}

// clusterCapacityDataSource reports the live cluster's GPU pools: the same
// grouping gpu_workload uses to explain pods that cannot schedule.
type clusterCapacityDataSource struct{ resourcekit.DataSource }

type clusterCapacityModel struct {
	Selector types.String `tfsdk:"selector"`
	Pools    types.List   `tfsdk:"pools"`
}

var resourceCapacityAttrTypes = map[string]attr.Type{
	"name": types.StringType, "capacity": types.Int64Type, "allocatable": types.Int64Type,
	"requested": types.Int64Type, "free": types.Int64Type,
}

var draDeviceAttrTypes = map[string]attr.Type{
	"product": types.StringType, "type": types.StringType, "profile": types.StringType,
	"published": types.Int64Type, "allocated": types.Int64Type, "free": types.Int64Type,
}

var poolCapacityAttrTypes = map[string]attr.Type{
	"key":              types.StringType,
	"cloud":            types.StringType,
	"accelerator":      types.StringType,
	"product":          types.StringType,
	"nodes":            types.ListType{ElemType: types.StringType},
	"resources":        types.ListType{ElemType: types.ObjectType{AttrTypes: resourceCapacityAttrTypes}},
	"mig_partition":    types.StringType,
	"mig_config":       types.StringType,
	"mig_strategy":     types.StringType,
	"sharing":          types.StringType,
	"shared_clients":   types.Int64Type,
	"taints":           types.ListType{ElemType: types.ObjectType{AttrTypes: nodepoolpolicy.TaintAttrTypes}},
	"dra_driver":       types.StringType,
	"dra_devices":      types.ListType{ElemType: types.ObjectType{AttrTypes: draDeviceAttrTypes}},
	"topology_domains": types.ListType{ElemType: types.ObjectType{AttrTypes: topologyDomainAttrTypes}},
}

var topologyDomainAttrTypes = map[string]attr.Type{
	"level": types.StringType, "node_label": types.StringType, "value": types.StringType,
	"nodes": types.Int64Type, "free_gpus": types.Int64Type,
}

func (d *clusterCapacityDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The live cluster's GPU pools: nodes grouped by their accelerator labels, with GPU capacity, " +
			"allocatable, requested and free per resource, MIG and sharing state, and taints. Nodes whose GPUs NVIDIA's " +
			"DRA driver serves (they publish its ResourceSlices) form pools of their own, with their devices published, " +
			"allocated to claims and free. Read from the cluster whenever Terraform reads data sources.",
		Attributes: map[string]schema.Attribute{
			"selector": schema.StringAttribute{
				MarkdownDescription: "Only nodes matching this label selector, e.g. `cloud.google.com/gke-nodepool=a100`. " +
					"Checked while validating, before the cluster is read.",
				Optional:   true,
				Validators: []validator.String{tfconv.LabelSelector()},
			},
			"pools": schema.ListNestedAttribute{
				MarkdownDescription: "GPU pools, sorted by key. Nodes without NVIDIA resources, GPU labels or DRA devices are left out.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key": str("Stable pool key, e.g. `gke/<node pool>` or `generic/<GFD product>`; a pool of DRA nodes ends in " +
						"`/dra` (`generic/NVIDIA-H100-80GB-HBM3/dra`)."),
					"cloud":       str("Cloud guessed from the node labels (empty when nothing says)."),
					"accelerator": str("Catalog id of the model, empty when not recognised."),
					"product":     str("The label value that identified the model."),
					"nodes":       schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Node names."},
					"resources": schema.ListNestedAttribute{
						Computed:            true,
						MarkdownDescription: "Each NVIDIA extended resource summed over the pool's nodes.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"name":        str("Resource name, e.g. `nvidia.com/gpu`."),
							"capacity":    num("Node capacity."),
							"allocatable": num("Node allocatable."),
							"requested":   num("Requested by pods that have not finished."),
							"free":        num("Allocatable minus requested."),
						}},
					},
					"mig_partition":  str("GKE MIG partition size of the nodes."),
					"mig_config":     str("GPU Operator mig-manager layout (`nvidia.com/mig.config`)."),
					"mig_strategy":   str("`single` or `mixed`."),
					"sharing":        str("`time-slicing` or `mps`."),
					"shared_clients": num("Clients per GPU when shared."),
					"taints":         taintListDataAttribute(),
					"dra_driver": str("The DRA driver whose ResourceSlices the pool's nodes publish (`gpu.nvidia.com`); empty " +
						"for a pool whose GPUs are extended resources (the device plugin's)."),
					"dra_devices": draDevicesAttribute(),
					"topology_domains": schema.ListNestedAttribute{
						Computed: true,
						MarkdownDescription: "The domains of the pool's top network topology level (GKE `block`, AWS `layer-1`, " +
							"generic `clique`: the outermost level of the cloud some node carries), sorted by value: how many " +
							"GPUs one multi-node job kept in one domain can still get there. Empty when no node carries a level.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"level":      str("Level name, e.g. `block`."),
							"node_label": str("The level's node label, e.g. `cloud.google.com/gce-topology-block`."),
							"value":      str("The domain: the label's value."),
							"nodes":      num("Nodes of the pool in the domain."),
							"free_gpus": num("Free units of the pool's GPU resources (whole GPUs, MIG instances or shared " +
								"slots) and DRA devices on the domain's schedulable nodes."),
						}},
					},
				}},
			},
		},
	}
}

func draDevicesAttribute() schema.ListNestedAttribute {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	return schema.ListNestedAttribute{
		Computed: true,
		MarkdownDescription: "The DRA driver's devices on the pool's nodes, one entry per product, device type and MIG " +
			"profile, sorted by them. Published devices are those of each node's ResourceSlices (the newest generation of " +
			"the driver's pool); allocated ones are named in a ResourceClaim's `status.allocation` in any namespace. " +
			"Empty for a pool of extended resources.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"product":   str("The devices' `productName` attribute, e.g. `NVIDIA H100 80GB HBM3` (NVML's name)."),
			"type":      str("The devices' `type` attribute: `gpu` (whole GPUs), `mig` (MIG devices) or `vfio`."),
			"profile":   str("The MIG profile of `mig` devices, e.g. `1g.5gb`; empty for whole GPUs."),
			"published": num("Devices the driver publishes."),
			"allocated": num("Published devices allocated to a ResourceClaim."),
			"free":      num("Published devices no claim holds."),
		}},
	}
}

func taintListDataAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "Distinct taints of the pool's nodes.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"key":    schema.StringAttribute{Computed: true, MarkdownDescription: "Taint key."},
			"value":  schema.StringAttribute{Computed: true, MarkdownDescription: "Taint value."},
			"effect": schema.StringAttribute{Computed: true, MarkdownDescription: "Taint effect."},
		}},
	}
}

func (d *clusterCapacityDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	// The framework's Get: this model holds plain Go values, which the model
	// codec does not.
	var m clusterCapacityModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	client, ok := d.Client(&resp.Diagnostics)
	if !ok {
		return
	}
	pools, _, err := LiveCapacity(ctx, client, m.Selector.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the cluster's GPU capacity", err.Error())
		return
	}
	values := make([]attr.Value, 0, len(pools))
	for _, p := range pools {
		obj, diags := types.ObjectValueFrom(ctx, poolCapacityAttrTypes, poolCapacityValue(p, &resp.Diagnostics))
		resp.Diagnostics.Append(diags...)
		values = append(values, obj)
	}
	list, diags := types.ListValue(types.ObjectType{AttrTypes: poolCapacityAttrTypes}, values)
	resp.Diagnostics.Append(diags...)
	m.Pools = list
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
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
		return client.DRAInputs(gctx, capacity.DRADriver, draInputs.AddSlice, draInputs.AddClaim)
	})
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return capacity.SummarizeDRA(nodes, requested, draInputs), draInputs, nil
}

type resourceCapacityValue struct {
	Name        string `tfsdk:"name"`
	Capacity    int64  `tfsdk:"capacity"`
	Allocatable int64  `tfsdk:"allocatable"`
	Requested   int64  `tfsdk:"requested"`
	Free        int64  `tfsdk:"free"`
}

type poolCapacityStruct struct {
	Key           string                  `tfsdk:"key"`
	Cloud         string                  `tfsdk:"cloud"`
	Accelerator   string                  `tfsdk:"accelerator"`
	Product       string                  `tfsdk:"product"`
	Nodes         []string                `tfsdk:"nodes"`
	Resources     []resourceCapacityValue `tfsdk:"resources"`
	MIGPartition  string                  `tfsdk:"mig_partition"`
	MIGConfig     string                  `tfsdk:"mig_config"`
	MIGStrategy   string                  `tfsdk:"mig_strategy"`
	Sharing       string                  `tfsdk:"sharing"`
	SharedClients int64                   `tfsdk:"shared_clients"`
	Taints        types.List              `tfsdk:"taints"`
	DRADriver     string                  `tfsdk:"dra_driver"`
	DRADevices    []draDeviceValue        `tfsdk:"dra_devices"`
	Domains       []topologyDomainValue   `tfsdk:"topology_domains"`
}

type topologyDomainValue struct {
	Level     string `tfsdk:"level"`
	NodeLabel string `tfsdk:"node_label"`
	Value     string `tfsdk:"value"`
	Nodes     int64  `tfsdk:"nodes"`
	FreeGPUs  int64  `tfsdk:"free_gpus"`
}

type draDeviceValue struct {
	Product   string `tfsdk:"product"`
	Type      string `tfsdk:"type"`
	Profile   string `tfsdk:"profile"`
	Published int64  `tfsdk:"published"`
	Allocated int64  `tfsdk:"allocated"`
	Free      int64  `tfsdk:"free"`
}

func poolCapacityValue(p spec.PoolCapacity, diags *diag.Diagnostics) poolCapacityStruct {
	nodes := make([]string, len(p.Nodes))
	for i, n := range p.Nodes {
		nodes[i] = n.Name
	}
	resources := make([]resourceCapacityValue, len(p.Resources))
	for i, r := range p.Resources {
		resources[i] = resourceCapacityValue{Name: r.Name, Capacity: r.Capacity, Allocatable: r.Allocatable,
			Requested: r.Requested, Free: r.Free()}
	}
	out := poolCapacityStruct{
		Key: p.Key, Cloud: p.Cloud, Accelerator: p.Accelerator, Product: p.Product, Nodes: nodes, Resources: resources,
		MIGPartition: p.MIGPartition, MIGConfig: p.MIGConfig, MIGStrategy: p.MIGStrategy, Sharing: p.Sharing,
		SharedClients: p.SharedClients, Taints: nodepoolpolicy.TaintList(p.Taints, diags), DRADriver: p.DRADriver,
		DRADevices: draDeviceValues(p.DRADevices), Domains: make([]topologyDomainValue, len(p.TopologyDomains)),
	}
	for i, d := range p.TopologyDomains {
		out.Domains[i] = topologyDomainValue(d)
	}
	return out
}

func draDeviceValues(counts []spec.DRADeviceCount) []draDeviceValue {
	out := make([]draDeviceValue, len(counts))
	for i, c := range counts {
		out[i] = draDeviceValue{Product: c.Product, Type: c.Type, Profile: c.Profile, Published: c.Published,
			Allocated: c.Allocated, Free: c.Free()}
	}
	return out
}
