package nodepoolpolicy_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

var (
	_ provider.Provider = &kubernetesStandIn{}
	_ resource.Resource = &deploymentStandIn{}
)

// The kubernetes_deployment_v1 example (on the resource's page and in the
// "GPU rules in any manifest" guide) plans, and the Deployment it
// plans carries the pool's whole placement: the node affinity (MIG
// exclusion included), the node selector and the tolerations. The
// kubernetes provider cannot be installed here, so a stand-in serves
// kubernetes_deployment_v1 with the blocks the example uses, named and
// nested as that resource's documentation lists them.
func TestKubernetesV1Affinity_deploymentExamplePlans(t *testing.T) {
	acctest.ClearClusterEnv(t)
	src, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), "examples", "resources", "gpu_node_pool_policy",
		"resource_kubernetes_deployment_v1.tf"))
	if err != nil {
		t.Fatal(err)
	}
	planned := map[string]map[string]any{}
	withKubernetes := map[string]func() (tfprotov6.ProviderServer, error){
		"gpu":        factories["gpu"],
		"kubernetes": providerserver.NewProtocol6WithError(&kubernetesStandIn{}),
	}
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: withKubernetes,
		Steps: []tfresource.TestStep{{
			Config:             string(src),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: tfresource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
				acctest.CapturePlanned{Address: "gpu_node_pool_policy.a100", Into: planned},
				acctest.CapturePlanned{Address: "kubernetes_deployment_v1.trainer", Into: planned},
			}},
		}},
	})
	pool := planned["gpu_node_pool_policy.a100"]
	podSpec := onlyBlock(t, onlyBlock(t, onlyBlock(t, planned["kubernetes_deployment_v1.trainer"], "spec"), "template"), "spec")

	want := acctest.APIAffinity(t, pool["affinity"])
	if !acctest.ExcludesLabel(want, spec.LabelMIGConfig) {
		t.Fatalf("the example's pool must need the MIG exclusion for this test to mean anything: %v", pool["affinity"])
	}
	got := acctest.AffinityFromV1Plain(t, onlyBlock(t, podSpec, "affinity"))
	// values is a set in kubernetes_deployment_v1: its order is Terraform's.
	acctest.AssertSameAffinity(t, sortedValues(want), sortedValues(got))

	if selector := plainStrings(t, pool["node_selector"]); len(selector) == 0 || !maps.Equal(plainStrings(t, podSpec["node_selector"]), selector) {
		t.Errorf("node_selector %v, pool's %v", podSpec["node_selector"], pool["node_selector"])
	}
	if got, want := tolerationFields(t, podSpec["toleration"]), tolerationFields(t, pool["tolerations"]); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("tolerations %v, pool's %v", got, want)
	}
}

func onlyBlock(t *testing.T, v any, name string) map[string]any {
	t.Helper()
	blocks := acctest.BlockList(t, v, name)
	if len(blocks) != 1 {
		t.Fatalf("%s: %d blocks, want 1", name, len(blocks))
	}
	return acctest.AsMap(t, blocks[0])
}

func plainStrings(t *testing.T, v any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, e := range acctest.AsMap(t, v) {
		s, ok := e.(string)
		if !ok {
			t.Fatalf("%s = %v is not a string", k, e)
		}
		out[k] = s
	}
	return out
}

// tolerationFields lists each toleration as "key operator value effect".
func tolerationFields(t *testing.T, v any) []string {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("tolerations %v are not a list", v)
	}
	var out []string
	for _, e := range list {
		m := acctest.AsMap(t, e)
		fields := make([]string, 0, 4)
		for _, name := range []string{"key", "operator", "value", "effect"} {
			value, _ := m[name].(string) // null and "" mean the same here
			fields = append(fields, value)
		}
		out = append(out, strings.Join(fields, " "))
	}
	return out
}

func sortedValues(a *corev1.Affinity) *corev1.Affinity {
	out := a.DeepCopy()
	sortTerm := func(term *corev1.NodeSelectorTerm) {
		for _, reqs := range [][]corev1.NodeSelectorRequirement{term.MatchExpressions, term.MatchFields} {
			for i := range reqs {
				slices.Sort(reqs[i].Values)
			}
		}
	}
	if out.NodeAffinity == nil {
		return out
	}
	if r := out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		for i := range r.NodeSelectorTerms {
			sortTerm(&r.NodeSelectorTerms[i])
		}
	}
	for i := range out.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		sortTerm(&out.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].Preference)
	}
	return out
}

// kubernetesStandIn is a provider named kubernetes with one resource,
// kubernetes_deployment_v1, reduced to the blocks the guide uses. Its
// schema is written from that resource's documentation (Block List,
// Max: 1 where it says so; values a set of strings), not from its code.
type kubernetesStandIn struct{}

func (p *kubernetesStandIn) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "kubernetes"
}

func (p *kubernetesStandIn) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {
}

func (p *kubernetesStandIn) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *kubernetesStandIn) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return &deploymentStandIn{} }}
}

func (p *kubernetesStandIn) DataSources(context.Context) []func() datasource.DataSource { return nil }

type deploymentStandIn struct{}

func (r *deploymentStandIn) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_deployment_v1"
}

func (r *deploymentStandIn) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	optional := func(names ...string) map[string]schema.Attribute {
		out := map[string]schema.Attribute{}
		for _, n := range names {
			out[n] = schema.StringAttribute{Optional: true}
		}
		return out
	}
	labels := map[string]schema.Attribute{"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType}}
	podSpec := map[string]schema.Block{
		"affinity":   standInBlock(1, nil, map[string]schema.Block{"node_affinity": standInNodeAffinity()}),
		"toleration": standInBlock(0, optional("key", "operator", "value", "effect", "toleration_seconds"), nil),
		"container": standInBlock(0, optional("name", "image"), map[string]schema.Block{
			"resources": standInBlock(1, map[string]schema.Attribute{
				"limits":   schema.MapAttribute{Optional: true, ElementType: types.StringType},
				"requests": schema.MapAttribute{Optional: true, ElementType: types.StringType},
			}, nil),
		}),
	}
	resp.Schema = schema.Schema{Blocks: map[string]schema.Block{
		"metadata": standInBlock(1, optional("name", "namespace"), nil),
		"spec": standInBlock(1, nil, map[string]schema.Block{
			"selector": standInBlock(1, map[string]schema.Attribute{
				"match_labels": schema.MapAttribute{Optional: true, ElementType: types.StringType},
			}, nil),
			"template": standInBlock(1, nil, map[string]schema.Block{
				"metadata": standInBlock(1, labels, nil),
				"spec": standInBlock(1, map[string]schema.Attribute{
					"node_selector": schema.MapAttribute{Optional: true, ElementType: types.StringType},
				}, podSpec),
			}),
		}),
	}}
}

func standInNodeAffinity() schema.ListNestedBlock {
	requirement := func() schema.ListNestedBlock {
		return standInBlock(0, map[string]schema.Attribute{
			"key":      schema.StringAttribute{Optional: true},
			"operator": schema.StringAttribute{Optional: true},
			"values":   schema.SetAttribute{Optional: true, ElementType: types.StringType},
		}, nil)
	}
	term := func(maxItems int) schema.ListNestedBlock {
		return standInBlock(maxItems, nil, map[string]schema.Block{"match_expressions": requirement(), "match_fields": requirement()})
	}
	return standInBlock(1, nil, map[string]schema.Block{
		"required_during_scheduling_ignored_during_execution": standInBlock(1, nil, map[string]schema.Block{
			"node_selector_term": term(0),
		}),
		"preferred_during_scheduling_ignored_during_execution": standInBlock(0, map[string]schema.Attribute{
			"weight": schema.Int64Attribute{Required: true},
		}, map[string]schema.Block{"preference": term(1)}),
	})
}

// standInBlock is a Block List, at most maxItems long when maxItems > 0.
func standInBlock(maxItems int, attrs map[string]schema.Attribute, blocks map[string]schema.Block) schema.ListNestedBlock {
	b := schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{Attributes: attrs, Blocks: blocks}}
	if maxItems > 0 {
		b.Validators = []validator.List{listvalidator.SizeAtMost(maxItems)}
	}
	return b
}

// The stand-in only plans; applying stores the plan.
func (r *deploymentStandIn) Create(_ context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *deploymentStandIn) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *deploymentStandIn) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *deploymentStandIn) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
