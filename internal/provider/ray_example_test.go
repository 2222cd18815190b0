package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The "Ray on GPUs" guide's example (examples/ray) applied to the local
// cluster with the real KubeRay operator: KubeRay creates the head and the
// groups' pods, each group's pods run on its node group, ask for the GPUs
// its block says and tell Ray the same, and the head runs on no GPU node.
func TestAccExamples_rayApplies(t *testing.T) {
	acctest.RequireKubeRay(t)
	ns := acctest.Namespace(t)
	tf := newFaultTerraform(t, exampleBody(t, "ray"))
	vars := fmt.Sprintf(`{"kubeconfig": %q, "namespace": %q}`, acctest.Kubeconfig(t), ns)
	if err := os.WriteFile(filepath.Join(tf.Dir, "terraform.tfvars.json"), []byte(vars), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	want := map[string]struct {
		pods     int
		pool     string
		numGPUs  string
		resource string
	}{
		"headgroup": {1, "cpu", "0", ""},
		"train":     {1, "eks-p4d", "8", "8"},
		"serve":     {2, "eks-g5", "1", "1"},
	}
	for group, w := range want {
		pods, err := acctest.Client(t).CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{
			LabelSelector: "ray.io/cluster=llm,ray.io/group=" + group})
		if err != nil {
			t.Fatal(err)
		}
		if len(pods.Items) != w.pods {
			t.Errorf("group %s has %d pods, want %d", group, len(pods.Items), w.pods)
		}
		for _, p := range pods.Items {
			if !strings.HasPrefix(p.Spec.NodeName, w.pool) {
				t.Errorf("group %s: pod %s runs on %q, want a node of %s", group, p.Name, p.Spec.NodeName, w.pool)
			}
			c := p.Spec.Containers[0]
			if got := c.Resources.Limits["nvidia.com/gpu"]; w.resource != "" && got.String() != w.resource {
				t.Errorf("group %s: pod %s has nvidia.com/gpu %s, want %s", group, p.Name, got.String(), w.resource)
			}
			if !strings.Contains(strings.Join(append(c.Command, c.Args...), " "), "--num-gpus="+w.numGPUs) {
				t.Errorf("group %s: pod %s does not start Ray with --num-gpus=%s: %v %v", group, p.Name, w.numGPUs, c.Command, c.Args)
			}
		}
	}
}
