package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/helmchart/helminstall"
	"github.com/gpuform/terraform-provider-gpu/internal/testcharts"
)

// fixturePoolLabel names the local cluster's pool of a fake node.
const fixturePoolLabel = "fixtures.gpuform.io/pool"

// fiftyOneCase is one cloud's runner: its GPU block, then the pool of the
// local cluster its pods must land on, for each step (a later step upgrades
// the release with another GPU block).
type fiftyOneCase struct {
	cloud string
	steps []fiftyOneStep
}

type fiftyOneStep struct{ gpu, pool string }

// The real FiftyOne chart, installed with Helm's own library and the values
// gpu_operator_values generates, as `helm upgrade --install` would (issue
// #15), on every cloud: the GPU runner's pods and a Job created from the
// chart's GPU job template land on the intended pool, the chart's other pods
// stay off GPU nodes, and an upgrade with another GPU block moves them.
func TestAccOperatorValues_fiftyOneInstalledLandsOnThePool(t *testing.T) {
	chartPath := testcharts.Chart(t, "fiftyone-teams-app")
	cases := []fiftyOneCase{
		{"gke", []fiftyOneStep{
			{`accelerator = "a100-40gb"`, "gke-a100"},
			{`accelerator = "a100-40gb"
        partition   = "2g.10gb"`, "gke-a100-mig"},
		}},
		{"gke-autopilot", []fiftyOneStep{{`accelerator = "l4"`, "autopilot-l4"}}},
		{"aks", []fiftyOneStep{
			{`accelerator = "a100-80gb"`, "aks-nc24adsa100"},
			// Two V100s: only the 4-GPU NC24s_v3 node holds them (runner and
			// job together fill it).
			{`accelerator = "v100-16gb"
        count       = 2`, "aks-nc24sv3"},
		}},
		{"eks", []fiftyOneStep{
			{`accelerator = "a10g"`, "eks-g5"},
			{`accelerator = "a100-40gb"`, "eks-p4d"},
		}},
		{"eks-auto", []fiftyOneStep{{`accelerator = "l40s"`, "eksauto-l40s"}}},
		{"karpenter", []fiftyOneStep{{`accelerator = "l4"`, "karpenter-g6"}}},
		{"generic", []fiftyOneStep{{`accelerator = "h100-80gb"`, "generic-h100"}}},
	}
	for _, c := range cases {
		t.Run(c.cloud, func(t *testing.T) {
			installFiftyOneSteps(t, chartPath, c)
		})
	}
}

func installFiftyOneSteps(t *testing.T, chartPath string, c fiftyOneCase) {
	ns, kubeconfig, release := helmRelease(t, "fo")
	var steps []resource.TestStep
	for _, step := range c.steps {
		steps = append(steps, resource.TestStep{
			Config: fiftyOneRunnerConfig(c.cloud, step.gpu),
			Check: func(s *terraform.State) error {
				values, err := stateValues(s, "gpu_operator_values.fo")
				if err != nil {
					return err
				}
				// What every FiftyOne install sets besides GPUs: the chart puts
				// its objects into namespace.name, not the release namespace,
				// and its Ingress needs the app's DNS name.
				values["namespace"] = map[string]any{"name": ns, "create": false}
				values["teamsAppSettings"] = map[string]any{"dnsName": "fiftyone.example.test"}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				if _, err := helminstall.UpgradeInstall(ctx, kubeconfig, chartPath, release, ns, values); err != nil {
					return err
				}
				pools := poollessGPUPools(t, step.pool)
				if err := runnerLandsOn(ctx, t, ns, "app.kubernetes.io/name=gpu-runner", pools); err != nil {
					return err
				}
				return jobFromTemplateLandsOn(ctx, t, ns, "gpuBatch", pools)
			},
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    steps,
	})
}

// fiftyOneRunnerConfig is a one-replica GPU runner and a GPU job template.
func fiftyOneRunnerConfig(cloud, gpu string) string {
	if !strings.Contains(gpu, "count") {
		gpu += "\n        count       = 1"
	}
	return fmt.Sprintf(`
resource "gpu_operator_values" "fo" {
  target = "fiftyone"
  cloud  = %[1]q
  fiftyone {
    deployment {
      key      = "gpuRunner"
      replicas = 1
      gpu {
        %[2]s
      }
    }
    job_template {
      key = "gpuBatch"
      gpu {
        %[2]s
      }
    }
  }
}
`, cloud, gpu)
}

// runnerLandsOn waits until the runner's current pods all run on nodes of
// pool, and checks that no pod of the namespace without a GPU request (the
// chart's API, app and other services) runs on a GPU node.
func runnerLandsOn(ctx context.Context, t *testing.T, ns, selector string, pools []string) error {
	for {
		placed, err := podPools(ctx, t, ns, selector)
		if err != nil {
			return err
		}
		if len(placed) > 0 && onlyPools(placed, pools) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("runner pods (%s) did not all land on pools %v: %v", selector, pools, placed)
		case <-time.After(250 * time.Millisecond):
		}
	}
	return chartPodsOffGPUNodes(ctx, t, ns)
}

// chartPodsOffGPUNodes waits until some pod of the namespace without a GPU
// request (the chart's API, app and other services) is scheduled, and checks
// that none of them runs on a GPU node.
func chartPodsOffGPUNodes(ctx context.Context, t *testing.T, ns string) error {
	cs := acctest.Client(t)
	for {
		all, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		checked := 0
		for _, p := range all.Items {
			if p.Spec.NodeName == "" || requestsGPU(p) {
				continue
			}
			checked++
			node, err := cs.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if hasGPUCapacity(node) {
				return fmt.Errorf("chart pod %s without a GPU request runs on GPU node %s", p.Name, node.Name)
			}
		}
		if checked > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("none of the chart's other pods was scheduled: nothing shows they stay off GPU nodes")
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// requestsGPU reports whether any container of the pod limits an NVIDIA
// resource.
func requestsGPU(p corev1.Pod) bool {
	for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
		for name := range c.Resources.Limits {
			if strings.HasPrefix(string(name), "nvidia.com/") {
				return true
			}
		}
	}
	return false
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

func onlyPools(placed map[string]string, pools []string) bool {
	for _, got := range placed {
		if !slices.Contains(pools, got) {
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

// jobFromTemplateLandsOn creates a Job from the chart's job template the
// way FiftyOne's on-demand runner does (the Jinja placeholders _id,
// _command and _args filled in) and waits for its pod to land on one of pools.
func jobFromTemplateLandsOn(ctx context.Context, t *testing.T, ns, key string, pools []string) error {
	cs := acctest.Client(t)
	maps, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{
		LabelSelector: "app.voxel51.com/component=on-demand-delegated-operators"})
	if err != nil {
		return err
	}
	if len(maps.Items) != 1 {
		return fmt.Errorf("want one job-template ConfigMap, found %d", len(maps.Items))
	}
	template, ok := maps.Items[0].Data[key+".yaml"]
	if !ok {
		return fmt.Errorf("job template %s.yaml is not in ConfigMap %s", key, maps.Items[0].Name)
	}
	id := fmt.Sprintf("t%d", time.Now().UnixNano()%100000)
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(fillRunnerPlaceholders(template, id, "python", "-m", "op")), &job); err != nil {
		return fmt.Errorf("job template %s does not decode as a Job once filled in: %w", key, err)
	}
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, &job, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("the API server refused the Job from template %s: %w", key, err)
	}
	selector := "job-name=" + job.Name
	for {
		placed, err := podPools(ctx, t, ns, selector)
		if err != nil {
			return err
		}
		if len(placed) > 0 && onlyPools(placed, pools) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the pod of Job %s did not land on pools %v: %v", job.Name, pools, placed)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// runnerArgs matches the job template's Jinja loop over _args.
var runnerArgs = regexp.MustCompile(`(?s)\{% for arg in _args %\}\n(.*?)\{% endfor %\}`)

// fillRunnerPlaceholders does what FiftyOne's runner does to a job template:
// it renders the Jinja placeholders with the operation's id, command and
// arguments.
func fillRunnerPlaceholders(template, id, command string, args ...string) string {
	out := runnerArgs.ReplaceAllStringFunc(template, func(loop string) string {
		item := runnerArgs.FindStringSubmatch(loop)[1]
		var b strings.Builder
		for _, a := range args {
			b.WriteString(strings.ReplaceAll(item, "{{ arg }}", a))
		}
		return b.String()
	})
	out = strings.ReplaceAll(out, "{{ _id }}", id)
	return strings.ReplaceAll(out, "{{ _command }}", command)
}

// helmRelease prepares a chart install: the test's namespace, the
// kubeconfig, and a release named after base and the namespace's random
// suffix (charts name cluster-scoped objects after the release, so a release
// an interrupted run left on a long-lived cluster cannot collide), which is
// uninstalled when the test ends.
func helmRelease(t *testing.T, base string) (ns, kubeconfig, release string) {
	t.Helper()
	ns, kubeconfig = acctest.Namespace(t), acctest.Kubeconfig(t)
	release = base + "-" + ns[max(0, len(ns)-5):]
	t.Cleanup(func() {
		if err := helminstall.Uninstall(kubeconfig, release, ns); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return ns, kubeconfig, release
}
