package gpuintent

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Model is the `gpu` block as Terraform values.
type Model struct {
	Count            types.Int64  `tfsdk:"count"`
	Requests         types.Int64  `tfsdk:"requests"`
	Accelerator      types.String `tfsdk:"accelerator"`
	Accelerators     types.List   `tfsdk:"accelerators"`
	Partition        types.String `tfsdk:"partition"`
	MIGStrategy      types.String `tfsdk:"mig_strategy"`
	Sharing          types.String `tfsdk:"sharing"`
	MaxSharedClients types.Int64  `tfsdk:"max_shared_clients"`
	DRA              types.Object `tfsdk:"dra"`
}

// DRAModel is the `gpu.dra` block.
type DRAModel struct {
	DeviceClass types.String `tfsdk:"device_class"`
	Selectors   types.List   `tfsdk:"selectors"`
	MinMemory   types.String `tfsdk:"min_memory"`
	Same        types.String `tfsdk:"same"`
}

// FromObject converts a `gpu` block to render's spec.GPU; a null or unknown
// block gives the zero GPU (and marks the conversion unknown when unknown).
func FromObject(c *tfconv.Converter, v types.Object) spec.GPU {
	var g Model
	if !c.Object(v, &g) {
		return spec.GPU{}
	}
	out := spec.GPU{
		Count:            c.Int64(g.Count),
		Requests:         c.OptInt64(g.Requests),
		Accelerator:      c.Str(g.Accelerator),
		Accelerators:     c.Strings(g.Accelerators),
		Partition:        c.Str(g.Partition),
		MIGStrategy:      c.Str(g.MIGStrategy),
		Sharing:          c.Str(g.Sharing),
		MaxSharedClients: c.Int64(g.MaxSharedClients),
	}
	out.DRA = tfconv.FillObject[DRAModel, spec.DRA](c, g.DRA)
	return out
}

// ModelFrom is FromObject's inverse, for import: gpuType is the block's
// type, which the dra object's type is read from.
func ModelFrom(ctx context.Context, g spec.GPU, gpuType tfconv.Typed, diags *diag.Diagnostics) Model {
	out := Model{
		Count:            types.Int64Value(g.Count),
		Requests:         tfconv.NullableInt64(g.Requests),
		Accelerator:      tfconv.NullableString(g.Accelerator),
		Accelerators:     tfconv.NullableStrings(g.Accelerators),
		Partition:        tfconv.NullableString(g.Partition),
		MIGStrategy:      tfconv.NullableString(g.MIGStrategy),
		Sharing:          tfconv.NullableString(g.Sharing),
		MaxSharedClients: types.Int64Null(),
	}
	if g.MaxSharedClients != 0 {
		out.MaxSharedClients = types.Int64Value(g.MaxSharedClients)
	}
	draType := tfconv.NestedAttrType(gpuType, "dra")
	out.DRA = types.ObjectNull(draType)
	if g.DRA != nil {
		var more diag.Diagnostics
		out.DRA, more = types.ObjectValueFrom(ctx, draType, tfconv.ModelOf[DRAModel](g.DRA, diags))
		diags.Append(more...)
	}
	return out
}
