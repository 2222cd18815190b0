package gpuworkload

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuintent"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

var _ resource.ResourceWithImportState = &workloadResource{}

// specAnnotation records, on the applied Deployment, StatefulSet or Job, the
// GPU intent it was rendered from (resourcekit.SpecAnnotation).
const specAnnotation = resourcekit.SpecAnnotation

// workloadSpec is the annotation's content: the intent plus the attributes
// that only steer Terraform. It is a stored format: see specVersion.
type workloadSpec struct {
	Workload spec.Workload `json:"workload"`
	WaitFor  string        `json:"wait_for,omitempty"`
	Force    bool          `json:"force_conflicts,omitempty"`
	// NodePool is the legacy pool id annotations written before 0.1.0 hold
	// instead of Pool; Workload.Queue then may be a legacy gpu_queue id
	// instead of the LocalQueue name with QueueRef (normalize reads both).
	NodePool string `json:"node_pool,omitempty"`
	// Pool is node_pool's pool and QueueRef queue's gpu_queue reference,
	// added within format 1: absent when unset.
	Pool     *spec.PoolPolicy `json:"pool,omitempty"`
	QueueRef *queue.Ref       `json:"queue_ref,omitempty"`
	// Unschedulable is unschedulable_timeout, added within format 1: absent
	// when unset, so the annotations written before it stay as they were.
	Unschedulable string `json:"unschedulable_timeout,omitempty"`
	// Version is absent in version 1, the format of the first release, so
	// that annotations already on clusters stay byte-for-byte what this
	// version writes (a changed annotation would update every workload).
	// A later incompatible format writes its number here.
	Version int `json:"v,omitempty"`
}

// specVersion is the annotation format this provider reads and writes.
// testdata/formats/spec-annotation holds one fixture per released format.
const specVersion = 1

func annotationFromSpec(w spec.Workload, pool *spec.PoolPolicy, queueRef *queue.Ref, m workloadModel) (string, error) {
	b, err := json.Marshal(workloadSpec{Workload: w, WaitFor: m.WaitFor.ValueString(), Force: m.ForceConflicts.ValueBool(),
		Pool: pool, QueueRef: queueRef, Unschedulable: m.UnschedulableLimit.ValueString()})
	return string(b), err
}

// specFromAnnotation reads a spec annotation, refusing formats it does not know
// rather than guessing at them.
func specFromAnnotation(raw string) (workloadSpec, error) {
	var spec workloadSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return workloadSpec{}, err
	}
	if v := cmp.Or(spec.Version, 1); v != specVersion {
		return workloadSpec{}, fmt.Errorf("format version %d is newer than this provider reads (%d): upgrade the provider", v, specVersion)
	}
	return spec, spec.readLegacyIDs()
}

// readLegacyIDs reads the ids an annotation written before 0.1.0 holds
// into Pool and QueueRef. A pool id that does not decode stays in NodePool:
// import then says node_pool could not be restored.
func (s *workloadSpec) readLegacyIDs() error {
	if p, err := pool.DecodeID(s.NodePool); s.NodePool != "" && err == nil {
		s.Pool, s.NodePool = &p, ""
	}
	if queue.IsID(s.Workload.Queue) {
		r, err := queue.DecodeID(s.Workload.Queue)
		if err != nil {
			return fmt.Errorf("queue: %w", err)
		}
		s.QueueRef, s.Workload.Queue = &r, r.LocalQueue
	}
	return nil
}

// ImportState imports `<namespace>/<name>` of a Deployment, StatefulSet,
// Job or CronJob. One that gpu_workload applied carries its intent in the
// spec annotation; any other GPU Deployment, StatefulSet or CronJob is
// adopted: its intent is inferred (workload_adopt.go).
func (r *workloadResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	namespace, name, ok := strings.Cut(req.ID, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("Expected <namespace>/<name>, e.g. ml/llm-inference; got %q.", req.ID))
		return
	}
	client, ok := r.Data.Client("Cannot import gpu_workload", &resp.Diagnostics)
	if !ok {
		return
	}
	spec, live, err := readSpec(ctx, client, namespace, name)
	if err != nil {
		resp.Diagnostics.AddError("Cannot import gpu_workload", err.Error())
		return
	}
	if live == nil {
		resp.Diagnostics.AddError("Cannot import gpu_workload", fmt.Sprintf("No %s %s/%s exists.", objectKinds(), namespace, name))
		return
	}
	if spec == nil {
		spec, ok = r.adoptSpec(ctx, client, live, &resp.Diagnostics)
		if !ok {
			return
		}
		// Until the first apply: a pod template the adopted configuration
		// renders differently re-creates the object (requireReplacement).
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateAdopted, []byte(`true`))...)
	}
	model, diags := modelFromSpec(ctx, resp.State.Schema, *spec)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resourcekit.SetRenderedState(ctx, &resp.State, &model)...)
}

// readSpec finds the workload object and its spec annotation; the spec is
// nil when the object was not applied by gpu_workload, and the object nil
// when there is none.
func readSpec(ctx context.Context, client *kube.Client, namespace, name string) (*workloadSpec, *unstructured.Unstructured, error) {
	var first *unstructured.Unstructured
	// In registration order: a Role written before later kinds existed
	// still imports the earlier ones. Kinds that share an object type
	// (a job and a distributed job) share one probe: the annotation or
	// the object tells them apart.
	for _, gvk := range probedGVKs() {
		live, err := client.Get(ctx, kube.ObjectRef{GVK: gvk, Namespace: namespace, Name: name})
		if err != nil {
			return nil, nil, err
		}
		if live == nil {
			continue
		}
		if first == nil {
			first = live
		}
		raw, ok := live.GetAnnotations()[specAnnotation]
		if !ok {
			continue
		}
		spec, err := specFromAnnotation(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s/%s: annotation %s is not valid: %w", gvk.Kind, namespace, name, specAnnotation, err)
		}
		return &spec, live, nil
	}
	return nil, first, nil
}

// modelFromSpec is the inverse of converter.workloadFromModel. Zero values become
// null, matching a configuration that leaves the attribute out.
func modelFromSpec(ctx context.Context, resourceSchema interface{ Type() attr.Type }, spec workloadSpec) (workloadModel, diag.Diagnostics) {
	intentTypes, diags := resourcekit.CodecOf[workloadModel]().AttributesTypes(ctx, resourceSchema, workloadModel{})
	w := spec.Workload
	blocks := map[string]tfconv.Typed{}
	for name, b := range workloadBlocks(ctx) {
		blocks[name] = tfconv.BlockType{Block: b}
	}
	m := workloadModel{
		RenderedAttributes: resourcekit.ImportedAttributes(w.Namespace, w.Name, types.StringValue(w.Cloud),
			importedQueue(spec, &diags), spec.WaitFor, spec.Unschedulable, spec.Force),
		Kind:           types.StringValue(w.Kind),
		QueueScheduler: tfconv.NullableString(w.QueueScheduler),
		NodePool:       importedPool(spec, &diags),
		Adopt:          types.BoolNull(),
		ResourceName:   types.StringUnknown(),
		NodeSelector:   types.MapUnknown(types.StringType),
		Tolerations:    types.ListUnknown(types.ObjectType{AttrTypes: tfconv.TolerationAttrTypes}),
		ScheduledNodes: types.ListNull(types.StringType),
	}
	m.Intent = tfconv.EncodeAttributes(intentTypes, w, &diags)
	m.GPU = gpuintent.ObjectFromGPU(w.GPU, blocks["gpu"], &diags)
	m.Job = tfconv.Encode(blocks["job"], w.Job, &diags)
	m.Topology = tfconv.Encode(blocks["topology"], w.Topology, &diags)
	return m, diags
}

// privateAdopted is the private state key import sets on a workload it
// adopted, and the first apply clears.
const privateAdopted = "adopted"

// probedGVKs are the object types import looks for, each once, in
// registration order.
func probedGVKs() []schema.GroupVersionKind {
	var gvks []schema.GroupVersionKind
	for _, k := range kinds.All() {
		if !slices.Contains(gvks, k.GVK) {
			gvks = append(gvks, k.GVK)
		}
	}
	return gvks
}

// objectKinds names the objects import looks for, in the kind attribute's
// order, each once: "Deployment, StatefulSet, Job or CronJob".
func objectKinds() string {
	var names []string
	for _, name := range kinds.Names() {
		k, _ := kinds.Lookup(name)
		if !slices.Contains(names, k.GVK.Kind) {
			names = append(names, k.GVK.Kind)
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// importedPool is node_pool as the configuration that applied the
// workload has it: the pool's ref.
func importedPool(s workloadSpec, diags *diag.Diagnostics) types.Object {
	if s.Pool == nil {
		if s.NodePool != "" {
			diags.AddAttributeWarning(path.Root("node_pool"), "node_pool not restored", "The workload's "+specAnnotation+
				" annotation names its pool by an id this version cannot read, so the imported state has no node_pool. "+
				"The next plan sets it from the configuration.")
		}
		return types.ObjectNull(refs.PoolType.AttrTypes)
	}
	v, err := refs.RefFromPool(*s.Pool)
	if err != nil {
		diags.AddError("Cannot import the node_pool", err.Error())
	}
	return v
}

// importedQueue is queue as configured: a gpu_queue's ref, a queue name or
// null.
func importedQueue(s workloadSpec, diags *diag.Diagnostics) types.Dynamic {
	v, err := refs.DynamicQueue(s.QueueRef, s.Workload.Queue)
	if err != nil {
		diags.AddError("Cannot import the queue", err.Error())
	}
	return v
}
