package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

var lwsGVR = schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}

// The functions' output goes into manifests the provider does not own and
// the pods land on the right pool: a LeaderWorkerSet whose worker template
// is pod_template's (EKS A10G), and one whose hand-written worker template
// takes pod_placement's fields (Karpenter L4). The test plays the
// LeaderWorkerSet controller: it creates a worker pod from the template the
// API server stored (issue #13).
func TestAccPlacementFunctions_leaderWorkerSetLands(t *testing.T) {
	ns := acctest.Namespace(t)
	dyn := dynamicClient(t)
	installCRD(t, dyn, filepath.Join("testdata", "crds", "leaderworkersets.yaml"))
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   acctest.FunctionsVersion,
		Steps: []resource.TestStep{{
			Config: `
output "template" {
  value = provider::gpu::pod_template("eks", { accelerator = "a10g", count = 1 }, {
    name  = "worker"
    image = "registry.invalid/vllm:1"
  })
}

locals {
  l4 = provider::gpu::pod_placement("karpenter", { accelerator = "l4", count = 1 })
}

output "hand_written" {
  value = {
    spec = {
      nodeSelector = local.l4.nodeSelector
      affinity     = local.l4.affinity
      tolerations  = local.l4.tolerations
      containers = [{
        name      = "worker"
        image     = "registry.invalid/vllm:1"
        resources = local.l4.resources
        env       = local.l4.env
      }]
    }
  }
}
`,
			Check: func(s *terraform.State) error {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				for output, pool := range map[string]string{"template": "eks-g5", "hand_written": "karpenter-g6"} {
					if err := leaderWorkerSetLands(ctx, t, s, ns, output, pool); err != nil {
						return err
					}
				}
				return nil
			},
		}},
	})
}

// leaderWorkerSetLands creates a LeaderWorkerSet whose worker template is a
// Terraform output, then a worker pod from the stored template, and waits
// for it to be scheduled on pool.
func leaderWorkerSetLands(ctx context.Context, t *testing.T, s *terraform.State, ns, output, pool string) error {
	out, ok := s.RootModule().Outputs[output]
	if !ok {
		return fmt.Errorf("no output %q", output)
	}
	name := "lws-" + map[string]string{"template": "template", "hand_written": "placement"}[output]
	lws := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{
			"size": int64(2), "workerTemplate": out.Value}},
	}}
	if _, err := dynamicClient(t).Resource(lwsGVR).Namespace(ns).Create(ctx, lws, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("the API server refused the LeaderWorkerSet: %w", err)
	}
	stored, err := dynamicClient(t).Resource(lwsGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	template, _, _ := unstructured.NestedMap(stored.Object, "spec", "leaderWorkerTemplate", "workerTemplate")
	raw, err := json.Marshal(template)
	if err != nil {
		return err
	}
	var pod corev1.PodTemplateSpec
	if err := json.Unmarshal(raw, &pod); err != nil {
		return fmt.Errorf("the worker template is not a pod template: %w", err)
	}
	if len(pod.Spec.Containers) != 1 || pod.Spec.Containers[0].Resources.Limits.Name("nvidia.com/gpu", "").IsZero() {
		return fmt.Errorf("the worker template has no GPU container: %s", raw)
	}
	return podLandsOnPools(ctx, t, ns, name, pod.Spec, pool)
}
