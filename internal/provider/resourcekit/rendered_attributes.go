package resourcekit

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
)

// RenderedAttributes are the attributes every RenderedModel has, embedded
// in the model (the codec reads an embedded struct's fields as the
// model's own): a resource that renders one namespaced object, with its
// companions, applies them unless apply is false, waits for them, may wait
// in a Kueue queue, and keeps what it applied.
type RenderedAttributes struct {
	// ID is `<namespace>/<name>` (NamespacedIDAttribute).
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	Namespace types.String `tfsdk:"namespace"`
	Cloud     types.String `tfsdk:"cloud"`
	// Queue is a gpu_queue's ref or a LocalQueue's name
	// (refs.QueueAttribute).
	Queue types.Dynamic `tfsdk:"queue"`
	// Apply false only renders.
	Apply              types.Bool     `tfsdk:"apply"`
	WaitFor            types.String   `tfsdk:"wait_for"`
	UnschedulableLimit types.String   `tfsdk:"unschedulable_timeout"`
	ForceConflicts     types.Bool     `tfsdk:"force_conflicts"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
	// UID is the main object's, once applied.
	UID types.String `tfsdk:"uid"`
	// Manifest is the rendered objects as one YAML stream, which the code
	// compares and parses (not an attribute); Manifests, one document per
	// object, is the one copy the state keeps (a second would double what
	// Terraform encodes after every resource, bench/README.md).
	// GetRendered joins it, every write splits it.
	Manifest  types.String `tfsdk:"-"`
	Manifests types.List   `tfsdk:"manifests"`
}

// Rendered is the shared steps' way to the attributes, promoted to every
// model that embeds them.
func (a *RenderedAttributes) Rendered() *RenderedAttributes { return a }

// NamespacedID is the id: `<namespace>/<name>`, unknown while either is.
func (a *RenderedAttributes) NamespacedID() types.String {
	if a.Name.IsUnknown() || a.Namespace.IsUnknown() {
		return types.StringUnknown()
	}
	return types.StringValue(a.Namespace.ValueString() + "/" + a.Name.ValueString())
}

// UnschedulableTimeout is how long the apply's wait goes on once the
// scheduler has refused a pod (unschedulable_timeout); the validator has
// checked the duration.
func (a *RenderedAttributes) UnschedulableTimeout() time.Duration {
	limit, err := time.ParseDuration(a.UnschedulableLimit.ValueString())
	if a.UnschedulableLimit.IsNull() || a.UnschedulableLimit.IsUnknown() || err != nil || limit < 0 {
		return kube.NoUnschedulableLimit
	}
	return limit
}

// ImportedAttributes are the RenderedAttributes an import restores from
// the spec annotation: what the configuration set (an empty waitFor or
// unschedulable, a false force, is unset), apply, which an applied object
// had, no timeouts block, and uid and the manifests unknown until the
// refresh that follows the import.
func ImportedAttributes(namespace, name string, cloud types.String, queue types.Dynamic, waitFor, unschedulable string,
	force bool) RenderedAttributes {
	a := RenderedAttributes{
		Name:               types.StringValue(name),
		Namespace:          types.StringValue(namespace),
		Cloud:              cloud,
		Queue:              queue,
		Apply:              types.BoolValue(true),
		WaitFor:            tfconv.NullableString(waitFor),
		UnschedulableLimit: tfconv.NullableString(unschedulable),
		ForceConflicts:     tfconv.NullableBool(force),
		Timeouts:           timeouts.Value{Object: types.ObjectNull(timeoutsAttrTypes)},
		UID:                types.StringUnknown(),
		Manifest:           types.StringUnknown(),
	}
	a.ID = a.NamespacedID()
	return a
}

// timeoutsAttrTypes are the attributes of TimeoutsBlock.
var timeoutsAttrTypes = map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType}
