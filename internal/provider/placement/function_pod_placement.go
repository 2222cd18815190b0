package placement

import (
	"context"
	_ "embed"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// placementFunctionDescription is provider::gpu::pod_placement's
// description, which opens its docs page.
//
//go:embed function_pod_placement.md
var placementFunctionDescription string

// NewPodPlacementFunction returns provider::gpu::pod_placement: the GPU
// part of a pod the provider does not own.
func NewPodPlacementFunction() function.Function {
	return newPlacementFunction("pod_placement", "GPU placement for a pod in any manifest", placementFunctionDescription,
		[]function.Parameter{cloudParameter(), gpuParameter()},
		func(placed chartkit.ValuesPlacement, _ *podContainer) (map[string]any, error) {
			return placementObject(placed)
		})
}

// newPlacementFunction is a placementFunction returning what build makes,
// described by the Markdown file read into description.
func newPlacementFunction(name, summary, description string, parameters []function.Parameter,
	build func(placed chartkit.ValuesPlacement, container *podContainer) (map[string]any, error)) *placementFunction {
	return &placementFunction{
		name: name,
		definition: function.Definition{
			Summary:             summary,
			MarkdownDescription: tfconv.MarkdownFile(description),
			Parameters:          parameters,
			Return:              function.DynamicReturn{},
		},
		build: build,
	}
}

// placementFunction is a provider function of a cloud and a GPU request
// (and, when its definition has a third parameter, a container) whose
// result is an object built from the request's placement.
type placementFunction struct {
	name       string
	definition function.Definition
	build      func(placed chartkit.ValuesPlacement, container *podContainer) (map[string]any, error)
}

var _ function.Function = &placementFunction{}

// Metadata names the function.
func (f *placementFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = f.name
}

// Definition describes the arguments and the result.
func (f *placementFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = f.definition
}

// Run decodes the arguments (the container first: a wrong container is
// named before any placement finding), places the request and returns
// the object built from the placement.
func (f *placementFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var cloud string
	var gpu, containerArg types.Dynamic
	args := []any{&cloud, &gpu}
	if len(f.definition.Parameters) > argContainer {
		args = append(args, &containerArg)
	}
	if resp.Error = req.Arguments.Get(ctx, args...); resp.Error != nil {
		return
	}
	var container *podContainer
	if len(args) > argContainer {
		decoded, err := containerFromDynamic(containerArg)
		if err != nil {
			resp.Error = function.NewArgumentFuncError(argContainer, "container: "+err.Error())
			return
		}
		container = &decoded
	}
	placed, ferr := runPlacement(cloud, gpu)
	if ferr != nil {
		resp.Error = ferr
		return
	}
	object, err := f.build(placed, container)
	setObjectResult(ctx, resp, object, err)
}

// setObjectResult returns object, as built (err is what building it
// failed with), as the function's dynamic result.
func setObjectResult(ctx context.Context, resp *function.RunResponse, object map[string]any, err error) {
	var result types.Dynamic
	if err == nil {
		result, err = dynamicObject(object)
	}
	if err != nil {
		resp.Error = function.NewFuncError(err.Error())
		return
	}
	resp.Error = resp.Result.Set(ctx, result)
}

// gpuRequestDescription documents the request object of the functions and
// of the gpu_pod_placement data source.
const gpuRequestDescription = "The GPU request: an object with the attributes of `gpu_workload`'s `gpu` block " +
	"(`count`, required, `accelerator`, `accelerators`, `partition`, `mig_strategy`, `sharing`, " +
	"`max_shared_clients`, `requests`, `dra`) plus `spot` (bool), `node_pool` (a `gpu_node_pool_policy` id) and " +
	"`pods` (how many pods the job runs, default 1: with more than one, a pod on a pool whose machines have a GPU " +
	"network gets its share of it, as `gpu_workload`'s pods do), e.g. `{ accelerator = \"l4\", count = 1 }`."

func cloudParameter() function.Parameter {
	return function.StringParameter{
		Name:                "cloud",
		MarkdownDescription: "Cloud of the cluster: one of " + tfconv.MarkdownList(clouds.Names()) + ".",
	}
}

func gpuParameter() function.Parameter {
	return function.DynamicParameter{Name: "gpu", MarkdownDescription: gpuRequestDescription}
}

// Argument positions of the placement functions.
const (
	argCloud     = 0
	argGPU       = 1
	argContainer = 2
)

// runPlacement decodes and places the request, naming the argument a
// finding belongs to: cloud, or the gpu object for everything else.
func runPlacement(cloud string, gpu types.Dynamic) (placed chartkit.ValuesPlacement, ferr *function.FuncError) {
	request, err := gpuRequestFromValue(gpu)
	if err != nil {
		return placed, function.NewArgumentFuncError(argGPU, "gpu: "+err.Error())
	}
	placed, diags := placeRequest(cloud, request)
	if !diags.HasError() {
		return placed, nil
	}
	return placed, function.NewArgumentFuncError(argumentOf(diags), diagnosticsMessage(diags))
}

// argumentOf is the argument the first error concerns.
func argumentOf(diags gpudiag.Diagnostics) int64 {
	errs := diags.Errors()
	if len(errs) > 0 && len(errs[0].Path) > 0 && errs[0].Path[0] == "cloud" {
		return argCloud
	}
	return argGPU
}
