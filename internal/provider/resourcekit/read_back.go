package resourcekit

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// LiveObject is one rendered object read back from the cluster: the refresh
// step of every resource that applies objects.
type LiveObject struct {
	Ref kube.ObjectRef
	// Live is what the cluster holds, nil when the object is missing.
	Live *unstructured.Unstructured
	// Desired is the rendered object as a map, the fields this resource
	// manages.
	Desired map[string]any
}

// ReadBack reads each rendered object from the cluster, in order.
func ReadBack(ctx context.Context, client *kube.Client, objects []workload.Object) ([]LiveObject, error) {
	out := make([]LiveObject, 0, len(objects))
	for _, obj := range objects {
		ref, err := kube.RefOf(obj)
		if err != nil {
			return nil, err
		}
		desired, err := workload.ObjectMap(obj)
		if err != nil {
			return nil, err
		}
		live, err := client.Get(ctx, ref)
		if err != nil {
			return nil, err
		}
		out = append(out, LiveObject{Ref: ref, Live: live, Desired: desired})
	}
	return out, nil
}

// Projections are what the cluster holds for the fields the resource
// manages (kube.Project), one map per object and an empty one where the
// object is missing: encoded as the manifests, drift shows as their diff.
func Projections(objects []LiveObject) []map[string]any {
	projected := make([]map[string]any, 0, len(objects))
	for _, o := range objects {
		if o.Live == nil {
			projected = append(projected, map[string]any{})
			continue
		}
		projected = append(projected, kube.Project(o.Live.Object, o.Desired))
	}
	return projected
}
