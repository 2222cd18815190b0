package gpuworkload_test

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

// A Job's pod template is immutable in Kubernetes: changing the image of a
// Job is planned as a replacement, and of a Deployment as an update
// (issue #12, finding 7).
func TestWorkload_jobTemplateChangeReplaces(t *testing.T) {
	acctest.ClearClusterEnv(t)
	for kind, action := range map[string]plancheck.ResourceActionType{
		"job":        plancheck.ResourceActionDestroyBeforeCreate,
		"deployment": plancheck.ResourceActionUpdate,
	} {
		t.Run(kind, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
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

// A pod template attribute that is unknown at plan time (an image tag from
// another resource) may change the template, so a Job is replaced as for a
// known change; before, the template could not be compared and the plan was
// an in-place update Kubernetes refuses.
func TestWorkload_jobTemplateUnknownAtPlanReplaces(t *testing.T) {
	acctest.ClearClusterEnv(t)
	for kind, action := range map[string]plancheck.ResourceActionType{
		"job":        plancheck.ResourceActionDestroyBeforeCreate,
		"deployment": plancheck.ResourceActionUpdate,
	} {
		t.Run(kind, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
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

// job.completions is immutable on a NonIndexed Job and replaces it; a
// mutable Job setting (parallelism) and adding the job block without
// completions update in place.
func TestWorkload_jobCompletionsChangeReplaces(t *testing.T) {
	acctest.ClearClusterEnv(t)
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
		ProtoV6ProviderFactories: factories,
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
	acctest.ClearClusterEnv(t)
	onCloud := func(kind, cloud string) string {
		return strings.Replace(renderOnly(kind, "registry.example/train:1"), `cloud     = "gke"`, fmt.Sprintf("cloud     = %q", cloud), 1)
	}
	for kind, action := range map[string]plancheck.ResourceActionType{
		"job":        plancheck.ResourceActionDestroyBeforeCreate,
		"deployment": plancheck.ResourceActionUpdate,
	} {
		t.Run(kind, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
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
	acctest.ClearClusterEnv(t)
	config := func(cloud string) string {
		job := strings.Replace(renderOnly("job", "registry.example/train:1"), "  cloud     = \"gke\"\n", "", 1)
		return fmt.Sprintf("provider \"gpu\" {\n  default_cloud = %q\n}\n", cloud) + job
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
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

// imageFromTag is a render-only Job or Deployment whose image tag comes from
// another resource, so a new tag is unknown until apply.
func imageFromTag(kind, tag string) string {
	return fmt.Sprintf(`
resource "terraform_data" "tag" {
  input = %q
}
`, tag) + renderOnly(kind, "registry.example/train:${terraform_data.tag.output}")
}
