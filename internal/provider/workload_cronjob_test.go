package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

const nightlyCron = `cronjob {
    schedule           = "0 3 * * *"
    time_zone          = "Europe/Berlin"
    concurrency_policy = "Forbid"
  }
  job {
    backoff_limit = 1
  }`

// A CronJob applies without waiting, the Jobs it starts land on the pool
// (the test starts one from its template, as the controller does at the
// scheduled time), drift of its schedule is repaired, it imports and is
// gone after destroy (issue #13).
func TestAccWorkload_cronJobRunsOnThePool(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("c", "nightly", ns, "cronjob",
		landingCase{cloud: "karpenter", accelerator: "l4", count: 1, extra: nightlyCron})
	cs := acctest.Client(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if _, err := cs.BatchV1().CronJobs(ns).Get(context.Background(), "nightly", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("CronJob still exists after destroy (%v)", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(*terraform.State) error {
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					defer cancel()
					cron, err := cs.BatchV1().CronJobs(ns).Get(ctx, "nightly", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if cron.Spec.Schedule != "0 3 * * *" || cron.Spec.TimeZone == nil || *cron.Spec.TimeZone != "Europe/Berlin" {
						return fmt.Errorf("schedule not applied: %+v", cron.Spec)
					}
					// Owned by the CronJob, as the controller's runs are, so
					// destroy removes it with the CronJob.
					owner := metav1.NewControllerRef(cron, batchv1.SchemeGroupVersion.WithKind("CronJob"))
					run := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "nightly-manual", Namespace: ns,
						OwnerReferences: []metav1.OwnerReference{*owner}}, Spec: *cron.Spec.JobTemplate.Spec.DeepCopy()}
					if _, err := cs.BatchV1().Jobs(ns).Create(ctx, run, metav1.CreateOptions{}); err != nil {
						return fmt.Errorf("the API server refused a Job from the template: %w", err)
					}
					placed, err := waitPodPools(ctx, t, ns, "batch.kubernetes.io/job-name=nightly-manual")
					if err != nil {
						return err
					}
					for pod, pool := range placed {
						if pool != "karpenter-g6" {
							return fmt.Errorf("the run's pod %s landed on %q, want karpenter-g6", pod, pool)
						}
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					cron, err := cs.BatchV1().CronJobs(ns).Get(ctx, "nightly", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					cron.Spec.Schedule = "* * * * *"
					if _, err := cs.BatchV1().CronJobs(ns).Update(ctx, cron, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
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
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gpu_workload.c", plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					cron, err := cs.BatchV1().CronJobs(ns).Get(context.Background(), "nightly", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if cron.Spec.Schedule != "0 3 * * *" {
						return fmt.Errorf("schedule drift not repaired: %q", cron.Spec.Schedule)
					}
					return nil
				},
			},
			{
				ResourceName:      "gpu_workload.c",
				ImportState:       true,
				ImportStateId:     ns + "/nightly",
				ImportStateVerify: true,
				Config:            config,
			},
		},
	})
}

// waitPodPools waits until the selected pods exist and are all scheduled,
// and returns their pools.
func waitPodPools(ctx context.Context, t *testing.T, ns, selector string) (map[string]string, error) {
	for {
		placed, err := podPools(ctx, t, ns, selector)
		if err != nil {
			return nil, err
		}
		done := len(placed) > 0
		for _, pool := range placed {
			done = done && pool != ""
		}
		if done {
			return placed, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("pods %s not scheduled: %v", selector, placed)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// A cronjob's plan-time rules: a schedule the controller cannot parse, and
// a wait for pods that do not exist yet, fail on their lines.
func TestWorkload_cronJobPlanTimeValidation(t *testing.T) {
	clearClusterEnv(t)
	cases := map[string]struct{ extra, want string }{
		"six-field schedule": {`cronjob {
    schedule = "0 0 3 * * *"
  }`, "Invalid schedule"},
		"wait for a rollout": {`wait_for = "rollout"
  cronjob {
    schedule = "@daily"
  }`, "Nothing to wait for on a cronjob"},
		"no cronjob block": {``, "cronjob block missing"},
		"cronjob block on a deployment": {`cronjob {
    schedule = "@daily"
  }`, "cronjob block is for cronjobs"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			kind := "cronjob"
			if name == "cronjob block on a deployment" {
				kind = "deployment"
			}
			planFails(t, fmt.Sprintf(`
resource "gpu_workload" "w" {
  name      = "w"
  namespace = "default"
  kind      = %q
  cloud     = "eks"
  image     = "registry.invalid/cuda:12"
  apply     = false
  gpu {
    count       = 1
    accelerator = "a10g"
  }
  %s
}
`, kind, c.extra), acctest.Phrases(c.want))
		})
	}
}

// Destroying a CronJob waits until its runs' pods are gone (the GPUs are
// free), within the delete timeout: a pod held by a finalizer fails the
// destroy at the timeout with what it waited for, the resource stays in
// the state, and the next destroy, once the pod can go, converges.
func TestAccWorkload_cronJobDeleteTimeoutThenConverges(t *testing.T) {
	ns := acctest.Namespace(t)
	cs := acctest.Client(t)
	tf := newFaultTerraform(t, acctest.ProviderBlock(t)+workloadConfig("c", "held", ns, "cronjob",
		landingCase{cloud: "karpenter", accelerator: "l4", count: 1, extra: nightlyCron + `
  timeouts {
    delete = "5s"
  }`}))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod := startHeldRun(ctx, t, ns, "held")

	out, err := tf.Destroy()
	if err == nil || !strings.Contains(out, "CronJob "+ns+"/held to be deleted") || !strings.Contains(out, "1 pod(s) to terminate") {
		t.Fatalf("destroy with a run's pod held: %v; want a timeout naming the CronJob and its pod:\n%s", err, out)
	}
	if len(stateWorkloads(tf)) != 1 {
		t.Fatalf("the workload left the state although a pod of its run is still there")
	}
	if _, err := cs.CoreV1().Pods(ns).Patch(ctx, pod, k8stypes.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`),
		metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if out, err := tf.Destroy(); err != nil {
		t.Fatalf("destroy once the pod can go: %v\n%s", err, out)
	}
	if _, err := cs.BatchV1().CronJobs(ns).Get(ctx, "held", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("CronJob still exists after the destroy converged (%v)", err)
	}
}

// startHeldRun starts a run of the CronJob, as its controller does, whose
// pod a finalizer keeps from going away, and returns the pod's name once
// it is scheduled.
func startHeldRun(ctx context.Context, t *testing.T, ns, name string) string {
	t.Helper()
	cs := acctest.Client(t)
	cron, err := cs.BatchV1().CronJobs(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := metav1.NewControllerRef(cron, batchv1.SchemeGroupVersion.WithKind("CronJob"))
	run := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name + "-run", Namespace: ns,
		OwnerReferences: []metav1.OwnerReference{*owner}}, Spec: *cron.Spec.JobTemplate.Spec.DeepCopy()}
	run.Spec.Template.Finalizers = []string{"gpuform.io/test-hold"}
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, run, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	placed, err := waitPodPools(ctx, t, ns, "batch.kubernetes.io/job-name="+run.Name)
	if err != nil {
		t.Fatal(err)
	}
	for pod := range placed {
		return pod
	}
	t.Fatal("no pod")
	return ""
}
