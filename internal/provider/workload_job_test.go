package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// renderOnly is a gpu_workload with apply = false: planned and stored like
// any other, without a cluster.
func renderOnly(kind, image string, extra ...string) string {
	return fmt.Sprintf(`
resource "gpu_workload" "w" {
  name      = "train"
  namespace = "ml"
  cloud     = "gke"
  kind      = %q
  image     = %q
  apply     = false
  %s
  gpu {
    count       = 1
    accelerator = "l4"
  }
}
`, kind, image, strings.Join(extra, "\n  "))
}

// A Job's pod template is immutable in Kubernetes: changing the image of a
// Job is planned as a replacement, and of a Deployment as an update
// (issue #12, finding 7).
func TestWorkload_jobTemplateChangeReplaces(t *testing.T) {
	clearClusterEnv(t)
	for kind, action := range map[string]plancheck.ResourceActionType{
		"job":        plancheck.ResourceActionDestroyBeforeCreate,
		"deployment": plancheck.ResourceActionUpdate,
	} {
		t.Run(kind, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{Config: renderOnly(kind, "registry.example/train:1")},
					{
						Config: renderOnly(kind, "registry.example/train:2"),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction("gpu_workload.w", action),
						}},
					},
					// Labels of the Job object, not of its pods, change in place.
					{
						Config: renderOnly(kind, "registry.example/train:2", `labels = { team = "a" }`),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction("gpu_workload.w", plancheck.ResourceActionUpdate),
						}},
					},
				},
			})
		})
	}
}

// On a real API server, changing a Job's pod template applies cleanly as a
// replacement; the in-place update it was planned as before was refused
// ("field is immutable").
func TestAccWorkload_jobTemplateChangeAppliesAsReplacement(t *testing.T) {
	ns := acctest.Namespace(t)
	config := func(value string) string {
		return acctest.ProviderBlock(t) + workloadConfig("j", "retrain", ns, "job",
			landingCase{cloud: "generic", accelerator: "h100-80gb", count: 1, extra: fmt.Sprintf(`
  env = { DATASET = %q }`, value)})
	}
	var firstUID string
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("v1"),
				Check: resource.TestCheckResourceAttrWith("gpu_workload.j", "uid", func(uid string) error {
					firstUID = uid
					return nil
				}),
			},
			{
				Config: config("v2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpu_workload.j", plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.TestCheckResourceAttrWith("gpu_workload.j", "uid", func(uid string) error {
					if uid == "" || uid == firstUID {
						return fmt.Errorf("the Job was not replaced: uid %q, before %q", uid, firstUID)
					}
					return nil
				}),
			},
		},
	})
}

// A Job still running (here: still Pending, no A30 node exists) when the
// create timeout ends is kept in state untainted, with a warning instead of
// an error, so the next plan leaves it alone instead of deleting and
// re-running it (issue #12, finding 6).
func TestAccWorkload_jobOutlivingTheWaitIsKept(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("j", "long-training", ns, "job",
		landingCase{cloud: "generic", accelerator: "a30", count: 1, extra: `
  timeouts {
    create = "5s"
  }`})
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrSet("gpu_workload.j", "uid"),
					resource.TestCheckResourceAttr("gpu_workload.j", "scheduled_nodes.#", "0"),
				),
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}

// imageFromTag is a render-only Job or Deployment whose image tag comes from
// another resource, so a new tag is unknown until apply.
func imageFromTag(kind, tag string) string {
	return fmt.Sprintf(`
resource "terraform_data" "tag" {
  input = %q
}
`, tag) + renderOnly(kind, "registry.example/train:${terraform_data.tag.output}")
}

// A pod template attribute that is unknown at plan time (an image tag from
// another resource) may change the template, so a Job is replaced as for a
// known change; before, the template could not be compared and the plan was
// an in-place update Kubernetes refuses.
func TestWorkload_jobTemplateUnknownAtPlanReplaces(t *testing.T) {
	clearClusterEnv(t)
	for kind, action := range map[string]plancheck.ResourceActionType{
		"job":        plancheck.ResourceActionDestroyBeforeCreate,
		"deployment": plancheck.ResourceActionUpdate,
	} {
		t.Run(kind, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{Config: imageFromTag(kind, "1")},
					{
						Config: imageFromTag(kind, "2"),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectUnknownValue("gpu_workload.w", tfjsonpath.New("image")),
							plancheck.ExpectResourceAction("gpu_workload.w", action),
						}},
					},
				},
			})
		})
	}
}

// spec.completions of a Job is immutable in Kubernetes too (batch/v1
// validation allows changing it only on Indexed Jobs, which gpu_workload does
// not create): changing job.completions replaces the Job on a real API
// server instead of failing the apply with "field is immutable".
func TestAccWorkload_jobCompletionsChangeAppliesAsReplacement(t *testing.T) {
	ns := acctest.Namespace(t)
	config := func(completions int) string {
		return acctest.ProviderBlock(t) + workloadConfig("j", "sweep", ns, "job",
			landingCase{cloud: "generic", accelerator: "h100-80gb", count: 1, extra: fmt.Sprintf(`
  job {
    completions = %d
  }`, completions)})
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(1)},
			{
				Config: config(2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpu_workload.j", plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
		},
	})
}

// job.completions is immutable on a NonIndexed Job and replaces it; a
// mutable Job setting (parallelism) and adding the job block without
// completions update in place.
func TestWorkload_jobCompletionsChangeReplaces(t *testing.T) {
	clearClusterEnv(t)
	jobBlock := func(settings string) string { return "job {\n    " + settings + "\n  }" }
	image := "registry.example/train:1"
	step := func(extra string, action plancheck.ResourceActionType) resource.TestStep {
		return resource.TestStep{
			Config: renderOnly("job", image, extra),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("gpu_workload.w", action),
			}},
		}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: renderOnly("job", image)},
			step(jobBlock("parallelism = 2"), plancheck.ResourceActionUpdate),
			step(jobBlock("parallelism = 2\n    completions = 4"), plancheck.ResourceActionDestroyBeforeCreate),
			step(jobBlock("parallelism = 1\n    completions = 4"), plancheck.ResourceActionUpdate),
			step(jobBlock("parallelism = 1\n    completions = 8"), plancheck.ResourceActionDestroyBeforeCreate),
		},
	})
}

// Moving a Job to another cloud changes its pod template (node selectors,
// tolerations), so a configured cloud change replaces it like any other.
func TestWorkload_jobCloudChangeReplaces(t *testing.T) {
	clearClusterEnv(t)
	onCloud := func(kind, cloud string) string {
		return strings.Replace(renderOnly(kind, "registry.example/train:1"), `cloud     = "gke"`, fmt.Sprintf("cloud     = %q", cloud), 1)
	}
	for kind, action := range map[string]plancheck.ResourceActionType{
		"job":        plancheck.ResourceActionDestroyBeforeCreate,
		"deployment": plancheck.ResourceActionUpdate,
	} {
		t.Run(kind, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{Config: onCloud(kind, "gke")},
					{
						Config: onCloud(kind, "generic"),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction("gpu_workload.w", action),
						}},
					},
				},
			})
		})
	}
}

// A Job whose cloud follows the provider's default_cloud is not replaced
// when only default_cloud changes: nobody asked to re-run it (the plan warns
// that Kubernetes will refuse the new template instead).
func TestWorkload_jobDefaultCloudChangeDoesNotReplace(t *testing.T) {
	clearClusterEnv(t)
	config := func(cloud string) string {
		job := strings.Replace(renderOnly("job", "registry.example/train:1"), "  cloud     = \"gke\"\n", "", 1)
		return fmt.Sprintf("provider \"gpu\" {\n  default_cloud = %q\n}\n", cloud) + job
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("gke")},
			{
				Config: config("generic"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("gpu_workload.w", tfjsonpath.New("cloud"), knownvalue.StringExact("generic")),
					plancheck.ExpectResourceAction("gpu_workload.w", plancheck.ResourceActionUpdate),
				}},
			},
		},
	})
}
