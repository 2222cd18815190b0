package numaflow

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Values is the GPU part of a Numaflow UDF (docs/design/numaflow.md): the
// vertex fields of a Pipeline vertex, or the spec fields of a MonoVertex,
// that place its pods on GPUs. With Manifest it is a whole minimal object
// instead (generator source → GPU UDF → log sink).
type Values struct {
	Kind string // kind: KindNames(), default "pipeline"
	// Name names the Pipeline or MonoVertex (manifest) and the DRA claim
	// template; required with manifest or DRA.
	Name      string // name
	Namespace string // namespace: manifest only; empty leaves it to kubectl/the provider
	// VertexName names the UDF vertex of a pipeline; default "infer".
	VertexName string // vertex_name
	// Image is the UDF container image; required with manifest.
	Image    string            // image
	GPU      spec.GPU          // gpu
	NodePool *spec.PoolPolicy  // node_pool: place on this gpu_node_pool_policy
	Spot     bool              // spot
	Size     string            // size
	CPU      string            // cpu
	Memory   string            // memory
	Env      map[string]string // env
	// Annotations go on the vertex pods (metadata.annotations).
	Annotations map[string]string // annotations
	Manifest    bool              // manifest
}

// Numaflow kinds and defaults.
const (
	KindPipeline   = "pipeline"
	KindMonoVertex = "monovertex"
	// APIVersion is numaflow.numaproj.io's only served version.
	APIVersion               = "numaflow.numaproj.io/v1alpha1"
	DefaultNumaflowVertex    = "infer"
	numaflowSourceVertexName = "in"
	numaflowSinkVertexName   = "out"
)

// KindNames lists the accepted numaflow.kind values.
func KindNames() []string { return []string{KindPipeline, KindMonoVertex} }

func Generate(cloud clouds.Cloud, in Values, strict bool) (map[string]any, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	block := gpudiag.At(Block)
	checkNumaflowIdentity(block, in, strict, &diags)
	req := chartkit.GPURequest{Name: in.Name, GPU: in.GPU, Spot: in.Spot, Size: in.Size, CPU: in.CPU, Memory: in.Memory, Env: in.Env}
	workload.ValidateAnnotations(in.Annotations, "annotations", &diags)
	diags = rerootAnnotationPaths(diags, block)
	if !strict {
		if in.NodePool != nil {
			diags.Append(chartkit.PrefixDiags(chartkit.With(block, "node_pool"), pool.Validate(*in.NodePool)))
		}
		diags.Append(chartkit.PrefixDiags(block, chartkit.ValidateValuesGPU(cloud, req)))
		return nil, diags
	}
	p, more, ok := chartkit.PlaceOnPool(cloud, req, in.NodePool)
	diags.Append(chartkit.PrefixDiags(block, more))
	if !ok || diags.HasError() {
		return nil, diags
	}
	if p.HostIPC {
		diags.AddError(chartkit.With(block, "gpu", "sharing"), "MPS needs host IPC",
			clouds.GKEMPSHostIPC("a Numaflow vertex")+
				"Allowed: sharing = \""+spec.SharingTimeSlicing+"\", or whole GPUs.")
		return nil, diags
	}
	fragment := numaflowFragment(p, in.Annotations)
	if !in.Manifest {
		if p.ClaimTemplate != nil {
			diags.AddWarning(chartkit.With(block, "gpu", "dra"), "Create the ResourceClaimTemplate",
				"The vertex references ResourceClaimTemplate "+strconv.Quote(in.Name+"-gpu")+", which this fragment does not "+
					"contain. Allowed: set manifest = true to get it with the object, or create it with that name.")
		}
		return fragment, diags
	}
	return numaflowManifest(in, fragment, p), diags
}

func checkNumaflowIdentity(block []any, in Values, strict bool, diags *gpudiag.Diagnostics) {
	if in.Kind != "" && in.Kind != KindPipeline && in.Kind != KindMonoVertex {
		diags.AddError(chartkit.With(block, "kind"), "Unknown Numaflow kind",
			strconv.Quote(in.Kind)+" is not a Numaflow kind. Allowed values: "+gpudiag.QuoteList(KindNames())+".")
	}
	checkLabelName := func(attribute, value, allowed string) {
		if value == "" {
			return
		}
		if msgs := validation.IsDNS1123Label(value); len(msgs) > 0 {
			diags.AddError(chartkit.With(block, attribute), "Invalid "+strings.ReplaceAll(attribute, "_", " "),
				strconv.Quote(value)+": "+strings.Join(msgs, "; ")+". Allowed: "+allowed+".")
		}
	}
	checkLabelName("namespace", in.Namespace, "a DNS-1123 label")
	checkLabelName("vertex_name", in.VertexName, "a DNS-1123 label such as \""+DefaultNumaflowVertex+"\"")
	if in.VertexName == numaflowSourceVertexName || in.VertexName == numaflowSinkVertexName {
		diags.AddError(chartkit.With(block, "vertex_name"), "Reserved vertex name",
			strconv.Quote(in.VertexName)+" names the manifest's source or sink vertex. Allowed: any other name, e.g. \""+
				DefaultNumaflowVertex+"\".")
	}
	if in.Name == "" && strict && (in.Manifest || in.GPU.DRA != nil) {
		diags.AddError(chartkit.With(block, "name"), "Missing required value",
			"A name is required with manifest = true or gpu.dra (it names the object and the claim template). "+
				"Allowed: a DNS-1123 label such as \"embeddings\".")
	}
	if in.Image == "" && strict && in.Manifest {
		diags.AddError(chartkit.With(block, "image"), "Missing required value",
			"manifest = true needs the UDF container image. Allowed: an image reference such as \"registry/udf:1.0\".")
	}
	if strings.ContainsFunc(in.Image, workload.IsSpace) {
		diags.AddError(chartkit.With(block, "image"), "Invalid image",
			strconv.Quote(in.Image)+" contains whitespace. Allowed: an image reference such as \"registry/udf:1.0\".")
	}
	// name itself is validated by Render, as the workload name.
}

// rerootAnnotationPaths moves workload.ValidateAnnotations' paths under the block.
func rerootAnnotationPaths(diags gpudiag.Diagnostics, block []any) gpudiag.Diagnostics {
	for i, d := range diags {
		if len(d.Path) > 0 && d.Path[0] == "annotations" {
			diags[i].Path = append(chartkit.With(block), d.Path...)
		}
	}
	return diags
}

// numaflowFragment is the vertex (or MonoVertex spec) part: pod placement
// at the top, the GPU request on the UDF container.
func numaflowFragment(p chartkit.ValuesPlacement, annotations map[string]string) map[string]any {
	fragment := map[string]any{}
	if len(annotations) > 0 {
		fragment["metadata"] = map[string]any{"annotations": chartkit.StringMapValue(annotations)}
	}
	p.AddPodPlacement(fragment)
	if len(p.Claims) > 0 {
		fragment["resourceClaims"] = chartkit.PlainOrNil(p.Claims)
	}
	container := map[string]any{"resources": chartkit.PlainOrNil(p.Resources)}
	if env := workload.ContainerEnv(p.Env, nil); len(env) > 0 {
		container["env"] = chartkit.PlainOrNil(env)
	}
	fragment["udf"] = map[string]any{"container": container}
	return fragment
}

// numaflowManifest wraps the fragment into the smallest object that runs:
// a generator source, the GPU UDF and a log sink.
func numaflowManifest(in Values, fragment map[string]any, p chartkit.ValuesPlacement) map[string]any {
	if container, ok := chartkit.GetPath(fragment, "udf", "container"); ok {
		if c, isMap := container.(map[string]any); isMap {
			c["image"] = in.Image
		}
	}
	meta := map[string]any{"name": in.Name}
	if in.Namespace != "" {
		meta["namespace"] = in.Namespace
	}
	source := map[string]any{"generator": map[string]any{"rpu": int64(1), "duration": "1s"}}
	sink := map[string]any{"log": map[string]any{}}
	var object map[string]any
	if in.Kind == KindMonoVertex {
		spec := fragment
		spec["source"], spec["sink"] = source, sink
		object = map[string]any{"apiVersion": APIVersion, "kind": "MonoVertex", "metadata": meta, "spec": spec}
	} else {
		vertex := in.VertexName
		if vertex == "" {
			vertex = DefaultNumaflowVertex
		}
		fragment["name"] = vertex
		object = map[string]any{"apiVersion": APIVersion, "kind": "Pipeline", "metadata": meta, "spec": map[string]any{
			"vertices": []any{
				map[string]any{"name": numaflowSourceVertexName, "source": source},
				fragment,
				map[string]any{"name": numaflowSinkVertexName, "sink": sink},
			},
			"edges": []any{
				map[string]any{"from": numaflowSourceVertexName, "to": vertex},
				map[string]any{"from": vertex, "to": numaflowSinkVertexName},
			},
		}}
	}
	if p.ClaimTemplate == nil {
		return object
	}
	template, err := workload.ObjectMap(p.ClaimTemplate)
	if err != nil {
		return object
	}
	if meta, ok := template["metadata"].(map[string]any); ok {
		// The template is the workload's, whose labels name the synthetic
		// workload; the object's namespace is what matters here.
		delete(meta, "labels")
		delete(meta, "namespace")
		if in.Namespace != "" {
			meta["namespace"] = in.Namespace
		}
	}
	// One document holding both: kubectl applies a List item by item, and a
	// provider can split Items the same way.
	return map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{template, object}}
}
