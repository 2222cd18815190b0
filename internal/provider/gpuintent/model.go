package gpuintent

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// GPUFromObject converts a `gpu` block to render's spec.GPU, attribute by
// attribute into the field of the same name (tfconv.Decode); a null or
// unknown block gives the zero GPU (and marks the conversion unknown when
// unknown).
func GPUFromObject(c *tfconv.Converter, v types.Object) spec.GPU {
	if g := tfconv.Decode[spec.GPU](c, v); g != nil {
		return *g
	}
	return spec.GPU{}
}

// ObjectFromGPU is GPUFromObject's inverse, for import: gpuType is the block's
// schema.
func ObjectFromGPU(g spec.GPU, gpuType tfconv.Typed, diags *diag.Diagnostics) types.Object {
	return tfconv.Encode(gpuType, &g, diags)
}
