package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// landingCase is one workload and the fixture pool it must land on.
type landingCase struct {
	cloud, accelerator string
	count              int
	extra              string
	pool               string // regexp of node names
}

// workloadConfig renders one gpu_workload block. A short create timeout
// keeps a test that cannot schedule from waiting the default 20 minutes.
func workloadConfig(label, name, ns, kind string, c landingCase) string {
	if !strings.Contains(c.extra, "timeouts") {
		c.extra += "\n  timeouts {\n    create = \"2m\"\n  }"
	}
	return fmt.Sprintf(`
resource "gpu_workload" %q {
  name      = %q
  namespace = %q
  kind      = %q
  cloud     = %q
  image     = "registry.invalid/cuda:12"
  gpu {
    count       = %d
    accelerator = %q
  }
  %s
}
`, label, name, ns, kind, c.cloud, c.count, c.accelerator, c.extra)
}

// For every cloud, a 1-GPU Deployment and a multi-GPU Job land on that
// cloud's GPU pool (never the CPU pool), and a second plan is empty.
func TestAccWorkload_landsOnEveryCloudsPool(t *testing.T) {
	cases := map[string][2]landingCase{
		"gke": {
			{cloud: "gke", accelerator: "a100-40gb", count: 1, pool: `^gke-a100-\d$`},
			{cloud: "gke", accelerator: "a100-40gb", count: 4, pool: `^gke-a100-\d$`},
		},
		"gke-autopilot": {
			{cloud: "gke-autopilot", accelerator: "l4", count: 1, pool: `^autopilot-l4-[01]$`},
			{cloud: "gke-autopilot", accelerator: "l4", count: 2, pool: `^autopilot-l4-2$`},
		},
		"aks": {
			{cloud: "aks", accelerator: "a100-80gb", count: 1, pool: `^aks-nc24adsa100-\d$`},
			{cloud: "aks", accelerator: "v100-16gb", count: 4, pool: `^aks-nc24sv3-0$`},
		},
		"eks": {
			{cloud: "eks", accelerator: "a10g", count: 1, pool: `^eks-g5-\d$`},
			{cloud: "eks", accelerator: "a100-40gb", count: 8, extra: "spot = true", pool: `^eks-p4d-0$`},
		},
		"eks-auto": {
			{cloud: "eks-auto", accelerator: "l40s", count: 1, pool: `^eksauto-l40s-\d$`},
			{cloud: "eks-auto", accelerator: "l40s", count: 4, pool: `^eksauto-l40s-\d$`},
		},
		"karpenter": {
			{cloud: "karpenter", accelerator: "l4", count: 1, pool: `^karpenter-g6-\d$`},
			// 2 of the spot node's 4 GPUs: the 1-GPU Deployment may land there too.
			{cloud: "karpenter", accelerator: "l4", count: 2, extra: "spot = true", pool: `^karpenter-g6-2$`},
		},
		"generic": {
			{cloud: "generic", accelerator: "h100-80gb", count: 1, pool: `^generic-h100-\d$`},
			{cloud: "generic", accelerator: "h100-80gb", count: 8, pool: `^generic-h100-\d$`},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ns := acctest.Namespace(t)
			config := acctest.ProviderBlock(t) +
				workloadConfig("serve", "serve", ns, "deployment", c[0]) +
				workloadConfig("train", "train", ns, "job", c[1])
			resource.ParallelTest(t, resource.TestCase{
				PreCheck:                 func() { acctest.PreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             checkDeploymentGone(t, ns, "serve"),
				Steps: []resource.TestStep{
					{
						Config: config,
						Check: resource.ComposeAggregateTestCheckFunc(
							resource.TestMatchResourceAttr("gpu_workload.serve", "scheduled_nodes.0", regexp.MustCompile(c[0].pool)),
							resource.TestMatchResourceAttr("gpu_workload.train", "scheduled_nodes.0", regexp.MustCompile(c[1].pool)),
							resource.TestCheckResourceAttr("gpu_workload.serve", "resource_name", "nvidia.com/gpu"),
							checkPodsOnPool(t, ns, "app.kubernetes.io/name=serve", c[0].pool),
							checkPodsOnPool(t, ns, "batch.kubernetes.io/job-name=train", c[1].pool),
						),
					},
					{
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
					},
				},
			})
		})
	}
}

func TestAccWorkload_migPartitionLandsOnPartitionedPool(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_workload" "gke" {
  name      = "gke-mig"
  namespace = %[1]q
  cloud     = "gke"
  image     = "registry.invalid/cuda:12"
  gpu {
    count       = 1
    accelerator = "a100-40gb"
    partition   = "2g.10gb"
  }
}

resource "gpu_workload" "mixed" {
  name      = "mixed-mig"
  namespace = %[1]q
  cloud     = "generic"
  image     = "registry.invalid/cuda:12"
  gpu {
    count        = 2
    accelerator  = "a100-40gb"
    partition    = "1g.5gb"
    mig_strategy = "mixed"
  }
}
`, ns)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("gpu_workload.gke", "scheduled_nodes.0", "gke-a100-mig-0"),
				resource.TestCheckResourceAttr("gpu_workload.gke", "node_selector.cloud.google.com/gke-gpu-partition-size", "2g.10gb"),
				resource.TestCheckResourceAttr("gpu_workload.mixed", "scheduled_nodes.0", "generic-a100-mig-mixed-0"),
				resource.TestCheckResourceAttr("gpu_workload.mixed", "resource_name", "nvidia.com/mig-1g.5gb"),
			),
		}},
	})
}

func TestAccWorkload_timeSharedLandsOnSharingPool(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_workload" "gke" {
  name      = "gke-shared"
  namespace = %[1]q
  cloud     = "gke"
  image     = "registry.invalid/cuda:12"
  replicas  = 3
  gpu {
    count              = 1
    accelerator        = "l4"
    sharing            = "time-slicing"
    max_shared_clients = 4
  }
}

resource "gpu_workload" "generic" {
  name      = "t4-shared"
  namespace = %[1]q
  cloud     = "generic"
  image     = "registry.invalid/cuda:12"
  gpu {
    count       = 1
    accelerator = "t4"
    sharing     = "time-slicing"
  }
}
`, ns)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("gpu_workload.gke", "scheduled_nodes.#", "1"),
				resource.TestCheckResourceAttr("gpu_workload.gke", "scheduled_nodes.0", "gke-l4-shared-0"),
				resource.TestCheckResourceAttr("gpu_workload.generic", "scheduled_nodes.0", "generic-t4-timeslice-0"),
				resource.TestCheckResourceAttr("gpu_workload.generic", "resource_name", "nvidia.com/gpu.shared"),
			),
		}},
	})
}

// Asking for more GPUs than any node has fails inside the timeout with the
// scheduler's own reason and what the workload asked for.
func TestAccWorkload_unschedulableFailsWithSchedulerReason(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("big", "too-big", ns, "deployment",
		landingCase{cloud: "gke", accelerator: "a100-40gb", count: 16, extra: `
  timeouts {
    create = "8s"
  }`})
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ExpectError: regexp.MustCompile(`(?s)did not become ready.*Unschedulable.*Insufficient nvidia.com/gpu` +
				`.*GPU pools in the cluster:.*gke/a100-pool: labels and taints match, but at most 8 nvidia.com/gpu are free on one node and each pod asks for 16` +
				`.*This workload asked for:.*resource: nvidia.com/gpu.*cloud.google.com/gke-accelerator=nvidia-tesla-a100`),
		}},
	})
}

// With unschedulable_timeout the apply gives up that long after the
// scheduler's first refusal, long before its 2-minute timeout, with the same
// explanation and the limit that ended the wait. "0s" ends at the verdict;
// "3s" must wake on its own, as no event follows the refusal.
func TestAccWorkload_unschedulableTimeoutGivesUpAtTheVerdict(t *testing.T) {
	for _, limit := range []string{"0s", "3s"} {
		t.Run(limit, func(t *testing.T) {
			ns := acctest.Namespace(t)
			config := acctest.ProviderBlock(t) + workloadConfig("big", "refused", ns, "deployment",
				landingCase{cloud: "gke", accelerator: "a100-40gb", count: 16, extra: `unschedulable_timeout = "` + limit + `"`})
			resource.ParallelTest(t, resource.TestCase{
				PreCheck:                 func() { acctest.PreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: config,
					ExpectError: regexp.MustCompile(`(?s)was not ready \(wait_for = "rollout"\):\s+the\s+scheduler\s+has\s+refused\s+a\s+pod\s+for\s+` +
						limit + `\s+\(unschedulable_timeout\)` +
						`.*Unschedulable.*Insufficient nvidia.com/gpu` +
						`.*GPU pools in the cluster:.*gke/a100-pool: labels and taints match, but at most 8 nvidia.com/gpu are free on one node and each pod asks for 16` +
						`.*raise\s+unschedulable_timeout`),
				}},
			})
		})
	}
}

// Drift made with imperative edits (as kubectl edit does) shows in the next
// plan and the apply sets it back.
func TestAccWorkload_driftIsDetectedAndRepaired(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("w", "drifty", ns, "deployment",
		landingCase{cloud: "aks", accelerator: "a100-80gb", count: 1})
	cs := acctest.Client(t)
	edits := map[string]func(*corev1.PodSpec){
		"image": func(p *corev1.PodSpec) { p.Containers[0].Image = "registry.invalid/other:1" },
		"gpu count": func(p *corev1.PodSpec) {
			p.Containers[0].Resources.Limits["nvidia.com/gpu"] = k8sresource.MustParse("2")
			p.Containers[0].Resources.Requests["nvidia.com/gpu"] = k8sresource.MustParse("2")
		},
		"tolerations": func(p *corev1.PodSpec) { p.Tolerations = nil },
	}
	steps := []resource.TestStep{{Config: config}}
	for what, edit := range edits {
		steps = append(steps,
			resource.TestStep{
				PreConfig:          func() { editDeployment(t, cs, ns, "drifty", edit) },
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			resource.TestStep{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gpu_workload.w", plancheck.ResourceActionUpdate)},
				},
				Check: checkLiveDeployment(t, ns, "drifty", what, func(p corev1.PodSpec) bool {
					gpus := p.Containers[0].Resources.Limits["nvidia.com/gpu"]
					return p.Containers[0].Image == "registry.invalid/cuda:12" && gpus.Value() == 1 && len(p.Tolerations) == 1
				}),
			})
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    steps,
	})
}

func TestAccWorkload_deletedOutOfBandIsRecreated(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("w", "ephemeral", ns, "deployment",
		landingCase{cloud: "eks", accelerator: "a10g", count: 1})
	cs := acctest.Client(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					if err := cs.AppsV1().Deployments(ns).Delete(ctx, "ephemeral", metav1.DeleteOptions{}); err != nil {
						t.Fatalf("deleting out of band: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gpu_workload.w", plancheck.ResourceActionCreate)},
				},
				Check: resource.TestMatchResourceAttr("gpu_workload.w", "scheduled_nodes.0", regexp.MustCompile(`^eks-g5-\d$`)),
			},
		},
	})
}

func TestAccWorkload_importRoundTrips(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_workload" "w" {
  name      = "imported"
  namespace = %q
  cloud     = "gke"
  image     = "registry.invalid/cuda:12"
  env       = { MODEL = "llama" }
  shm_size  = "4Gi"
  secret_env = {
    HF_TOKEN = { name = "hf", key = "token" }
  }
  gpu {
    count        = 1
    accelerators = ["a100-80gb", "a100-40gb"]
  }
  readiness_probe {
    http_path = "/ready"
    port      = 8080
  }
}
`, ns)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		// Import blocks arrived in Terraform 1.5.
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_5_0)},
		Steps: []resource.TestStep{
			{
				Config: config,
				// Secret values never reach the manifest or the state: only the reference.
				Check: acctest.ManifestMatches("gpu_workload.w", regexp.MustCompile(`- name: HF_TOKEN\n\s+valueFrom:\n\s+secretKeyRef:\n\s+key: token\n\s+name: hf\n`)),
			},
			{
				ResourceName:      "gpu_workload.w",
				ImportState:       true,
				ImportStateId:     ns + "/imported",
				ImportStateVerify: true,
				Config:            config,
			},
			{
				ResourceName:    "gpu_workload.w",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   ns + "/imported",
				Config:          config,
			},
		},
	})
}

func TestAccWorkload_importMissingWorkload(t *testing.T) {
	ns := acctest.Namespace(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderBlock(t) + workloadConfig("w", "foreign", ns, "deployment",
				landingCase{cloud: "gke", accelerator: "a100-40gb", count: 1}),
			ResourceName:  "gpu_workload.w",
			ImportState:   true,
			ImportStateId: ns + "/foreign",
			ExpectError:   regexp.MustCompile(`No Deployment, StatefulSet, Job or CronJob .*/foreign exists`),
		}},
	})
}

// apply = false renders without any cluster: the GitOps mode.
func TestAccWorkload_renderOnlyWithoutCluster(t *testing.T) {
	clearClusterEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: smallWorkload("default", "apply = false"),
			Check: resource.ComposeAggregateTestCheckFunc(
				acctest.ManifestMatches("gpu_workload.test", regexp.MustCompile(`kind: Deployment`)),
				acctest.ManifestMatches("gpu_workload.test", regexp.MustCompile(`nvidia.com/gpu: "1"`)),
				resource.TestCheckResourceAttr("gpu_workload.test", "resource_name", "nvidia.com/gpu"),
				resource.TestCheckResourceAttr("gpu_workload.test", "uid", ""),
			),
		}},
	})
}

func editDeployment(t *testing.T, cs kubernetes.Interface, ns, name string, edit func(*corev1.PodSpec)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading deployment: %v", err)
	}
	edit(&d.Spec.Template.Spec)
	if _, err := cs.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatalf("editing deployment like kubectl edit: %v", err)
	}
}

func checkLiveDeployment(t *testing.T, ns, name, what string, ok func(corev1.PodSpec) bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		d, err := acctest.Client(t).AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !ok(d.Spec.Template.Spec) {
			return fmt.Errorf("after repairing %s drift the live pod spec is still wrong: %+v", what, d.Spec.Template.Spec)
		}
		return nil
	}
}

// checkPodsOnPool asserts, through client-go, that every selected pod runs
// on a node whose name matches the pool.
func checkPodsOnPool(t *testing.T, ns, selector, pool string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		pods, err := acctest.Client(t).CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return err
		}
		if len(pods.Items) == 0 {
			return fmt.Errorf("no pods match %s", selector)
		}
		re := regexp.MustCompile(pool)
		for _, p := range pods.Items {
			if !re.MatchString(p.Spec.NodeName) {
				return fmt.Errorf("pod %s runs on %q, want a node of %s", p.Name, p.Spec.NodeName, pool)
			}
		}
		return nil
	}
}

// A Job removed by its own ttl_seconds_after_finished is finished work, not
// drift: the next plan is empty instead of re-running the Job.
func TestAccWorkload_jobCleanedUpByTTLIsNotRerun(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("j", "short-lived", ns, "job",
		landingCase{cloud: "generic", accelerator: "h100-80gb", count: 1, extra: `
  job {
    ttl_seconds_after_finished = 1
  }`})
	cs := acctest.Client(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() { waitJobGone(t, cs, ns, "short-lived") },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// waitJobGone watches until the TTL controller has deleted the Job.
func waitJobGone(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w, err := cs.BatchV1().Jobs(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatalf("watching job: %v", err)
	}
	defer w.Stop()
	if _, err := cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
		return // already gone
	}
	for ev := range w.ResultChan() {
		if ev.Type == "DELETED" {
			return
		}
	}
	t.Fatalf("job %s/%s was not deleted by its TTL within 60s", ns, name)
}

// A namespace that does not exist fails the apply saying so and how to
// create it: the provider never creates namespaces.
func TestAccWorkload_missingNamespaceSaysToCreateIt(t *testing.T) {
	ns := "tf-acc-absent-" + rand.String(8)
	config := acctest.ProviderBlock(t) + workloadConfig("w", "w", ns, "deployment",
		landingCase{cloud: "gke", accelerator: "a100-40gb", count: 1})
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ExpectError: regexp.MustCompile(`(?s)namespace\s+"` + ns + `"\s+does\s+not\s+exist.*Create\s+it\s+first.*` +
				`kubernetes_namespace_v1.*kubectl\s+create\s+namespace\s+` + ns),
		}},
	})
}
