package provider

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// The framework finds optional methods by type assertion, so a method with
// a signature of its own would be skipped without a word. This table is what
// each resource and data source serves besides Metadata, Schema and the CRUD
// methods; the types state none of it again.
var wantOptional = map[string][]string{
	"gpu_workload":         {"Configure", "ImportState", "ModifyPlan", "UpgradeState", "ValidateConfig"},
	"gpu_node_pool_policy": {"Configure", "ModifyPlan", "UpgradeState", "ValidateConfig"},
	"gpu_queue":            {"Configure", "ImportState", "ModifyPlan", "UpgradeState", "ValidateConfig"},
	"gpu_operator_values":  {"Configure", "ModifyPlan", "UpgradeState", "ValidateConfig"},
	"gpu_ray_cluster":      {"Configure", "ImportState", "ModifyPlan", "ValidateConfig"},
	"gpu_accelerators":     {"Configure"},
	"gpu_cluster_capacity": {"Configure"},
	"gpu_queue_usage":      {"Configure"},
	"gpu_pod_placement":    {"Configure"},
}

func TestResourcesServeTheirOptionalMethods(t *testing.T) {
	p := &GPUProvider{}
	var served = map[string][]string{}
	for _, newResource := range p.Resources(context.Background()) {
		r := newResource()
		served[resourceTypeName(r)] = resourceOptionalMethods(r)
	}
	for _, newDataSource := range p.DataSources(context.Background()) {
		d := newDataSource()
		served[dataSourceTypeName(d)] = dataSourceOptionalMethods(d)
	}
	for name, want := range wantOptional {
		if got := served[name]; !slices.Equal(got, want) {
			t.Errorf("%s serves %v, want %v", name, got, want)
		}
	}
	if len(served) != len(wantOptional) {
		t.Errorf("serving %d resources and data sources, the table lists %d", len(served), len(wantOptional))
	}
}

func resourceTypeName(r resource.Resource) string {
	var resp resource.MetadataResponse
	r.Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: "gpu"}, &resp)
	return resp.TypeName
}

func dataSourceTypeName(d datasource.DataSource) string {
	var resp datasource.MetadataResponse
	d.Metadata(context.Background(), datasource.MetadataRequest{ProviderTypeName: "gpu"}, &resp)
	return resp.TypeName
}

func resourceOptionalMethods(r resource.Resource) []string {
	return servedOf(map[string]bool{
		"Configure":        implements[resource.ResourceWithConfigure](r),
		"ConfigValidators": implements[resource.ResourceWithConfigValidators](r),
		"ImportState":      implements[resource.ResourceWithImportState](r),
		"ModifyPlan":       implements[resource.ResourceWithModifyPlan](r),
		"MoveState":        implements[resource.ResourceWithMoveState](r),
		"UpgradeState":     implements[resource.ResourceWithUpgradeState](r),
		"ValidateConfig":   implements[resource.ResourceWithValidateConfig](r),
	})
}

func dataSourceOptionalMethods(d datasource.DataSource) []string {
	return servedOf(map[string]bool{
		"Configure":        implements[datasource.DataSourceWithConfigure](d),
		"ConfigValidators": implements[datasource.DataSourceWithConfigValidators](d),
		"ValidateConfig":   implements[datasource.DataSourceWithValidateConfig](d),
	})
}

func implements[I any](v any) bool {
	_, ok := v.(I)
	return ok
}

// servedOf lists the methods served, sorted.
func servedOf(methods map[string]bool) []string {
	var out []string
	for name, ok := range methods {
		if ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
