package protocol

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// schemaIndex finds the schemas by type name, built once per server.
type schemaIndex struct {
	p    fwprovider.Provider
	once sync.Once

	providerSchema typedSchema
	resources      map[string]typedSchema
	dataSources    map[string]typedSchema
	// direct are the resources the direct path serves; refused says why it
	// serves the others not.
	direct  map[string]*directResource
	refused map[string]error
}

func newSchemaIndex(p fwprovider.Provider) *schemaIndex { return &schemaIndex{p: p} }

func (x *schemaIndex) load(ctx context.Context) {
	x.once.Do(func() {
		var meta fwprovider.MetadataResponse
		x.p.Metadata(ctx, fwprovider.MetadataRequest{}, &meta)
		var ps fwprovider.SchemaResponse
		x.p.Schema(ctx, fwprovider.SchemaRequest{}, &ps)
		x.providerSchema = ps.Schema
		x.resources, x.dataSources = map[string]typedSchema{}, map[string]typedSchema{}
		x.direct, x.refused = map[string]*directResource{}, map[string]error{}
		for _, newResource := range x.p.Resources(ctx) {
			r := newResource()
			var m resource.MetadataResponse
			r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: meta.TypeName}, &m)
			var s resource.SchemaResponse
			r.Schema(ctx, resource.SchemaRequest{}, &s)
			x.resources[m.TypeName] = s.Schema
			if direct, err := newDirectResource(ctx, r, s.Schema, newResource); err != nil {
				x.refused[m.TypeName] = err
			} else {
				x.direct[m.TypeName] = direct
			}
		}
		for _, newDataSource := range x.p.DataSources(ctx) {
			d := newDataSource()
			var m datasource.MetadataResponse
			d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: meta.TypeName}, &m)
			var s datasource.SchemaResponse
			d.Schema(ctx, datasource.SchemaRequest{}, &s)
			x.dataSources[m.TypeName] = s.Schema
		}
	})
}

func (x *schemaIndex) provider(ctx context.Context) typedSchema {
	x.load(ctx)
	return x.providerSchema
}

func (x *schemaIndex) resource(ctx context.Context, typeName string) typedSchema {
	x.load(ctx)
	return x.resources[typeName]
}

// directResource is the direct planner of a resource type, nil when the
// framework plans it.
func (x *schemaIndex) directResource(ctx context.Context, typeName string) *directResource {
	x.load(ctx)
	return x.direct[typeName]
}

func (x *schemaIndex) dataSource(ctx context.Context, typeName string) typedSchema {
	x.load(ctx)
	return x.dataSources[typeName]
}
