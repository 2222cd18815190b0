package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// handWrittenDeployment is a GPU Deployment as a team writes it for an EKS
// A10G node group: its own selector, container name, sidecar, volume, pull
// secret and environment; rightAffinity says whether it also keeps off
// time-sliced and MPS nodes and tolerates the GPU taint, as the provider's
// rules require.
func handWrittenDeployment(ns string, rightAffinity bool) *appsv1.Deployment {
	gpu := corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("8Gi")}
	pod := corev1.PodSpec{
		ImagePullSecrets: []corev1.LocalObjectReference{{Name: "ngc"}},
		NodeSelector:     map[string]string{"k8s.amazonaws.com/accelerator": "nvidia-a10g"},
		Containers: []corev1.Container{{
			Name: "server", Image: "vllm/vllm-openai:v0.6.0", Args: []string{"--model", "/models/llama"},
			Env: []corev1.EnvVar{{Name: "HF_HOME", Value: "/models"},
				{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}}},
			Resources:    corev1.ResourceRequirements{Limits: gpu, Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}},
			VolumeMounts: []corev1.VolumeMount{{Name: "models", MountPath: "/models"}},
		}, {
			Name: "metrics", Image: "prom/statsd-exporter:v0.27.0",
		}},
		Volumes: []corev1.Volume{{Name: "models", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
	}
	if rightAffinity {
		pod.Tolerations = []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		pod.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: "nvidia.com/gpu.sharing-strategy", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"mps", "time-slicing"},
			}}}},
		}}}
	}
	labels := map[string]string{"app": "llm"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "llm", Namespace: ns, Labels: map[string]string{"app": "llm", "team": "search"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod},
		},
	}
}

// createHandWritten creates the Deployment the way kubectl create does.
func createHandWritten(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := acctest.Client(t).AppsV1().Deployments(d.Namespace).Create(ctx, d, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
		t.Fatalf("creating the hand-written Deployment: %v", err)
	}
}

// adoptWithGeneratedConfig imports the Deployment with an import block and
// `terraform plan -generate-config-out`, as the adoption guide says, and
// returns the plan's output and the generated configuration.
func adoptWithGeneratedConfig(t *testing.T, ns string) (*acctest.Terraform, string, string) {
	t.Helper()
	tf := newFaultTerraform(t, acctest.ProviderBlock(t)+`
import {
  to = gpu_workload.llm
  id = "`+ns+`/llm"
}
`)
	tf.SkipBelow(tfversion.Version1_6_0, acctest.OpenTofuMinimum, "terraform plan -generate-config-out crashes in Terraform 1.5 "+
		"(configschema.Block.Filter on this schema); terraform import adopts the same way there")
	out, err := tf.PlanGenerateConfig("generated.tf")
	if err != nil {
		t.Fatalf("terraform plan -generate-config-out: %v\n%s", err, out)
	}
	generated, err := os.ReadFile(filepath.Join(tf.Dir, "generated.tf"))
	if err != nil {
		t.Fatalf("no generated configuration: %v\n%s", err, out)
	}
	return tf, out, string(generated)
}

// A hand-written Deployment that already follows the rules is adopted with
// nothing to change: the generated configuration plans empty, and later
// changes through it keep everything the typed attributes do not cover.
func TestAccWorkload_adoptHandWrittenDeployment(t *testing.T) {
	ns := acctest.Namespace(t)
	createHandWritten(t, handWrittenDeployment(ns, true))
	tf, out, generated := adoptWithGeneratedConfig(t, ns)
	for _, want := range []string{`cloud `, `"eks"`, `accelerator `, `"a10g"`, `container_name `, `"server"`, `selector_labels `,
		`image_pull_secrets`, `statsd-exporter`, `status.podIP`} {
		if !strings.Contains(generated, want) {
			t.Errorf("generated configuration lacks %s:\n%s", want, generated)
		}
	}
	if !strings.Contains(out, "1 to import, 0 to add, 0 to change, 0 to destroy") {
		t.Fatalf("want an import with no change, got:\n%s\ngenerated:\n%s", out, generated)
	}
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("terraform apply (import): %v\n%s", err, out)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Fatalf("plan after adopting shows changes:\n%s", out)
	}

	// A change through the adopted configuration rolls out, with no
	// conflict with the manager that created the object, and keeps the
	// sidecar, volume and pull secret the patch carries.
	edited := strings.Replace(generated, "vllm/vllm-openai:v0.6.0", "vllm/vllm-openai:v0.6.1", 1)
	if err := os.WriteFile(filepath.Join(tf.Dir, "generated.tf"), []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("terraform apply (new image): %v\n%s", err, out)
	}
	d, err := acctest.Client(t).AppsV1().Deployments(ns).Get(context.Background(), "llm", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	if pod.Containers[0].Image != "vllm/vllm-openai:v0.6.1" || len(pod.Containers) != 2 || len(pod.Volumes) != 1 || len(pod.ImagePullSecrets) != 1 {
		t.Errorf("after the change: containers %v, volumes %v, pull secrets %v; want the new image and everything else kept",
			pod.Containers, pod.Volumes, pod.ImagePullSecrets)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Fatalf("plan after the change shows changes:\n%s", out)
	}
}

// A hand-written Deployment without the GPU taint's toleration never
// schedules. Adopting it says what the next apply corrects, and the apply
// puts it on an A10G node.
func TestAccWorkload_adoptCorrectsPlacement(t *testing.T) {
	ns := acctest.Namespace(t)
	createHandWritten(t, handWrittenDeployment(ns, false))
	tf, out, _ := adoptWithGeneratedConfig(t, ns)
	for _, want := range []string{"The next apply corrects Deployment " + ns + "/llm", `adds the toleration "nvidia.com/gpu" (Exists, effect NoSchedule)`,
		"nvidia.com/gpu.sharing-strategy NotIn mps,time-slicing", "1 to import, 0 to add, 1 to change, 0 to destroy"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
	nodes := stateAttribute(t, tf, "scheduled_nodes")
	if !strings.Contains(nodes, "eks-g5-") {
		t.Errorf("scheduled_nodes = %s, want an EKS A10G node", nodes)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Fatalf("plan after the correcting apply shows changes:\n%s", out)
	}
}

// stateAttribute is one attribute of gpu_workload.llm in the state, as text.
func stateAttribute(t *testing.T, tf *acctest.Terraform, name string) string {
	t.Helper()
	for _, r := range tf.State() {
		if r.Type == "gpu_workload" {
			return fmt.Sprint(r.Values[name])
		}
	}
	t.Fatal("no gpu_workload in the state")
	return ""
}
