package clustercapacity

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
)

// NewAcceleratorsDataSource returns the gpu_accelerators data source.
func NewAcceleratorsDataSource() datasource.DataSource {
	return &acceleratorsDataSource{}
}

// acceleratorsDataSource exposes the accelerator catalog, so modules can
// validate and choose models without hard-coding label strings.
type acceleratorsDataSource struct{}

type AcceleratorsModel struct {
	Cloud        types.String  `tfsdk:"cloud"`
	MIG          types.Bool    `tfsdk:"mig"`
	MinMemoryGiB types.Float64 `tfsdk:"min_memory_gib"`
	Names        types.List    `tfsdk:"names"`
	Accelerators types.List    `tfsdk:"accelerators"`
}

var migProfileAttrTypes = map[string]attr.Type{"name": types.StringType, "instances_per_gpu": types.Int64Type}

var acceleratorAttrTypes = map[string]attr.Type{
	"name":             types.StringType,
	"display_name":     types.StringType,
	"memory_mib":       types.Int64Type,
	"clouds":           types.ListType{ElemType: types.StringType},
	"gke_accelerators": types.ListType{ElemType: types.StringType},
	"aws_gpu_name":     types.StringType,
	"eks_accelerator":  types.StringType,
	"aks_vm_sizes":     types.ListType{ElemType: types.StringType},
	"gfd_products":     types.ListType{ElemType: types.StringType},
	"flyte_device":     types.StringType,
	"mig_profiles":     types.ListType{ElemType: types.ObjectType{AttrTypes: migProfileAttrTypes}},
}

func (d *acceleratorsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_accelerators"
}

func (d *acceleratorsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The accelerator catalog the provider validates against: every model's memory, MIG " +
			"profiles and the label values each cloud uses for it. Needs no cluster.",
		Attributes: map[string]schema.Attribute{
			"cloud": schema.StringAttribute{
				MarkdownDescription: "Only models this cloud offers: one of " + tfconv.MarkdownList(clouds.Names()) + ".",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(clouds.Names()...)},
			},
			"mig": schema.BoolAttribute{
				MarkdownDescription: "With `true`, only models with Multi-Instance GPU; with `false`, only models without.",
				Optional:            true,
			},
			// A number, not an integer: minimums are often computed (model
			// weights x 1.2), and the framework answers a fraction given to
			// an integer attribute with "always an error in the provider".
			"min_memory_gib": schema.Float64Attribute{
				MarkdownDescription: "Only models with at least this much memory per GPU (GiB). Fractions are allowed, e.g. `local.weights_gib * 1.2`.",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.AtLeast(0)},
			},
			"names": schema.ListAttribute{
				MarkdownDescription: "Catalog ids of the matching models, sorted; the values `gpu_workload.gpu.accelerator` takes.",
				Computed:            true,
				ElementType:         types.StringType,
			},
			"accelerators": schema.ListNestedAttribute{
				MarkdownDescription: "The matching models.",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: acceleratorAttributes()},
			},
		},
	}
}

func acceleratorAttributes() map[string]schema.Attribute {
	str := func(d string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d}
	}
	list := func(d string) schema.ListAttribute {
		return schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: d}
	}
	return map[string]schema.Attribute{
		"name":             str("Catalog id, e.g. `a100-40gb`."),
		"display_name":     str("Marketing name, e.g. `NVIDIA A100 40GB`."),
		"memory_mib":       schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory per GPU in MiB."},
		"clouds":           list("Clouds that offer the model."),
		"gke_accelerators": list("`cloud.google.com/gke-accelerator` values."),
		"aws_gpu_name":     str("EKS Auto Mode / Karpenter `instance-gpu-name` value."),
		"eks_accelerator":  str("`k8s.amazonaws.com/accelerator` value for EKS managed node groups."),
		"aks_vm_sizes":     list("Azure VM sizes carrying the model."),
		"gfd_products":     list("GPU Feature Discovery `nvidia.com/gpu.product` values."),
		"flyte_device":     str("flytekit accelerator device name."),
		"mig_profiles": schema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: "MIG profiles, smallest first; empty for models without MIG.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name":              str("Profile, e.g. `2g.10gb`."),
				"instances_per_gpu": schema.Int64Attribute{Computed: true, MarkdownDescription: "Instances of this profile on one GPU."},
			}},
		},
	}
}

func (d *acceleratorsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m AcceleratorsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	clouds := offeringClouds()
	var names []string
	var items []attr.Value
	for _, a := range catalog.Accelerators() {
		if !AcceleratorMatches(a, m, clouds[a.Name]) {
			continue
		}
		obj, diags := types.ObjectValueFrom(ctx, acceleratorAttrTypes, acceleratorValue(a, clouds[a.Name]))
		resp.Diagnostics.Append(diags...)
		names = append(names, a.Name)
		items = append(items, obj)
	}
	m.Names = tfconv.StringList(names)
	list, diags := types.ListValue(types.ObjectType{AttrTypes: acceleratorAttrTypes}, items)
	resp.Diagnostics.Append(diags...)
	m.Accelerators = list
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func AcceleratorMatches(a catalog.Accelerator, m AcceleratorsModel, clouds []string) bool {
	if c := m.Cloud.ValueString(); c != "" && !slices.Contains(clouds, c) {
		return false
	}
	if !m.MIG.IsNull() && m.MIG.ValueBool() != a.OffersMIG() {
		return false
	}
	// In floating point: an int64 min*1024 overflowed for huge minimums and
	// then matched every model; a float product only grows to +Inf.
	return m.MinMemoryGiB.IsNull() || float64(a.MemoryMiB) >= m.MinMemoryGiB.ValueFloat64()*1024
}

// offeringClouds inverts clouds.Accelerators: model → clouds.
func offeringClouds() map[string][]string {
	out := map[string][]string{}
	for _, c := range clouds.All() {
		for _, name := range c.Accelerators() {
			out[name] = append(out[name], string(c.Name()))
		}
	}
	return out
}

type migProfileValue struct {
	Name            string `tfsdk:"name"`
	InstancesPerGPU int64  `tfsdk:"instances_per_gpu"`
}

type acceleratorStruct struct {
	Name            string            `tfsdk:"name"`
	DisplayName     string            `tfsdk:"display_name"`
	MemoryMiB       int64             `tfsdk:"memory_mib"`
	Clouds          []string          `tfsdk:"clouds"`
	GKEAccelerators []string          `tfsdk:"gke_accelerators"`
	AWSGPUName      string            `tfsdk:"aws_gpu_name"`
	EKSAccelerator  string            `tfsdk:"eks_accelerator"`
	AKSVMSizes      []string          `tfsdk:"aks_vm_sizes"`
	GFDProducts     []string          `tfsdk:"gfd_products"`
	FlyteDevice     string            `tfsdk:"flyte_device"`
	MIGProfiles     []migProfileValue `tfsdk:"mig_profiles"`
}

func acceleratorValue(a catalog.Accelerator, clouds []string) acceleratorStruct {
	profiles := make([]migProfileValue, len(a.MIGProfiles))
	for i, p := range a.MIGProfiles {
		profiles[i] = migProfileValue{Name: p.Name, InstancesPerGPU: int64(p.InstancesPerGPU)}
	}
	return acceleratorStruct{
		Name: a.Name, DisplayName: a.DisplayName, MemoryMiB: a.MemoryMiB, Clouds: tfconv.EmptyIfNil(clouds),
		GKEAccelerators: tfconv.EmptyIfNil(a.GKEAccelerators), AWSGPUName: a.AWSGPUName, EKSAccelerator: a.EKSAccelerator,
		AKSVMSizes: tfconv.EmptyIfNil(a.AKSVMSizes), GFDProducts: tfconv.EmptyIfNil(a.GFDProducts), FlyteDevice: flyte.Device(a.Name),
		MIGProfiles: profiles,
	}
}
