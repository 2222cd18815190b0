package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// A StatefulSet lands every replica on the cloud's GPU pool, waits for its
// rollout, has drift detected and repaired, imports, and is gone after
// destroy, like a Deployment (issue #13).
func TestAccWorkload_statefulSetLandsDriftsImports(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("s", "shard", ns, "statefulset",
		landingCase{cloud: "eks", accelerator: "a10g", count: 1, extra: "replicas = 2"})
	cs := acctest.Client(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkStatefulSetGone(t, ns, "shard"),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpu_workload.s", "scheduled_nodes.#", "2"),
					resource.TestMatchResourceAttr("gpu_workload.s", "scheduled_nodes.0", regexp.MustCompile(`^eks-g5-\d$`)),
					resource.TestMatchResourceAttr("gpu_workload.s", "scheduled_nodes.1", regexp.MustCompile(`^eks-g5-\d$`)),
					acctest.ManifestMatches("gpu_workload.s", regexp.MustCompile(`kind: StatefulSet`)),
				),
			},
			{
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					s, err := cs.AppsV1().StatefulSets(ns).Get(ctx, "shard", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					s.Spec.Template.Spec.Tolerations = nil
					if _, err := cs.AppsV1().StatefulSets(ns).Update(ctx, s, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gpu_workload.s", plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					s, err := cs.AppsV1().StatefulSets(ns).Get(context.Background(), "shard", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if len(s.Spec.Template.Spec.Tolerations) == 0 {
						return fmt.Errorf("the toleration removed out of band was not restored")
					}
					return nil
				},
			},
			{
				ResourceName:      "gpu_workload.s",
				ImportState:       true,
				ImportStateId:     ns + "/shard",
				ImportStateVerify: true,
				Config:            config,
			},
		},
	})
}

// With a created model cache, every replica gets a claim of its own from
// the claim template, and destroy deletes them with the StatefulSet.
func TestAccWorkload_statefulSetCachePerReplica(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("s", "cached", ns, "statefulset",
		landingCase{cloud: "eks", accelerator: "a10g", count: 1,
			extra: "replicas = 2\n  wait_for = \"none\"\n  model_cache {\n    size = \"1Gi\"\n  }"})
	cs := acctest.Client(t)
	claims := []string{"model-cache-cached-0", "model-cache-cached-1"}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			return eventually(30*time.Second, func() error {
				for _, name := range claims {
					if _, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("claim %s outlives the StatefulSet (%v)", name, err)
					}
				}
				return nil
			})
		},
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(*terraform.State) error {
				return eventually(30*time.Second, func() error {
					for _, name := range claims {
						if _, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), name, metav1.GetOptions{}); err != nil {
							return fmt.Errorf("no claim %s for the replica: %w", name, err)
						}
					}
					return nil
				})
			},
		}},
	})
}

func checkStatefulSetGone(t *testing.T, ns, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := acctest.Client(t).AppsV1().StatefulSets(ns).Get(context.Background(), name, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("StatefulSet %s/%s still exists after destroy (%v)", ns, name, err)
		}
		return nil
	}
}

// eventually retries check until it passes or the time is up, and then
// returns its last error.
func eventually(limit time.Duration, check func() error) error {
	var last error
	_ = wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, limit, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	return last
}

// A StatefulSet that cannot schedule fails inside its create timeout with
// the scheduler's reason, like a Deployment, and the next apply with a
// request that fits converges.
func TestAccWorkload_statefulSetTimeoutThenConverges(t *testing.T) {
	ns := acctest.Namespace(t)
	config := func(count int, timeout string) string {
		return acctest.ProviderBlock(t) + workloadConfig("s", "stuck", ns, "statefulset",
			landingCase{cloud: "gke", accelerator: "a100-40gb", count: count, extra: fmt.Sprintf(`
  timeouts {
    create = %q
    update = "2m"
  }`, timeout)})
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkStatefulSetGone(t, ns, "stuck"),
		Steps: []resource.TestStep{
			{
				Config:      config(16, "8s"),
				ExpectError: regexp.MustCompile(`(?s)StatefulSet .*stuck did not become ready.*Unschedulable.*Insufficient nvidia.com/gpu`),
			},
			{
				Config: config(1, "8s"),
				Check:  resource.TestMatchResourceAttr("gpu_workload.s", "scheduled_nodes.0", regexp.MustCompile(`^gke-a100-\d$`)),
			},
		},
	})
}
