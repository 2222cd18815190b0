package provider

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// offline drops examples that read the cluster while planning.
func offline(files []string) []string {
	var out []string
	for _, f := range files {
		if name := filepath.Base(filepath.Dir(f)); name != "gpu_cluster_capacity" && name != "gpu_queue_usage" {
			out = append(out, f)
		}
	}
	return out
}

// Every resource and data source example must plan cleanly: the schema accepts it and every
// plan-time GPU rule passes. Planning needs no cluster, so none is
// configured.
func TestExamples_plan(t *testing.T) {
	clearClusterEnv(t)
	root := acctest.RepoRoot(t)
	resources, _ := filepath.Glob(filepath.Join(root, "examples", "resources", "*", "resource.tf"))
	dataSources, _ := filepath.Glob(filepath.Join(root, "examples", "data-sources", "*", "data-source.tf"))
	files := append(resources, offline(dataSources)...)
	if len(resources) == 0 || len(dataSources) == 0 {
		t.Fatalf("examples not found under %s/examples", root)
	}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:             string(src),
					PlanOnly:           true,
					ExpectNonEmptyPlan: true, // resources to create, outputs to record
				}},
			})
		})
	}
}

// The quickstart `make demo` applies runs for real against the test cluster:
// every workload lands on its cloud's simulated pool.
func TestAccExamples_quickstartApplies(t *testing.T) {
	ns := acctest.Namespace(t)
	body := exampleBody(t, "quickstart")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:          body,
			ConfigVariables: clusterVariables(t, ns, nil),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestMatchResourceAttr("gpu_workload.gke_inference", "scheduled_nodes.0", regexp.MustCompile(`^gke-a100-\d$`)),
				resource.TestMatchResourceAttr("gpu_workload.gke_batch_on_pool", "scheduled_nodes.0", regexp.MustCompile(`^gke-a100-\d$`)),
				resource.TestMatchResourceAttr("gpu_workload.aks_training", "scheduled_nodes.0", regexp.MustCompile(`^aks-nc24adsa100-\d$`)),
				resource.TestMatchResourceAttr("gpu_workload.eks_batch", "scheduled_nodes.0", regexp.MustCompile(`^eks-g5-\d$`)),
			),
		}},
	})
}

// The provider connection example plans with its variables set and no
// cluster: the block is validated without connecting. (The getting-started
// example beside it is applied by TestAccGettingStarted_appliesAsAUser.)
func TestExamples_providerPlans(t *testing.T) {
	clearClusterEnv(t)
	src, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), "examples", "provider", "connect", "provider.tf"))
	if err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: string(src) + `
resource "gpu_workload" "offline" {
  name      = "offline"
  namespace = "default"
  image     = "registry.invalid/cuda:12"
  apply     = false
  gpu {
    count       = 1
    accelerator = "a100-40gb"
  }
}
`,
			ConfigVariables: config.Variables{
				"cluster_endpoint": config.StringVariable("https://203.0.113.10"),
				"cluster_ca":       config.StringVariable("LS0tLS1CRUdJTg=="),
				"cluster_name":     config.StringVariable("ml"),
			},
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// kubernetesManifest matches the kubernetes_manifest resources the function
// examples feed; the test turns each into an output with the same value,
// since the kubernetes provider is not installed here.
var kubernetesManifest = regexp.MustCompile(`resource "kubernetes_manifest" "(\w+)" \{\n  manifest =`)

// The function examples evaluate: each call in them passes the same rules
// gpu_workload applies, with no cluster (Terraform 1.8+).
func TestExamples_functionsEvaluate(t *testing.T) {
	clearClusterEnv(t)
	files, _ := filepath.Glob(filepath.Join(acctest.RepoRoot(t), "examples", "functions", "*", "function.tf"))
	if len(files) == 0 {
		t.Fatal("no function examples under examples/functions")
	}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			body := kubernetesManifest.ReplaceAllString(string(src), "output \"$1\" {\n  value =")
			if body == string(src) {
				t.Fatalf("%s feeds no kubernetes_manifest: the test would check nothing", f)
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				TerraformVersionChecks:   acctest.FunctionsVersion,
				Steps: []resource.TestStep{{
					Config:             body,
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
				}},
			})
		})
	}
}

// The DRA guide's example plans cleanly with no cluster: a DRA pool, a
// workload on it, a queue over it and a workload whose claim is derived
// from a preference list, a minimum memory and a PCIe root.
func TestExamples_draGuidePlans(t *testing.T) {
	clearClusterEnv(t)
	src, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), "examples", "guides", "dra", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:             string(src),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// The DRA part of make demo applies for real: the pool's class is created
// and the workload's pod runs on a dra-h100 node with its claim allocated.
func TestAccExamples_draApplies(t *testing.T) {
	ns := acctest.Namespace(t)
	body := exampleBody(t, "dra")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: body,
			// The class is cluster-wide: one pool name per test.
			ConfigVariables: clusterVariables(t, ns, config.Variables{"pool_name": config.StringVariable(ns)}),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestMatchResourceAttr("gpu_workload.llm", "scheduled_nodes.0", regexp.MustCompile(`^dra-h100-\d$`)),
				checkAllocated(t, ns, "llm-dra", 2, "an H100", productIs("NVIDIA H100 80GB HBM3")),
			),
		}},
	})
}

// The topology part of make demo applies for real: the Job's 4 pods land in
// one block of the GKE topology pool. Not parallel: the pool's flavor is
// the fixture's node pool name, which the topology tests share.
func TestAccExamples_topologyApplies(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	body := exampleBody(t, "topology")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:          body,
			ConfigVariables: clusterVariables(t, ns, nil),
			Check: func(*terraform.State) error {
				if domains := podDomains(t, ns, "app.kubernetes.io/name=pretrain", 4); len(domains) != 1 {
					return fmt.Errorf("the 4 pods are in blocks %v, want one", domains)
				}
				return nil
			},
		}},
	})
}

// exampleBody is examples/<dir>/main.tf without its terraform block: the
// test harness serves the provider itself, and the source address in
// required_providers is for real installations.
func exampleBody(t *testing.T, dir string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), "examples", dir, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`(?s)^.*?terraform \{.*?\n\}\n`).ReplaceAllString(string(src), "")
}

// clusterVariables are the variables every example applied to the test
// cluster takes (its kubeconfig and a namespace), plus the example's own.
func clusterVariables(t *testing.T, ns string, more config.Variables) config.Variables {
	vars := config.Variables{
		"kubeconfig": config.StringVariable(acctest.Kubeconfig(t)),
		"namespace":  config.StringVariable(ns),
	}
	maps.Copy(vars, more)
	return vars
}
