package gpuraycluster

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/ray"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// specAnnotation records on the Ray object the intent it was rendered
// from (resourcekit.SpecAnnotation, as on gpu_workload's objects).
const specAnnotation = resourcekit.SpecAnnotation

// clusterSpec is the annotation's content: the intent, the groups' pools
// and the queue's ref (which spec.RayCluster does not carry), and the
// attributes that only steer Terraform. A stored format: fields are only
// ever added.
type clusterSpec struct {
	Cluster       spec.RayCluster    `json:"cluster"`
	HeadPool      *spec.PoolPolicy   `json:"head_pool,omitempty"`
	Pools         []*spec.PoolPolicy `json:"pools,omitempty"`
	QueueRef      *queue.Ref         `json:"queue_ref,omitempty"`
	WaitFor       string             `json:"wait_for,omitempty"`
	Unschedulable string             `json:"unschedulable_timeout,omitempty"`
	Force         bool               `json:"force_conflicts,omitempty"`
}

// annotateSpec records the intent on the Ray object, for import.
func annotateSpec(rendered *ray.Rendered, in clusterIntent, m clusterModel, diags *diag.Diagnostics) bool {
	s := clusterSpec{Cluster: in.cluster, HeadPool: in.cluster.Head.NodePool, QueueRef: in.queue,
		WaitFor: m.WaitFor.ValueString(), Unschedulable: m.UnschedulableLimit.ValueString(), Force: m.ForceConflicts.ValueBool()}
	s.Cluster.Cloud = m.Cloud.ValueString() // as configured, not default_cloud
	for _, g := range in.cluster.WorkerGroups {
		s.Pools = append(s.Pools, g.NodePool)
	}
	b, err := json.Marshal(s)
	if err != nil {
		diags.AddError("Cannot encode the Ray cluster's spec", err.Error())
		return false
	}
	obj := rendered.Object()
	annotations := maps.Clone(obj.GetAnnotations())
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[specAnnotation] = string(b)
	obj.SetAnnotations(annotations)
	return true
}

// ImportState imports `<namespace>/<name>` of a RayCluster, RayJob or
// RayService. One gpu_ray_cluster applied carries its intent in the spec
// annotation; a hand-written one is adopted by inference (adopt.go).
func (r *rayClusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	namespace, name, ok := strings.Cut(req.ID, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected <namespace>/<name>, e.g. ml/llm; got %q.", req.ID))
		return
	}
	client, ok := r.Data.Client("Cannot import gpu_ray_cluster", &resp.Diagnostics)
	if !ok {
		return
	}
	live, err := findRayObject(ctx, client, namespace, name)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Cannot import gpu_ray_cluster", err.Error())
		return
	case live == nil:
		resp.Diagnostics.AddError("Cannot import gpu_ray_cluster", fmt.Sprintf("No RayCluster, RayJob or RayService "+
			"%s/%s exists.", namespace, name))
		return
	}
	var s clusterSpec
	if raw, ours := live.GetAnnotations()[specAnnotation]; ours {
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			resp.Diagnostics.AddError("Cannot import gpu_ray_cluster", fmt.Sprintf("Annotation %s is not valid: %v", specAnnotation, err))
			return
		}
	} else if s, ok = adoptSpec(live, r.DefaultCloud(), &resp.Diagnostics); !ok {
		return
	}
	m, diags := modelFromSpec(ctx, resp.State.Schema, s)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resourcekit.SetRenderedState(ctx, &resp.State, &m)...)
}

// findRayObject is the Ray object of that name: a RayCluster, else a
// RayJob, else a RayService (nil when there is none).
func findRayObject(ctx context.Context, client *kube.Client, namespace, name string) (*unstructured.Unstructured, error) {
	for _, gvk := range []kube.ObjectRef{{GVK: kube.GVKRayCluster}, {GVK: kube.GVKRayJob}, {GVK: kube.GVKRayService}} {
		ref := kube.ObjectRef{GVK: gvk.GVK, Namespace: namespace, Name: name}
		if client.RayCRDMissing(ctx, ref.GVK) {
			continue
		}
		live, err := client.GetFresh(ctx, ref)
		if err != nil || live != nil {
			return live, err
		}
	}
	return nil, nil
}

// modelFromSpec is clusterFromModel's inverse. Zero values become null, as in a
// configuration that leaves the attribute out; the computed attributes
// are unknown until the refresh that follows an import.
func modelFromSpec(ctx context.Context, resourceSchema interface{ Type() attr.Type }, s clusterSpec) (clusterModel, diag.Diagnostics) {
	intentTypes, diags := resourcekit.CodecOf[clusterModel]().AttributesTypes(ctx, resourceSchema, clusterModel{})
	c := s.Cluster
	queueValue, err := refs.DynamicQueue(s.QueueRef, c.Queue)
	if err != nil {
		diags.AddError("Cannot import the queue", err.Error())
	}
	m := clusterModel{
		RenderedAttributes: resourcekit.ImportedAttributes(c.Namespace, c.Name, tfconv.NullableString(c.Cloud), queueValue,
			s.WaitFor, s.Unschedulable, s.Force),
		Kind: types.StringUnknown(), State: types.StringUnknown(), NumGPUs: types.MapUnknown(types.Int64Type),
	}
	m.Intent = tfconv.EncodeAttributes(intentTypes, c, &diags)
	m.Autoscaling = tfconv.Encode(blockType(autoscalingBlock()), c.Autoscaling, &diags)
	m.Job = tfconv.Encode(blockType(jobBlock()), c.Job, &diags)
	m.Serve = tfconv.Encode(blockType(serveBlock()), c.Serve, &diags)
	head := headBlock()
	m.Head = groupObject(blockType(head), c.Head, s.HeadPool, &diags)
	if reflect.DeepEqual(c.Head, spec.RayGroup{}) && s.HeadPool == nil {
		m.Head = types.ObjectNull(m.Head.AttributeTypes(ctx)) // the configuration had no head block
	}
	workers := workerGroupBlock()
	elem := workers.NestedObject.Type()
	items := make([]attr.Value, 0, len(c.WorkerGroups))
	for i, g := range c.WorkerGroups {
		var p *spec.PoolPolicy
		if i < len(s.Pools) {
			p = s.Pools[i]
		}
		items = append(items, groupObject(typedOf{elem}, g, p, &diags))
	}
	m.WorkerGroups = types.ListValueMust(elem, items)
	return m, diags
}

// groupObject is a head or worker_group block's value: the group by
// Encode's names, its node_pool the pool's ref.
func groupObject(t tfconv.Typed, g spec.RayGroup, p *spec.PoolPolicy, diags *diag.Diagnostics) types.Object {
	g.NodePool = nil
	obj := tfconv.Encode(t, &g, diags)
	if p == nil || obj.IsNull() {
		return obj
	}
	ref, err := refs.RefFromPool(*p)
	if err != nil {
		diags.AddError("Cannot import the node_pool", err.Error())
		return obj
	}
	attrs := maps.Clone(obj.Attributes())
	attrs["node_pool"] = ref
	out, d := types.ObjectValue(obj.AttributeTypes(context.Background()), attrs)
	diags.Append(d...)
	return out
}

func blockType(b schema.Block) tfconv.Typed { return tfconv.BlockType{Block: b} }

// typedOf adapts a bare type (a list block's element) to tfconv.Typed.
type typedOf struct{ t attr.Type }

func (t typedOf) GetType() attr.Type { return t.t }
