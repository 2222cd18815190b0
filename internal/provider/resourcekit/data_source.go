package resourcekit

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
)

// DataSourceSpec declares a data source by what sets it apart from the
// others: its name, its schema and how it fills its results. Decoding the
// configuration, handing over a cluster client and writing the state are
// the same for every data source, so NewDataSource does them once.
type DataSourceSpec[M any] struct {
	// TypeSuffix follows the provider's name, e.g. "_queue_usage".
	TypeSuffix string
	// Schema is the data source's schema; M is its model.
	Schema func() schema.Schema
	// NeedsCluster gives Read a client. Without one (the provider is not
	// configured, or its settings make no client) the read stops with an
	// error naming the data source.
	NeedsCluster bool
	// Read fills m's results; m holds the decoded configuration. m becomes
	// the state unless diags then hold an error.
	Read func(ctx context.Context, env ReadEnv, m *M, diags *diag.Diagnostics)
}

// ReadEnv is what a data source's read may use besides its configuration.
type ReadEnv struct {
	// Client is the cluster client; nil unless the spec NeedsCluster.
	Client *kube.Client
	// DefaultCloud is the provider's default_cloud ("" when unset).
	DefaultCloud string
}

// NewDataSource makes the data source spec declares.
func NewDataSource[M any](spec DataSourceSpec[M]) datasource.DataSource {
	return &dataSource[M]{spec: spec}
}

type dataSource[M any] struct {
	spec DataSourceSpec[M]
	data *Data
}

var _ datasource.DataSourceWithConfigure = &dataSource[struct{}]{}

func (d *dataSource[M]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + d.spec.TypeSuffix
}

func (d *dataSource[M]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.spec.Schema()
}

// Configure keeps what the provider's Configure handed over.
func (d *dataSource[M]) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if data := ConfigureFrom(req.ProviderData, &resp.Diagnostics); data != nil {
		d.data = data
	}
}

func (d *dataSource[M]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m M
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	env := ReadEnv{DefaultCloud: d.data.DefaultCloudName()}
	if d.spec.NeedsCluster {
		client, ok := d.client(&resp.Diagnostics)
		if !ok {
			return
		}
		env.Client = client
	}
	if d.spec.Read(ctx, env, &m, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// client is the cluster client; false, after an error naming the data
// source, before the provider is configured or when its cluster settings
// make no client.
func (d *dataSource[M]) client(diags *diag.Diagnostics) (*kube.Client, bool) {
	name := "gpu" + d.spec.TypeSuffix
	if d.data == nil {
		diags.AddError("Provider not configured", name+" needs the gpu provider's cluster settings.")
		return nil, false
	}
	return d.data.Client(name+" needs a cluster", diags)
}
