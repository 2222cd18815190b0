package numaflow

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func mustGenerate(t *testing.T, cloud spec.Cloud, in Values) map[string]any {
	t.Helper()
	values, diags := Generate(clouds.Lookup(cloud), in, true)
	if diags.HasError() || values == nil {
		t.Fatalf("%s: %v", cloud, diags.Errors())
	}
	return values
}

func gpuLimit(pod corev1.PodSpec) int64 {
	for _, c := range pod.Containers {
		if q, ok := c.Resources.Limits["nvidia.com/gpu"]; ok {
			return q.Value()
		}
	}
	return 0
}

// TestPodsFindTheGPUVertex: whatever shape the values take (a vertex
// fragment, a Pipeline, a MonoVertex), Pods finds the one GPU UDF and it
// asks for the GPUs requested.
func TestPodsFindTheGPUVertex(t *testing.T) {
	for name, in := range map[string]Values{
		"fragment":   {GPU: spec.GPU{Count: 2, Accelerator: "a100-80gb"}},
		"pipeline":   {Name: "p", Image: "img:1", Manifest: true, GPU: spec.GPU{Count: 2, Accelerator: "a100-80gb"}},
		"monovertex": {Kind: KindMonoVertex, Name: "m", Image: "img:1", Manifest: true, GPU: spec.GPU{Count: 2, Accelerator: "a100-80gb"}},
	} {
		values := mustGenerate(t, spec.CloudAKS, in)
		pods, err := Pods(values)
		if err != nil || len(pods) != 1 {
			t.Errorf("%s: want one GPU pod, got %d (%v)", name, len(pods), err)
			continue
		}
		if got := gpuLimit(pods[0]); got != 2 {
			t.Errorf("%s: GPU limit %d, want 2", name, got)
		}
	}
}

func TestManifestIsAMinimalPipeline(t *testing.T) {
	values := mustGenerate(t, spec.CloudEKS, Values{Name: "p", Image: "img:1", VertexName: "gpu", Manifest: true, GPU: spec.GPU{Count: 1, Accelerator: "a10g"}})
	if values["apiVersion"] != APIVersion || values["kind"] != "Pipeline" {
		t.Fatalf("object: %v %v", values["apiVersion"], values["kind"])
	}
	specBlock, _ := values["spec"].(map[string]any)
	vertices, _ := specBlock["vertices"].([]any)
	var names []any
	for _, v := range vertices {
		vertex, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("vertex is %T", v)
		}
		names = append(names, vertex["name"])
	}
	if !slices.Equal(names, []any{"in", "gpu", "out"}) {
		t.Errorf("vertices %v, want source, GPU UDF, sink", names)
	}
	if fragment := mustGenerate(t, spec.CloudEKS, Values{GPU: spec.GPU{Count: 1, Accelerator: "a10g"}}); fragment["apiVersion"] != nil {
		t.Error("without manifest the values are the vertex fragment only")
	}
}

func TestGenerateDiagnostics(t *testing.T) {
	_, diags := Generate(clouds.Lookup(spec.CloudEKS), Values{
		Kind: "dag", VertexName: "out", Manifest: true, GPU: spec.GPU{Count: 1, Accelerator: "a10g"},
	}, true)
	var got []string
	for _, d := range diags.Errors() {
		got = append(got, d.PathString())
	}
	for _, want := range []string{"numaflow.kind", "numaflow.vertex_name", "numaflow.name", "numaflow.image"} {
		if !slices.Contains(got, want) {
			t.Errorf("no error at %s: %v", want, got)
		}
	}
	for _, kind := range KindNames() {
		_, diags := Generate(clouds.Lookup(spec.CloudEKS), Values{Kind: kind, Name: "n", Image: "img:1", Manifest: true, GPU: spec.GPU{Count: 1, Accelerator: "a10g"}}, true)
		if diags.HasError() {
			t.Errorf("kind %q is listed as accepted but fails: %v", kind, diags.Errors())
		}
	}
	if _, diags := Generate(clouds.Lookup(spec.CloudEKS), Values{}, false); diags.HasError() {
		t.Errorf("plan time with everything unknown: %v", diags)
	}
}
