// Package provider is the Terraform glue of terraform-provider-gpu: schemas,
// plan-time validation wiring and CRUD. GPU rules live in internal/render and
// every cluster call in internal/kube.
package provider

import (
	"context"
	_ "embed"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/clustercapacity"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuqueue"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuraycluster"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuworkload"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/nodepoolpolicy"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/operatorvalues"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/placement"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
)

var (
	_ provider.Provider                   = &GPUProvider{}
	_ provider.ProviderWithFunctions      = &GPUProvider{}
	_ provider.ProviderWithValidateConfig = &GPUProvider{}
)

// GPUProvider is the gpu provider.
type GPUProvider struct {
	version string
	// configured is what Configure handed to resources, kept because the
	// protocol layer's direct path configures the resources it serves
	// itself (the framework keeps its copy out of reach).
	configured atomic.Pointer[resourcekit.Data]
}

// ResourceData is what Configure handed to resources: nil before it ran.
// It makes the provider a protocol.Provider.
func (p *GPUProvider) ResourceData() any {
	if data := p.configured.Load(); data != nil {
		return data
	}
	return nil
}

// New returns a constructor for the provider, as providerserver expects.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &GPUProvider{version: version}
	}
}

// ValidateConfig checks the combinations of the provider block that
// client-go would refuse only when the first request is made, at apply.
// Single attributes are checked by their schema validators.
func (p *GPUProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	insecure := !m.Insecure.IsUnknown() && m.Insecure.ValueBool()
	if insecure && setNonEmpty(m.ClusterCACertificate) {
		resp.Diagnostics.AddAttributeError(path.Root("insecure"), "insecure together with cluster_ca_certificate",
			"client-go refuses a CA bundle together with insecure = true (\"specifying a root certificates file "+
				"with the insecure flag is not allowed\"). Allowed: keep cluster_ca_certificate and remove insecure, "+
				"which verifies the API server, or remove cluster_ca_certificate.")
	}
	if e, ok := m.exec(ctx); ok {
		checkExec(m, e, &resp.Diagnostics)
	}
}

// Metadata sets the provider's local name, the prefix of every type.
func (p *GPUProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "gpu"
	resp.Version = p.version
}

// providerDescription is the provider block's description (docs/index.md is
// written from templates/index.md.tmpl instead).
//
//go:embed provider.md
var providerDescription string

// Schema describes the provider block.
func (p *GPUProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: tfconv.MarkdownFile(providerDescription),
		Attributes: map[string]schema.Attribute{
			"host": schema.StringAttribute{
				MarkdownDescription: "The Kubernetes API server URL, e.g. `https://203.0.113.10:6443` (`https://` is " +
					"assumed without a scheme). Env: `KUBE_HOST`.",
				Optional:   true,
				Validators: []validator.String{tfconv.APIServerURL()},
			},
			"token": schema.StringAttribute{
				MarkdownDescription: "Bearer token for the API server. Env: `KUBE_TOKEN`.",
				Optional:            true,
				Sensitive:           true,
			},
			"cluster_ca_certificate": schema.StringAttribute{
				MarkdownDescription: "PEM-encoded CA bundle that signs the API server's certificate; conflicts with " +
					"`insecure = true`. Env: `KUBE_CLUSTER_CA_CERT_DATA`.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{tfconv.PEMCertificate("cluster_ca_certificate")},
			},
			"client_certificate": schema.StringAttribute{
				MarkdownDescription: "PEM-encoded client certificate for TLS client authentication. Env: `KUBE_CLIENT_CERT_DATA`.",
				Optional:            true,
				Sensitive:           true,
				Validators: []validator.String{
					stringvalidator.AlsoRequires(path.MatchRoot("client_key")),
					tfconv.PEMCertificate("client_certificate"),
				},
			},
			"client_key": schema.StringAttribute{
				MarkdownDescription: "PEM-encoded private key of `client_certificate`. Env: `KUBE_CLIENT_KEY_DATA`.",
				Optional:            true,
				Sensitive:           true,
				Validators: []validator.String{
					stringvalidator.AlsoRequires(path.MatchRoot("client_certificate")),
					tfconv.PEMPrivateKey("client_key"),
				},
			},
			"insecure": schema.BoolAttribute{
				MarkdownDescription: "Skip verification of the API server's TLS certificate. Off by default; " +
					"turning it on produces a warning, and together with `cluster_ca_certificate` an error. Env: `KUBE_INSECURE`.",
				Optional: true,
			},
			"config_path": schema.StringAttribute{
				MarkdownDescription: "Path to a kubeconfig file. Env: `KUBE_CONFIG_PATH`; when neither this, " +
					"`config_paths` nor `host` is set, `KUBECONFIG` is used.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("config_paths"))},
			},
			"config_paths": schema.ListAttribute{
				MarkdownDescription: "Kubeconfig files merged in order, like `KUBECONFIG`. Env: `KUBE_CONFIG_PATHS` " +
					"(separated by the OS path list separator).",
				Optional:    true,
				ElementType: types.StringType,
				// An empty list would silently skip KUBE_CONFIG_PATH(S) and
				// KUBECONFIG, and an empty path fails only at apply.
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1),
					listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1)),
				},
			},
			"config_context": schema.StringAttribute{
				MarkdownDescription: "Context of the kubeconfig to use instead of its current context. Env: `KUBE_CTX`.",
				Optional:            true,
			},
			"default_cloud": resourcekit.DefaultCloudAttribute("Cloud assumed by resources that do not set `cloud`. One of ", "."),
			"kubernetes_version": schema.StringAttribute{
				MarkdownDescription: "Kubernetes minor the cluster runs, one of " + tfconv.MarkdownList(kubever.Minors()) +
					", for planning when the cluster cannot be reached. Rules that depend on it (which DRA features are on " +
					"by default: a DRA pool's DeviceClass `extendedResourceName`, chart values on DRA pools) follow the " +
					"cluster's own version whenever it answers, with a warning if this setting differs; with neither, " +
					"they are judged as on `" + kubever.MinorOf(kubever.Floor) + "`, the most restrictive.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(kubever.Minors()...)},
			},
			"kueue_version": schema.StringAttribute{
				MarkdownDescription: "The Kueue release that runs the queues of `gpu_workload`s with `queue` set: one of " +
					tfconv.MarkdownList(kueuever.Supported()) + ", optionally with its patch (`v0.18.2`). Some of Kueue's " +
					"rules changed between releases (CEL selectors and device constraints in DRA claims, the DRA " +
					"integration's default), and plans judge queued workloads by this release. Unset, the provider reads " +
					"the cluster's (the Helm chart's `app.kubernetes.io/version` label on Kueue's CRDs, or the image tag of " +
					"Deployment `kueue-system/kueue-controller-manager`) when a rule needs it; when that says nothing, " +
					"the rules of `" + kueuever.Supported()[0] + "`, the most restrictive, apply, and the diagnostic says so.",
				Optional: true,
				Validators: []validator.String{stringvalidator.RegexMatches(kueuever.SettingPattern(),
					"must be a supported Kueue release: one of "+strings.Join(kueuever.Supported(), ", ")+
						", optionally with its patch (e.g. v0.18.2)")},
			},
			"field_manager": schema.StringAttribute{
				MarkdownDescription: "Server-side apply field manager name. Defaults to `" + kube.DefaultFieldManager + "`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthBetween(1, 128)},
			},
		},
		Blocks: map[string]schema.Block{
			"exec": schema.SingleNestedBlock{
				MarkdownDescription: "Credential plugin that prints an ExecCredential, e.g. `aws eks get-token` " +
					"or `gke-gcloud-auth-plugin`. It never prompts. Conflicts with `token` and `client_certificate`, " +
					"which client-go would use instead without running the plugin.",
				Attributes: map[string]schema.Attribute{
					"api_version": schema.StringAttribute{
						MarkdownDescription: "ExecCredential API version: one of " + tfconv.MarkdownList(execAPIVersions) +
							". Defaults to `" + kube.DefaultExecAPIVersion + "`.",
						Optional:   true,
						Validators: []validator.String{stringvalidator.OneOf(execAPIVersions...)},
					},
					"command": schema.StringAttribute{
						MarkdownDescription: "Command to run; required in the block.",
						Optional:            true,
					},
					// Nulls are refused here: Configure could only fail on
					// them with a framework error that blames the provider.
					"args": schema.ListAttribute{
						MarkdownDescription: "Arguments of the command.",
						Optional:            true,
						ElementType:         types.StringType,
					},
					"env": schema.MapAttribute{
						MarkdownDescription: "Extra environment variables for the command.",
						Optional:            true,
						ElementType:         types.StringType,
					},
				},
			},
		},
	}
}

// Configure resolves the configuration but connects to nothing: the client
// is built on first use by apply, read or delete.
func (p *GPUProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg, diags := resolveKubeConfig(ctx, model, p.version)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if cfg.Insecure {
		resp.Diagnostics.AddAttributeWarning(path.Root("insecure"), "TLS verification is disabled",
			"insecure = true (or KUBE_INSECURE) skips verification of the API server certificate: anyone on the "+
				"network path can read credentials and workloads. Set cluster_ca_certificate instead.")
	}
	data := &resourcekit.Data{
		Kube:              kube.NewLazy(cfg),
		DefaultCloud:      model.DefaultCloud.ValueString(),
		KubernetesVersion: model.KubernetesVersion.ValueString(),
		KueueVersion:      model.KueueVersion.ValueString(),
	}
	resp.ResourceData = data
	resp.DataSourceData = data
	p.configured.Store(data)
}

// Resources lists the provider's resources.
func (p *GPUProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		gpuworkload.NewResource,
		gpuraycluster.NewResource,
		nodepoolpolicy.NewResource,
		gpuqueue.NewResource,
		operatorvalues.NewResource,
	}
}

// DataSources lists the provider's data sources.
func (p *GPUProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		clustercapacity.NewAcceleratorsDataSource,
		clustercapacity.NewClusterCapacityDataSource,
		gpuqueue.NewUsageDataSource,
		placement.NewPodPlacementDataSource,
	}
}

// Functions lists the provider's functions (Terraform 1.8 and later).
func (p *GPUProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		placement.NewPodPlacementFunction,
		placement.NewPodTemplateFunction,
	}
}
