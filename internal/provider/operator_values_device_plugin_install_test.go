package provider

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/helmchart/helminstall"
	"github.com/gpuform/terraform-provider-gpu/internal/testcharts"
)

// fixtureCloudLabel names the cloud a fake node imitates.
const fixtureCloudLabel = "fixtures.gpuform.io/cloud"

// The real NVIDIA device plugin chart, installed with the values generated
// for a cloud: its DaemonSet puts a plugin pod on every GPU node of that
// cloud's pools, and on no node without GPUs (issue #15). (The local
// cluster mixes every cloud's nodes; the chart's own affinity terms, which
// the values keep, also match other clouds' nodes that carry GPU Feature
// Discovery or GPU Operator labels, as they would on a real cluster.)
func TestAccOperatorValues_devicePluginInstalledOnTheGPUNodes(t *testing.T) {
	chartPath := testcharts.Chart(t, "nvidia-device-plugin")
	// Every cloud whose users install the device plugin (GKE Autopilot
	// refuses it).
	for _, cloud := range []string{"aks", "eks", "eks-auto", "gke", "karpenter", "generic"} {
		t.Run(cloud, func(t *testing.T) {
			ns, kubeconfig, release := helmRelease(t, "dp-"+cloud)
			resource.ParallelTest(t, resource.TestCase{
				PreCheck:                 func() { acctest.PreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
resource "gpu_operator_values" "dp" {
  target = "nvidia-device-plugin"
  cloud  = %q
  nvidia_device_plugin {}
}
`, cloud),
					Check: func(s *terraform.State) error {
						values, err := stateValues(s, "gpu_operator_values.dp")
						if err != nil {
							return err
						}
						ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
						defer cancel()
						if _, err := helminstall.UpgradeInstall(ctx, kubeconfig, chartPath, release, ns, values); err != nil {
							return err
						}
						return pluginPodsOnGPUNodesOf(ctx, t, ns, release+"-nvidia-device-plugin", cloud)
					},
				}},
			})
		})
	}
}

// pluginPodsOnGPUNodesOf waits until the pods of the device plugin
// DaemonSet run on every fake GPU node of cloud and on GPU nodes only.
// (With GPU Feature Discovery the chart also runs node-feature-discovery,
// whose workers belong on every node.)
func pluginPodsOnGPUNodesOf(ctx context.Context, t *testing.T, ns, daemonSet, cloud string) error {
	cs := acctest.Client(t)
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: fixtureCloudLabel + "=" + cloud})
	if err != nil {
		return err
	}
	var want []string
	for _, n := range nodes.Items {
		if hasGPUCapacity(&n) {
			want = append(want, n.Name)
		}
	}
	all, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	gpuNode := map[string]bool{}
	for _, n := range all.Items {
		gpuNode[n.Name] = hasGPUCapacity(&n)
	}
	slices.Sort(want)
	if len(want) == 0 {
		return fmt.Errorf("the local cluster has no %s GPU nodes", cloud)
	}
	var got []string
	for {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		got = got[:0]
		for _, p := range pods.Items {
			owned := slices.ContainsFunc(p.OwnerReferences, func(o metav1.OwnerReference) bool {
				return o.Kind == "DaemonSet" && o.Name == daemonSet
			})
			if owned && p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
				got = append(got, p.Spec.NodeName)
			}
		}
		slices.Sort(got)
		for _, node := range got {
			if !gpuNode[node] {
				return fmt.Errorf("a device plugin pod runs on %s, which has no GPU", node)
			}
		}
		if covers(got, want) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("device plugin pods run on %v, want every %s GPU node %v", got, cloud, want)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// covers reports whether every name of want is in got.
func covers(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}
