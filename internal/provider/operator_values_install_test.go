package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/helmchart/helminstall"
	"github.com/gpuform/terraform-provider-gpu/internal/testcharts"
)

// fixturePoolLabel names the local cluster's pool of a fake node.
const fixturePoolLabel = "fixtures.gpuform.io/pool"

// The real FiftyOne chart, installed with Helm's own library and the values
// gpu_operator_values generates, as `helm upgrade --install` would (issue
// #15): the GPU runner's pods land on the intended GKE pool and the chart's
// other pods stay off GPU nodes; an upgrade that asks for a MIG partition
// moves the runner to the MIG pool.
func TestAccOperatorValues_fiftyOneInstalledLandsOnThePool(t *testing.T) {
	chartPath := testcharts.Chart(t, "fiftyone-teams-app")
	ns := acctest.Namespace(t)
	kubeconfig := acctest.Kubeconfig(t)
	const release = "fo"
	t.Cleanup(func() {
		if err := helminstall.Uninstall(kubeconfig, release, ns); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	config := func(gpu string) string {
		return fmt.Sprintf(`
resource "gpu_operator_values" "fo" {
  target = "fiftyone"
  cloud  = "gke"
  fiftyone {
    deployment {
      key = "gpuRunner"
      gpu {
        %s
      }
    }
  }
}
`, gpu)
	}
	install := func(pool string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			values, err := stateValues(s, "gpu_operator_values.fo")
			if err != nil {
				return err
			}
			// What every FiftyOne install sets besides GPUs: the chart puts
			// its objects into namespace.name, not the release namespace, and
			// its Ingress needs the app's DNS name.
			values["namespace"] = map[string]any{"name": ns, "create": false}
			values["teamsAppSettings"] = map[string]any{"dnsName": "fiftyone.example.test"}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if _, err := helminstall.UpgradeInstall(ctx, kubeconfig, chartPath, release, ns, values); err != nil {
				return err
			}
			return runnerLandsOn(ctx, t, ns, "app.kubernetes.io/name=gpu-runner", pool)
		}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(`count = 1
        accelerator = "a100-40gb"`), Check: install("gke-a100")},
			{Config: config(`count = 1
        accelerator = "a100-40gb"
        partition = "2g.10gb"`), Check: install("gke-a100-mig")},
		},
	})
}

// runnerLandsOn waits until the runner's current pods all run on nodes of
// pool, and checks that none of the chart's other pods runs on a GPU node.
func runnerLandsOn(ctx context.Context, t *testing.T, ns, selector, pool string) error {
	cs := acctest.Client(t)
	for {
		placed, err := podPools(ctx, t, ns, selector)
		if err != nil {
			return err
		}
		if len(placed) > 0 && onlyPool(placed, pool) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("runner pods (%s) did not all land on pool %s: %v", selector, pool, placed)
		case <-time.After(250 * time.Millisecond):
		}
	}
	others, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "!" + strings.SplitN(selector, "=", 2)[0]})
	if err != nil {
		return err
	}
	for _, p := range others.Items {
		if p.Spec.NodeName == "" {
			continue
		}
		node, err := cs.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if hasGPUCapacity(node) {
			return fmt.Errorf("chart pod %s without a GPU request runs on GPU node %s", p.Name, node.Name)
		}
	}
	return nil
}

// podPools maps the selected pods that are not being deleted to the pool of
// their node ("" while unscheduled).
func podPools(ctx context.Context, t *testing.T, ns, selector string) (map[string]string, error) {
	cs := acctest.Client(t)
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		out[p.Name] = ""
		if p.Spec.NodeName == "" {
			continue
		}
		node, err := cs.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		out[p.Name] = node.Labels[fixturePoolLabel]
	}
	return out, nil
}

func onlyPool(placed map[string]string, pool string) bool {
	for _, got := range placed {
		if got != pool {
			return false
		}
	}
	return true
}

func hasGPUCapacity(node *corev1.Node) bool {
	for name := range node.Status.Capacity {
		if strings.HasPrefix(string(name), "nvidia.com/") {
			return true
		}
	}
	return false
}
