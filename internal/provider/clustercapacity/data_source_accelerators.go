package clustercapacity

import (
	"context"
	_ "embed"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
)

// NewAcceleratorsDataSource returns the gpu_accelerators data source. It
// exposes the accelerator catalog, so modules can validate and choose models
// without hard-coding label strings.
func NewAcceleratorsDataSource() datasource.DataSource {
	return resourcekit.NewDataSource(resourcekit.DataSourceSpec[acceleratorsModel]{
		TypeSuffix: "_accelerators", Schema: acceleratorsSchema, Read: readAccelerators,
	})
}

type acceleratorsModel struct {
	Cloud        types.String  `tfsdk:"cloud"`
	MIG          types.Bool    `tfsdk:"mig"`
	MinMemoryGiB types.Float64 `tfsdk:"min_memory_gib"`
	Names        types.List    `tfsdk:"names"`
	Accelerators types.List    `tfsdk:"accelerators"`
}

// acceleratorsDescription is gpu_accelerators' description, which opens its
// docs page.
//
//go:embed gpu_accelerators.md
var acceleratorsDescription string

// acceleratorsSchema is gpu_accelerators's schema, read into acceleratorsModel.
func acceleratorsSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: tfconv.MarkdownFile(acceleratorsDescription),
		Attributes: map[string]schema.Attribute{
			"cloud": resourcekit.DataCloudAttribute("Only models this cloud offers: one of ", "."),
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
			"names":        resourcekit.ComputedStrings("Catalog ids of the matching models, sorted; the values `gpu_workload.gpu.accelerator` takes."),
			"accelerators": acceleratorsAttribute,
		},
	}
}

// acceleratorsAttribute is the schema of the result and, through
// tfconv.EncodeOutput, its conversion from acceleratorOutput.
var acceleratorsAttribute = resourcekit.ComputedObjects("The matching models.", acceleratorAttributes())

func acceleratorAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"name":             resourcekit.ComputedString("Catalog id, e.g. `a100-40gb`."),
		"display_name":     resourcekit.ComputedString("Marketing name, e.g. `NVIDIA A100 40GB`."),
		"memory_mib":       resourcekit.ComputedInt64("Memory per GPU in MiB."),
		"clouds":           resourcekit.ComputedStrings("Clouds that offer the model."),
		"gke_accelerators": resourcekit.ComputedStrings("`cloud.google.com/gke-accelerator` values."),
		"aws_gpu_name":     resourcekit.ComputedString("EKS Auto Mode / Karpenter `instance-gpu-name` value."),
		"eks_accelerator":  resourcekit.ComputedString("`k8s.amazonaws.com/accelerator` value for EKS managed node groups."),
		"aks_vm_sizes":     resourcekit.ComputedStrings("Azure VM sizes carrying the model."),
		"gfd_products":     resourcekit.ComputedStrings("GPU Feature Discovery `nvidia.com/gpu.product` values."),
		"flyte_device":     resourcekit.ComputedString("flytekit accelerator device name."),
		"mig_profiles": resourcekit.ComputedObjects("MIG profiles, smallest first; empty for models without MIG.",
			map[string]schema.Attribute{
				"name":              resourcekit.ComputedString("Profile, e.g. `2g.10gb`."),
				"instances_per_gpu": resourcekit.ComputedInt64("Instances of this profile on one GPU."),
			}),
	}
}

func readAccelerators(_ context.Context, _ resourcekit.ReadEnv, m *acceleratorsModel, diags *diag.Diagnostics) {
	clouds := offeringClouds()
	var names []string
	var matching []acceleratorOutput
	for _, a := range catalog.Accelerators() {
		if acceleratorMatches(a, *m, clouds[a.Name]) {
			names = append(names, a.Name)
			matching = append(matching, acceleratorOutput{Accelerator: a, Clouds: clouds[a.Name], FlyteDevice: flyte.Device(a.Name)})
		}
	}
	m.Names = tfconv.StringList(names)
	m.Accelerators = tfconv.EncodeOutput[types.List](acceleratorsAttribute, matching, diags)
}

func acceleratorMatches(a catalog.Accelerator, m acceleratorsModel, clouds []string) bool {
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

// acceleratorOutput is one model as gpu_accelerators reports it: the
// catalog's entry, the clouds that offer it and Flyte's name for it.
type acceleratorOutput struct {
	catalog.Accelerator
	Clouds      []string
	FlyteDevice string
}
