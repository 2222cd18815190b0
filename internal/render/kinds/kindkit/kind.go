// Package kindkit is what a workload kind of gpu_workload declares: its
// object, where the pod template and selector are, how it is built, waited
// for, queued, replaced and adopted. Each kind is a package under
// internal/render/kinds that returns a Kind; the kinds package registers
// them, and every layer (render, kube, provider) asks the registry instead
// of switching on the kind (docs/design/workload-kinds.md).
//
// A kind states facts as data wherever a layer above render interprets
// them (a wait mode's name, a REST resource), so render never imports the
// kube or provider layers.
package kindkit

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Object is a typed Kubernetes object with TypeMeta set.
type Object interface {
	runtime.Object
	metav1.Object
}

// Kind is one value of the kind attribute: the callbacks and facts every
// layer needs about it. The registry refuses a Kind without its mandatory
// parts (Validate), the way Kueue's integration manager refuses an
// integration without its callbacks.
type Kind struct {
	// Name is the kind attribute's value, e.g. "deployment".
	Name string
	// Doc is what the kind attribute's description says about this kind
	// (Markdown, "" for nothing beyond its name).
	Doc string
	// Default marks the kind of a workload that leaves kind unset; exactly
	// one registered kind is the default.
	Default bool

	// GVK is the object's group, version and kind; Resource its REST
	// resource, which the kube layer uses instead of discovery.
	GVK      schema.GroupVersionKind
	Resource string

	// New is an empty object of the kind's Go type, to decode into (a
	// patched object, an object read for import).
	New func() Object
	// Build makes the object around the rendered pod template. false when
	// the workload lacks what the kind needs, which validation reports
	// first: a false here is a provider bug.
	Build func(in BuildInput) (Object, bool)
	// Companions are the objects the kind renders beside its workload
	// object (a distributed job's headless Service), applied before it, so
	// what its pods need exists when they start; nil when there are none.
	// They are applied, read back, pruned and deleted with the workload,
	// and never owned by it: a replaced workload object keeps them.
	Companions func(in BuildInput) []Object
	// Recognise tells this kind's objects from those of another kind on the
	// same Go type and GroupKind (a distributed job's Indexed Job from a
	// job's). nil for a kind that is the only one on its type, or the one
	// an object belongs to when no other kind recognises it. The registry
	// asks every kind with a Recognise before the one without.
	Recognise func(obj Object) bool
	// PodTemplate is where the object's pod template is.
	PodTemplate func(obj Object) *corev1.PodTemplateSpec
	// Selector is the object's spec.selector where the provider sets it and
	// the server keeps it immutable. nil (the callback or its result) where
	// the server generates the selector (a Job's).
	Selector func(obj Object) *metav1.LabelSelector
	// Replicas is the object's spec.replicas, for kinds scaled by replicas;
	// nil for kinds that have none.
	Replicas func(obj Object) *int32
	// RunMeta is the metadata of the object each run of the kind creates (a
	// CronJob's job template), where queue systems read their labels; nil
	// when the object itself is what runs.
	RunMeta func(obj Object) *metav1.ObjectMeta

	// Pods is how many pods of the workload run at once and the attribute
	// that says so, from its attributes; (0, "") when that is left to the
	// server or an autoscaler. Topology and storage checks count with it.
	Pods func(w spec.Workload) (int64, string)
	// SharedMemory: the pods need a large /dev/shm (NCCL's transport between
	// the GPUs of a pod, PyTorch's data loader workers), so without
	// shm_size the pod gets one sized from its memory (render's
	// DefaultShmSize).
	SharedMemory bool
	// ModelCachePerPod: a created model cache is a claim template, one
	// volume per pod, instead of one claim every pod shares.
	ModelCachePerPod bool
	// Accepts are the attributes and blocks only some kinds read
	// (AttributeReplicas, BlockJob, BlockCronJob) that this kind reads.
	Accepts []string
	// Validate checks the kind's own rules (a CronJob's schedule), reporting
	// on attribute paths; nil when it has none.
	Validate func(w spec.Workload, strict bool, diags *gpudiag.Diagnostics)

	Wait      Wait
	Kueue     Kueue
	Immutable Immutable

	// Adopt says how import takes over an object of this kind that
	// gpu_workload did not create; nil when it cannot, and NotAdoptable then
	// says why.
	Adopt        *Adopt
	NotAdoptable string
	// PrepareAdoption is a JSON merge patch the apply sends before taking
	// over an object another tool created, clearing fields server-side
	// apply cannot remove (they are that tool's) but the rendered object
	// rules out; nil when none is needed. Optional.
	PrepareAdoption func(obj Object) []byte
}

// Attributes and blocks only some kinds read, for Kind.Accepts.
const (
	AttributeReplicas       = "replicas"
	AttributeUpdateStrategy = "update_strategy"
	BlockJob                = "job"
	BlockCronJob            = "cronjob"
	BlockDistributed        = "distributed"
)

// BuildInput is what Build gets: the workload, the metadata every top-level
// object shares, the rendered pod template and what the kind may need of
// the rest of the render.
type BuildInput struct {
	Workload spec.Workload
	Meta     metav1.ObjectMeta
	Pod      corev1.PodTemplateSpec
	// Selector labels select the workload's pods.
	Selector map[string]string
	// ClaimTemplates hold the created model cache's claim for kinds with
	// ModelCachePerPod; the pod template then lacks the volume, which the
	// claim template's volume replaces by name.
	ClaimTemplates []corev1.PersistentVolumeClaim
}

// Wait modes a kind may wait for by default. They are the kube layer's
// wait_for values (kube.WaitMode); the kube package's tests check that
// every registered kind names one of them.
const (
	WaitRollout  = "rollout"
	WaitComplete = "complete"
	WaitNone     = "none"
)

// Wait is how the apply waits for the kind and reports on it.
type Wait struct {
	// Default is wait_for when it is unset: WaitRollout, WaitComplete or
	// WaitNone.
	Default string
	// Completes: the object runs to completion once (a Job). It is ready
	// when its Complete condition is, whatever wait_for says; a run that
	// outlives the apply's wait stays in state instead of being tainted (an
	// error would re-run hours of training); and a missing object after a
	// complete wait is ttl_seconds_after_finished's work, not drift.
	Completes bool
	// NoPods says why no wait for pods can end (a CronJob starts none until
	// its schedule fires): only wait_for = "none" is accepted. "" when the
	// apply can wait.
	NoPods string
	// DeleteStuckPods: the controller never replaces a pod of an older
	// revision that never became ready (a StatefulSet's rolling update), so
	// the apply deletes such pods for the rollout to go on.
	DeleteStuckPods bool
}

// Kueue is how Kueue admits the kind. The queue-name label goes on the
// object, or on RunMeta where the kind has one; topology annotations go on
// the pod template.
type Kueue struct {
	// PodByPod: Kueue admits each pod as a Workload of its own (its pod
	// integration, which serves Deployments), so there is one Workload per
	// replica and a topology request holds per pod.
	PodByPod bool
	// AdmittedTogether is how many pods of the object Kueue admits as one
	// Workload. nil with PodByPod, where it is one.
	AdmittedTogether func(obj Object) int64
	// SetSuspend writes spec.suspend, which Kueue owns on kinds it holds by
	// suspending them (a Job); the apply carries Kueue's value over instead
	// of fighting it. nil for kinds Kueue holds otherwise.
	SetSuspend func(obj Object, suspend bool)
}

// Immutable is what Kubernetes refuses to change on an object of the kind,
// so that the plan replaces it instead of the apply being refused.
type Immutable struct {
	// SpecFields are the fields under spec that cannot change; empty when
	// the object is updated in place.
	SpecFields []string
	// Attributes reach those fields: attribute names, "block.attribute" for
	// one in a block.
	Attributes []string
	// PodTemplate: the whole pod template is immutable (a Job's), so every
	// attribute that reaches it forces replacement too, and when the plan
	// cannot be compared with the state the changed attributes do.
	PodTemplate bool
	// RecreateObject: an update that changes those fields deletes and
	// re-creates the workload object itself instead of the plan replacing
	// the whole resource, so the Companions keep their identity (a
	// distributed job's Service keeps its UID, and the names its pods
	// resolve never disappear).
	RecreateObject bool
	// DriftSummary and DriftDetail warn when the rendered fields change
	// although no attribute did (a new provider version renders them
	// differently): the update would be refused.
	DriftSummary, DriftDetail string
}

// Adopt is how import takes over an object of the kind.
type Adopt struct {
	// Attributes sets the typed attributes only this kind has (a CronJob's
	// schedule) from the live object; nil when there are none.
	Attributes func(obj Object, w *spec.Workload)
	// ServerLabels are pod template labels the API server writes on every
	// object of the kind (a Job's controller-uid and job-name): never
	// part of the inferred intent or its patch, so the provider neither
	// sends nor diffs them.
	ServerLabels []string
	// ServerFields are the spec fields the API server generates per object
	// (a Job's selector), each a path under the object: left out of the
	// patch, so the provider never sends them.
	ServerFields [][]string
	// Companions are the companion objects import takes over with the
	// object, as empty typed objects with their name and namespace (a
	// distributed job's headless Service); nil when the kind has none.
	Companions func(obj Object) []Object
	// TakeOver checks the live companions (in Companions' order, nil where
	// one does not exist) and sets what they say of the intent, once the
	// GPU request is known (w.GPU). It returns what the next apply changes
	// in them, or an error saying why they cannot be taken over. Required
	// with Companions.
	TakeOver func(obj Object, companions []Object, w *spec.Workload) ([]string, error)
}

// Accepting reports whether the kind reads the attribute or block.
func (k Kind) Accepting(attribute string) bool {
	return slices.Contains(k.Accepts, attribute)
}

// Typed adapts a function of a kind's Go type into a callback on Object.
// The registry finds a kind by the object's Go type (kinds.Of), so a kind's
// callbacks only ever see their own type; any other object gets R's zero
// value instead of a panic.
func Typed[T Object, R any](f func(T) R) func(Object) R {
	return func(obj Object) R {
		typed, ok := obj.(T)
		if !ok {
			var zero R
			return zero
		}
		return f(typed)
	}
}
