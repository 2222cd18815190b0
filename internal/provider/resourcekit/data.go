package resourcekit

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
)

// Data is what resources and data sources receive from Configure.
type Data struct {
	Kube         *kube.Lazy
	DefaultCloud string
	// KubernetesVersion is the provider's kubernetes_version ("" unset),
	// for planning without a reachable cluster (Kubernetes).
	KubernetesVersion string

	cluster clusterVersion
	// KueueVersion is the provider's kueue_version ("" when unset: the
	// cluster's is read when needed, see Kueue).
	KueueVersion string
	kueue        kueueRelease
}

// ConfigureFrom is the Configure step of every resource: the provider hands
// each one its providerData. Before the provider is configured (validation)
// there is none, and nil is returned without a diagnostic.
func ConfigureFrom(raw any, diags *diag.Diagnostics) *Data {
	if raw == nil {
		return nil
	}
	data, ok := raw.(*Data)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *resourcekit.Data, got %T: a provider bug, please report it", raw))
		return nil
	}
	return data
}

// Planned decodes ModifyPlan's plan into a model of type M; false when
// there is nothing to plan (a destroy, whose plan is null) or after an
// error.
func Planned[M any](ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) (M, bool) {
	if req.Plan.Raw.IsNull() {
		var none M
		return none, false
	}
	return Get[M](ctx, req.Plan, diags)
}

// PickCloud is the one rule for a resource's cloud, and the only place
// default_cloud applies: the configured cloud, else the one the resource's
// node pools give (fromPools, "" when none or they disagree), else the
// provider's default_cloud. An unknown configured cloud without pools stays
// "" (known at apply). defaulted says whether default_cloud decided.
func PickCloud(configured types.String, fromPools, DefaultCloudName string) (cloud string, defaulted bool) {
	switch {
	case configured.ValueString() != "":
		return configured.ValueString(), false
	case fromPools != "":
		return fromPools, false
	case configured.IsUnknown():
		return "", false
	default:
		return DefaultCloudName, DefaultCloudName != ""
	}
}

// Client is the cluster client; without one, an error of that summary and
// false.
func (d *Data) Client(summary string, diags *diag.Diagnostics) (*kube.Client, bool) {
	client, err := d.Kube.Client()
	if err != nil {
		diags.AddError(summary, err.Error())
		return nil, false
	}
	return client, true
}

// CheckCluster reports at plan what the apply would find only after other
// resources were created: connection settings that can never reach a
// cluster (a kubeconfig that cannot be read, a context it lacks), for a
// resource (what) that needs one to apply. Nothing is contacted. A
// provider with no cluster configured at all is left alone: planning
// offline (CI, GitOps review) is a supported way to use the provider, and
// its apply says what to set. Before the provider is configured
// (validation) it does nothing.
func (d *Data) CheckCluster(what string, diags *diag.Diagnostics) {
	if d == nil || !d.Kube.Configured() {
		return
	}
	if err := d.Kube.Check(); err != nil {
		diags.AddAttributeError(path.Root("apply"), "The provider cannot reach a cluster", what+" is applied to the "+
			"cluster, but "+err.Error()+". Allowed: fix the provider \"gpu\" block or its environment variables, "+
			"or set apply = false to only render the objects (their manifests are in manifests).")
	}
}

// WithTimeout bounds ctx by the timeouts block's value for an operation
// (timeout is e.g. plan.Timeouts.Create, def its default); false after an
// error. The caller defers cancel.
func WithTimeout(ctx context.Context, timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics),
	def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, bool) {
	limit, d := timeout(ctx, def)
	diags.Append(d...)
	if diags.HasError() {
		return ctx, func() {}, false
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	return ctx, cancel, true
}

// DefaultCloudName is the provider's default_cloud; "" before configuration.
func (d *Data) DefaultCloudName() string {
	if d == nil {
		return ""
	}
	return d.DefaultCloud
}

// New makes a resource of type T, which embeds Resource, named after the
// provider and typeSuffix, e.g. "_workload".
func New[T any, PT interface {
	*T
	named(typeSuffix string)
}](typeSuffix string) PT {
	v := PT(new(T))
	v.named(typeSuffix)
	return v
}

// Resource is embedded by every resource: Metadata names it after the
// provider and its type suffix, and Configure keeps the provider's Data (nil
// until the provider is configured, as during validation). A resource states
// only its suffix, in New, and what it does.
type Resource struct {
	typeSuffix string
	Data       *Data
}

func (r *Resource) named(typeSuffix string) { r.typeSuffix = typeSuffix }

// DefaultCloud is the provider's default_cloud; "" before configuration.
func (r *Resource) DefaultCloud() string { return r.Data.DefaultCloudName() }

// Metadata names the resource, e.g. gpu + "_workload".
func (r *Resource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.typeSuffix
}

// Configure keeps what the provider's Configure handed over.
func (r *Resource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if data := ConfigureFrom(req.ProviderData, &resp.Diagnostics); data != nil {
		r.Data = data
	}
}
