package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/helmchart/helminstall"
	"github.com/gpuform/terraform-provider-gpu/internal/testcharts"
)

// fiftyOneOnDRAPoolConfig is a DRA pool of the local cluster's H100s and a
// one-replica FiftyOne GPU runner on it, planned against the cluster so
// its version decides.
func fiftyOneOnDRAPoolConfig(t *testing.T, pool string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "dra" {
  name           = %q
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
}

resource "gpu_operator_values" "fo" {
  target = "fiftyone"
  fiftyone {
    deployment {
      key       = "gpuRunner"
      replicas  = 1
      node_pool = gpu_node_pool_policy.dra.ref
      gpu {
        count = 1
      }
    }
  }
}
`, pool)
}

// (#43 b and c) FiftyOne's GPU runner on a DRA pool, from
// gpu_operator_values' values and the real chart. On Kubernetes 1.36+ the
// pool's DeviceClass serves nvidia.com/gpu, so the chart's pod, which asks
// for nvidia.com/gpu as charts do, lands on the pool's DRA nodes and gets a
// device of the pool's class through the claim the scheduler creates. On
// 1.34 and 1.35 (the floor run) the same configuration is refused at plan
// time with the cluster's version and the gate in the message.
//
// Not parallel: the scheduler serves nvidia.com/gpu from the newest class
// that names it, and a parallel test's DRA pool class could be newer.
func TestAccOperatorValues_fiftyOneOnDRAPoolGetsADevice(t *testing.T) {
	pool := "fo-dra-" + rand.String(5)
	config := fiftyOneOnDRAPoolConfig(t, pool)
	if minor, version := serverMinor(t); minor < 36 {
		resource.Test(t, resource.TestCase{
			PreCheck:                 func() { acctest.PreCheck(t) },
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config:      config,
				PlanOnly:    true,
				ExpectError: wrappedRegexp(`DRA pool needs Kubernetes 1\.36 for FiftyOne`, regexp.QuoteMeta(`the cluster runs Kubernetes 1.`+fmt.Sprint(minor)), `DRAExtendedResource`),
			}},
		})
		t.Logf("the cluster runs %s: the configuration was refused at plan, as it must be before 1.36", version)
		return
	}
	chartPath := testcharts.Chart(t, "fiftyone-teams-app")
	ns, kubeconfig, release := helmRelease(t, "fodra")
	class := pool + ".gpu.gpuform.io"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDeviceClassGone(acctest.Client(t), class),
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(s *terraform.State) error {
				values, err := stateValues(s, "gpu_operator_values.fo")
				if err != nil {
					return err
				}
				values["namespace"] = map[string]any{"name": ns, "create": false}
				values["teamsAppSettings"] = map[string]any{"dnsName": "fiftyone.example.test"}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				if _, err := helminstall.UpgradeInstall(ctx, kubeconfig, chartPath, release, ns, values); err != nil {
					return err
				}
				return runnerGetsDRADevice(ctx, t, ns, class)
			},
		}},
	})
}

// runnerGetsDRADevice waits for the runner's pod to be scheduled with a
// claim for its nvidia.com/gpu and checks that it runs on a DRA H100 node
// and that the claim holds one device of class, allocated by NVIDIA's
// driver.
func runnerGetsDRADevice(ctx context.Context, t *testing.T, ns, class string) error {
	cs := acctest.Client(t)
	var pod corev1.Pod
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=gpu-runner"})
		if err != nil || len(pods.Items) != 1 {
			return false, err
		}
		pod = pods.Items[0]
		return pod.Spec.NodeName != "" && pod.Status.ExtendedResourceClaimStatus != nil, nil
	})
	if err != nil {
		return fmt.Errorf("the runner's pod was not scheduled with a claim for nvidia.com/gpu: %w (pod %s on %q)", err, pod.Name, pod.Spec.NodeName)
	}
	placed, err := podPools(ctx, t, ns, "app.kubernetes.io/name=gpu-runner")
	if err != nil {
		return err
	}
	if !onlyPools(placed, []string{"dra-h100"}) {
		return fmt.Errorf("the runner's pod landed on %v, want the DRA H100 nodes", placed)
	}
	claim, err := cs.ResourceV1().ResourceClaims(ns).Get(ctx, pod.Status.ExtendedResourceClaimStatus.ResourceClaimName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("the runner's claim: %w", err)
	}
	requests := claim.Spec.Devices.Requests
	if len(requests) != 1 || requests[0].Exactly == nil || requests[0].Exactly.DeviceClassName != class {
		return fmt.Errorf("the runner's claim asks %+v, want one request of class %s", requests, class)
	}
	if a := claim.Status.Allocation; a == nil || len(a.Devices.Results) != 1 || a.Devices.Results[0].Driver != "gpu.nvidia.com" {
		return fmt.Errorf("the runner's claim is allocated %+v, want one device of gpu.nvidia.com", a)
	}
	return nil
}
