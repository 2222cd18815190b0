package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
)

// resources maps the kinds the provider manages to their REST resources:
// every workload kind's, from the registry, and these. A fixed table
// instead of discovery keeps apply to one request per object.
var resources = withWorkloadKinds(map[schema.GroupVersionKind]string{
	{Group: "", Version: "v1", Kind: "PersistentVolumeClaim"}:                     "persistentvolumeclaims",
	{Group: "", Version: "v1", Kind: "Service"}:                                   "services",
	{Group: "", Version: "v1", Kind: "ConfigMap"}:                                 "configmaps",
	{Group: "", Version: "v1", Kind: "Node"}:                                      "nodes",
	{Group: "", Version: "v1", Kind: "Namespace"}:                                 "namespaces",
	{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaimTemplate"}:      "resourceclaimtemplates",
	{Group: "resource.k8s.io", Version: "v1beta1", Kind: "ResourceClaimTemplate"}: "resourceclaimtemplates",
	{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceClass"}:                "deviceclasses",
	{Group: "resource.nvidia.com", Version: "v1beta1", Kind: "ComputeDomain"}:     "computedomains",
	{Group: "kueue.x-k8s.io", Version: "v1beta2", Kind: "ResourceFlavor"}:         "resourceflavors",
	{Group: "kueue.x-k8s.io", Version: "v1beta2", Kind: "Topology"}:               "topologies",
	{Group: "kueue.x-k8s.io", Version: "v1beta2", Kind: "ClusterQueue"}:           "clusterqueues",
	{Group: "kueue.x-k8s.io", Version: "v1beta2", Kind: "LocalQueue"}:             "localqueues",
	{Group: "kueue.x-k8s.io", Version: "v1beta2", Kind: "Workload"}:               "workloads",
})

// withWorkloadKinds adds each workload kind's REST resource to the table.
func withWorkloadKinds(table map[schema.GroupVersionKind]string) map[schema.GroupVersionKind]string {
	for _, k := range kinds.All() {
		table[k.GVK] = k.Resource
	}
	return table
}

// ObjectRef names one object in the cluster.
type ObjectRef struct {
	GVK       schema.GroupVersionKind
	Namespace string
	Name      string
}

func (r ObjectRef) String() string {
	if r.Name == "" {
		return r.GVK.Kind + "s"
	}
	if r.Namespace == "" {
		return fmt.Sprintf("%s %s", r.GVK.Kind, r.Name)
	}
	return fmt.Sprintf("%s %s/%s", r.GVK.Kind, r.Namespace, r.Name)
}

// RefOf returns the reference of a typed or unstructured object.
func RefOf(obj runtime.Object) (ObjectRef, error) {
	accessor, err := metaAccessor(obj)
	if err != nil {
		return ObjectRef{}, err
	}
	return ObjectRef{GVK: obj.GetObjectKind().GroupVersionKind(), Namespace: accessor.GetNamespace(), Name: accessor.GetName()}, nil
}

func metaAccessor(obj runtime.Object) (metav1.Object, error) {
	accessor, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no object metadata", obj)
	}
	return accessor, nil
}

func (c *Client) resourceFor(ref ObjectRef) (dynamic.ResourceInterface, error) {
	name, ok := resources[ref.GVK]
	if !ok {
		return nil, fmt.Errorf("the provider does not manage %s objects", ref.GVK)
	}
	gvr := ref.GVK.GroupVersion().WithResource(name)
	if ref.Namespace == "" {
		return c.Dynamic.Resource(gvr), nil
	}
	return c.Dynamic.Resource(gvr).Namespace(ref.Namespace), nil
}

// ConflictError reports fields owned by another server-side apply manager.
type ConflictError struct {
	Ref      ObjectRef
	Message  string
	Managers []string
}

// newConflictError names the managers of a server-side apply conflict from
// the status causes the API server attaches, one per conflicting field
// (type FieldManagerConflict, message `conflict with "<manager>" using
// <apiVersion>`), rather than from the error's text.
func newConflictError(ref ObjectRef, err error) *ConflictError {
	var managers []string
	for _, cause := range managerConflicts(err) {
		if m, ok := conflictingManager(cause.Message); ok && !slices.Contains(managers, m) {
			managers = append(managers, m)
		}
	}
	return &ConflictError{Ref: ref, Message: err.Error(), Managers: managers}
}

// managerConflicts returns the FieldManagerConflict causes of an API error.
func managerConflicts(err error) []metav1.StatusCause {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var out []metav1.StatusCause
	for _, cause := range status.Status().Details.Causes {
		if cause.Type == metav1.CauseTypeFieldManagerConflict {
			out = append(out, cause)
		}
	}
	return out
}

// conflictingManager reads the quoted manager name of one cause's message.
func conflictingManager(message string) (string, bool) {
	rest, ok := strings.CutPrefix(message, "conflict with ")
	if !ok {
		return "", false
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", false
	}
	name, err := strconv.Unquote(quoted)
	return name, err == nil && name != ""
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s: %s. Another field manager owns fields this resource sets; set force_conflicts = true "+
		"to take them over, or stop the other manager from setting them", e.Ref, e.Message)
}

// ApplyResult is the object as the server stored it, and the managers whose
// imperative edits were overwritten to repair drift.
type ApplyResult struct {
	Object   *unstructured.Unstructured
	TookBack []string
}

// Apply server-side applies a typed object (TypeMeta must be set).
//
// Conflicts are resolved by who caused them. Fields changed imperatively
// (kubectl edit, kubectl scale, a script's PUT) are drift from the Terraform
// configuration, so they are taken back. Fields owned by another
// declarative manager (another apply: GitOps, a controller, a second
// configuration) are reported unless force is set, because overwriting
// them would start a tug of war.
func (c *Client) Apply(ctx context.Context, obj runtime.Object, force bool) (*ApplyResult, error) {
	live, err := c.apply(ctx, obj, force)
	var conflict *ConflictError
	if force || !errors.As(err, &conflict) {
		return &ApplyResult{Object: live}, err
	}
	imperative, checkErr := c.onlyImperative(ctx, conflict)
	if checkErr != nil || !imperative {
		return nil, err
	}
	live, err = c.apply(ctx, obj, true)
	return &ApplyResult{Object: live, TookBack: conflict.Managers}, err
}

// onlyImperative reports whether every conflicting manager wrote its fields
// with an Update (not an Apply) operation.
func (c *Client) onlyImperative(ctx context.Context, conflict *ConflictError) (bool, error) {
	if len(conflict.Managers) == 0 {
		return false, nil
	}
	live, err := c.GetFresh(ctx, conflict.Ref) // the cache drops managed fields
	if err != nil || live == nil {
		return false, err
	}
	ops := map[string]metav1.ManagedFieldsOperationType{}
	for _, entry := range live.GetManagedFields() {
		if entry.Operation == metav1.ManagedFieldsOperationApply || ops[entry.Manager] == "" {
			ops[entry.Manager] = entry.Operation
		}
	}
	for _, m := range conflict.Managers {
		if ops[m] != metav1.ManagedFieldsOperationUpdate {
			return false, nil
		}
	}
	return true, nil
}

func (c *Client) apply(ctx context.Context, obj runtime.Object, force bool) (*unstructured.Unstructured, error) {
	ref, err := RefOf(obj)
	if err != nil {
		return nil, err
	}
	ri, err := c.resourceFor(ref)
	if err != nil {
		return nil, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", ref, err)
	}
	u := &unstructured.Unstructured{Object: content}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	data, err := u.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", ref, err)
	}
	live, err := ri.Patch(ctx, ref.Name, types.ApplyPatchType, data, metav1.PatchOptions{
		FieldManager: c.FieldManager,
		Force:        &force,
	})
	if err != nil {
		return nil, c.explain(ref, "apply", err)
	}
	return live, nil
}

// PrepareAdoption makes an existing workload object, created by another
// tool, acceptable to an apply of obj: the merge patch its kind declares
// (kindkit.Kind.PrepareAdoption) clears fields that tool owns, which
// server-side apply cannot remove and obj rules out (a Deployment's
// defaulted rollingUpdate parameters when obj uses Recreate), as kubectl
// does. Missing objects and kinds that need nothing are left alone.
func (c *Client) PrepareAdoption(ctx context.Context, obj runtime.Object) error {
	typed, ok := obj.(kindkit.Object)
	if !ok {
		return nil
	}
	k, ok := kinds.Of(typed)
	if !ok || k.PrepareAdoption == nil {
		return nil
	}
	patch := k.PrepareAdoption(typed)
	if patch == nil {
		return nil
	}
	ref, err := RefOf(obj)
	if err != nil {
		return err
	}
	ri, err := c.resourceFor(ref)
	if err != nil {
		return err
	}
	_, err = ri.Patch(ctx, ref.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: c.FieldManager})
	if err != nil && !apierrors.IsNotFound(err) {
		return c.explain(ref, "prepare adoption of", err)
	}
	return nil
}

// cachedKinds are the kinds whose reads and waits the watch cache serves:
// what gpu_workload creates (every workload kind, claims and claim
// templates, a distributed job's Service), all labelled as managed by the
// provider.
var cachedKinds = func() map[string]bool {
	cached := map[string]bool{"PersistentVolumeClaim": true, "ResourceClaimTemplate": true, "Service": true}
	for _, k := range kinds.All() {
		cached[k.GVK.Kind] = true
	}
	return cached
}()

// cached returns the watch cache for the object's resource and namespace.
func (c *Client) cached(ctx context.Context, ref ObjectRef) (*cacheEntry, bool) {
	name, ok := resources[ref.GVK]
	if !ok || !cachedKinds[ref.GVK.Kind] {
		return nil, false
	}
	return c.cache.entry(ctx, ref.GVK.GroupVersion().WithResource(name), ref.Namespace)
}

// Get reads an object; a missing object is (nil, nil). Objects the provider
// manages come from the watch cache (without managed fields); anything the
// cache does not hold is read from the server, so a miss is never taken on
// the cache's word.
func (c *Client) Get(ctx context.Context, ref ObjectRef) (*unstructured.Unstructured, error) {
	if e, ok := c.cached(ctx, ref); ok {
		if live := e.get(ref.Namespace, ref.Name); live != nil {
			return live, nil
		}
	}
	return c.GetFresh(ctx, ref)
}

// GetFresh reads an object from the server; a missing object is (nil, nil).
func (c *Client) GetFresh(ctx context.Context, ref ObjectRef) (*unstructured.Unstructured, error) {
	ri, err := c.resourceFor(ref)
	if err != nil {
		return nil, err
	}
	live, err := ri.Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, c.explain(ref, "get", err)
	}
	return live, nil
}

// Delete deletes an object with background propagation: the object goes at
// once and the garbage collector removes its dependents, a ReplicaSet or Job
// before the pods it owns. WaitGone then waits for the pods, which is what
// frees the GPUs. Foreground propagation (the object kept until every
// dependent is gone) gives the same end state through three more garbage
// collector round trips per object, which made destroy of 300 workloads
// about 45% slower (bench/README.md). A missing object is not an
// error.
// When uid is set the delete is conditional on it: an object re-created by
// someone else under the same name is never deleted.
func (c *Client) Delete(ctx context.Context, ref ObjectRef, uid types.UID) error {
	ri, err := c.resourceFor(ref)
	if err != nil {
		return err
	}
	policy := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &policy}
	if uid != "" {
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	err = ri.Delete(ctx, ref.Name, opts)
	if apierrors.IsNotFound(err) || (uid != "" && apierrors.IsConflict(err)) {
		return nil
	}
	if err != nil {
		return c.explain(ref, "delete", err)
	}
	return nil
}

// explain turns API errors into messages a Terraform user can act on.
func (c *Client) explain(ref ObjectRef, verb string, err error) error {
	var status apierrors.APIStatus
	switch {
	case apierrors.IsConflict(err) && len(managerConflicts(err)) > 0:
		return newConflictError(ref, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s %s was forbidden by the API server at %s: %w. Grant the provider's identity "+
			"this verb on this resource (see the RBAC guide)", verb, ref, c.Host, err)
	case apierrors.IsNotFound(err) && ref.Namespace != "" && strings.Contains(err.Error(), "namespaces"):
		// The provider never creates namespaces (a namespace outlives its
		// workloads and belongs to the team's configuration), so say how.
		return fmt.Errorf("%s %s: namespace %q does not exist: %w. Create it first, for example with a "+
			"kubernetes_namespace_v1 resource this workload depends on (namespace = kubernetes_namespace_v1.x.metadata[0].name), "+
			"or kubectl create namespace %s", verb, ref, ref.Namespace, err, ref.Namespace)
	case apierrors.IsNotFound(err) && verb == "apply" && strings.Contains(err.Error(), "could not find the requested resource"):
		// An apply creates missing objects, so a 404 means the kind itself
		// is not served: a custom resource whose CRD is not installed.
		return fmt.Errorf("%s %s: the cluster does not serve %s objects (%s); is its CRD installed? %w", verb, ref,
			ref.GVK.Kind, ref.GVK.GroupVersion(), err)
	case errors.As(err, &status):
		return fmt.Errorf("%s %s: %w", verb, ref, err)
	default:
		return fmt.Errorf("%s %s: cannot reach the Kubernetes API server at %s: %w", verb, ref, c.Host, err)
	}
}
