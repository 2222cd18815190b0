package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// (e) A hand-written Indexed Job with its headless Service is adopted by
// import (issue #42): a 4-node torchrun job of 8 GPUs per pod on the EKS p5
// pool, written as the Kubernetes docs' "Job with Pod-to-Pod
// Communication" and torchrun's PET_* variables say.

// handWrittenIndexedJob is the Job; ruled says whether its pods also keep
// off MIG, time-sliced and MPS nodes, as the provider's rules require.
func handWrittenIndexedJob(t *testing.T, ns string, ruled bool) *batchv1.Job {
	t.Helper()
	labels := map[string]string{"app": "llama"}
	env := []corev1.EnvVar{
		{Name: "HF_HOME", Value: "/data"},
		{Name: "PET_MASTER_ADDR", Value: "llama-0.llama"},
		{Name: "PET_MASTER_PORT", Value: "29500"},
		{Name: "PET_NNODES", Value: "4"},
		{Name: "PET_NODE_RANK", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
		{Name: "PET_NPROC_PER_NODE", Value: "8"},
	}
	pod := corev1.PodSpec{
		Subdomain:     "llama",
		RestartPolicy: corev1.RestartPolicyNever,
		NodeSelector:  map[string]string{"k8s.amazonaws.com/accelerator": "nvidia-h100", "eks.amazonaws.com/nodegroup": p5PoolName},
		Tolerations:   []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		Containers: []corev1.Container{{
			Name: "trainer", Image: "registry.invalid/pytorch:24", Command: []string{"torchrun", "train.py"}, Env: env,
			Ports:        []corev1.ContainerPort{{Name: "rendezvous", ContainerPort: 29500}},
			Resources:    corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}},
			VolumeMounts: []corev1.VolumeMount{{Name: "dshm", MountPath: "/dev/shm"}},
		}},
		Volumes: []corev1.Volume{{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}}},
	}
	if ruled {
		pod.Affinity = requiredH100Affinity(t)
	}
	four := int32(4)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "llama", Namespace: ns, Labels: map[string]string{"app": "llama", "team": "ml"}},
		Spec: batchv1.JobSpec{
			Completions: &four, Parallelism: &four, CompletionMode: new(batchv1.IndexedCompletion), BackoffLimit: new(int32(0)),
			Template: corev1.PodTemplateSpec{
				// kwok keeps the pods running for runFor, so their placement can be read.
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{runFor: "10m"}},
				Spec:       pod,
			},
		},
	}
}

// requiredH100Affinity is the node affinity EKS's rules require of a pod of
// whole H100s (no MIG instance, no shared GPU), as a team following the
// provider's troubleshooting guide copies it.
func requiredH100Affinity(t *testing.T) *corev1.Affinity {
	t.Helper()
	nodes := int64(4)
	r, diags := workload.ResolveAndRender(spec.Workload{Name: "llama", Namespace: "x", Kind: spec.KindDistributedJob, Cloud: "eks",
		Image: "x", GPU: spec.GPU{Count: 8, Accelerator: "h100-80gb"}, Distributed: &spec.DistributedControls{Nodes: &nodes}},
		workload.Options{SkipManifest: true})
	if diags.HasError() {
		t.Fatal(diags)
	}
	return r.PodTemplate().Spec.Affinity
}

// headlessService is the Service the pods' names live under; clusterIP
// is "None" for a headless one.
func headlessService(ns, clusterIP string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "llama", Namespace: ns, Labels: map[string]string{"app": "llama", "team": "ml"}},
		Spec: corev1.ServiceSpec{
			ClusterIP: clusterIP, PublishNotReadyAddresses: true, Selector: map[string]string{"app": "llama"},
			Ports: []corev1.ServicePort{{Name: "rendezvous", Port: 29500, TargetPort: intstr.FromInt32(29500), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// createIndexedJob creates the Service and the Job with client-go, as
// kubectl create does, and waits until the Job's 4 pods run on p5 nodes.
func createIndexedJob(t *testing.T, svc *corev1.Service, job *batchv1.Job) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := acctest.Client(t)
	if _, err := cs.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
		t.Fatalf("creating the hand-written Service: %v", err)
	}
	if _, err := cs.BatchV1().Jobs(job.Namespace).Create(ctx, job, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
		t.Fatalf("creating the hand-written Job: %v", err)
	}
}

// importIndexedJob imports ns/llama with an import block and
// `terraform plan -generate-config-out`, as the adoption guide says.
func importIndexedJob(t *testing.T, ns string) (*acctest.Terraform, string, string, error) {
	t.Helper()
	tf := newFaultTerraform(t, acctest.ProviderBlock(t)+`
import {
  to = gpu_workload.llama
  id = "`+ns+`/llama"
}
`)
	tf.SkipBelow(tfversion.Version1_6_0, acctest.OpenTofuMinimum, "terraform plan -generate-config-out crashes in Terraform 1.5")
	out, err := tf.PlanGenerateConfig("generated.tf")
	generated, _ := os.ReadFile(filepath.Join(tf.Dir, "generated.tf"))
	return tf, out, string(generated), err
}

// The Job and its Service are adopted as they are: the generated
// configuration is a distributed_job of 4 torchrun nodes whose plan is
// empty, neither object is re-created, and destroy removes both.
func TestAccDistributedJob_adoptHandWritten(t *testing.T) {
	ns := acctest.Namespace(t)
	createIndexedJob(t, headlessService(ns, corev1.ClusterIPNone), handWrittenIndexedJob(t, ns, true))
	runningPods(t, ns, "app=llama")
	svcUID, jobUID0 := serviceUID(t, ns), jobUID(t, ns)

	tf, out, generated, err := importIndexedJob(t, ns)
	if err != nil {
		t.Fatalf("terraform plan -generate-config-out: %v\n%s\n%s", err, out, generated)
	}
	for _, want := range []string{`kind `, `"distributed_job"`, `nodes `, `= 4`, `accelerator `, `"h100-80gb"`, `container_name `,
		`"trainer"`, `selector_labels`, `HF_HOME`} {
		if !strings.Contains(generated, want) {
			t.Errorf("generated configuration lacks %s:\n%s", want, generated)
		}
	}
	for _, never := range []string{"PET_", "controller-uid", "job-name", `"none"`} {
		if strings.Contains(generated, never) {
			t.Errorf("generated configuration holds %s:\n%s", never, generated)
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
	if serviceUID(t, ns) != svcUID || jobUID(t, ns) != jobUID0 {
		t.Error("adopting re-created the Job or the Service")
	}
	if out, err := tf.Destroy(); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out)
	}
	cs := acctest.Client(t)
	if _, err := cs.CoreV1().Services(ns).Get(context.Background(), "llama", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Service is still there after destroy: %v", err)
	}
	if _, err := cs.BatchV1().Jobs(ns).Get(context.Background(), "llama", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Job is still there after destroy: %v", err)
	}
}

// A Job whose pods lack the placement the rules require is adopted with
// a plan that says the Job will be re-created (its pod template cannot
// change), never silently; the apply re-creates it and keeps the Service.
func TestAccDistributedJob_adoptCorrectsByRecreating(t *testing.T) {
	ns := acctest.Namespace(t)
	createIndexedJob(t, headlessService(ns, corev1.ClusterIPNone), handWrittenIndexedJob(t, ns, false))
	runningPods(t, ns, "app=llama")
	svcUID, jobUID0 := serviceUID(t, ns), jobUID(t, ns)
	tf, out, generated, err := importIndexedJob(t, ns)
	if err != nil {
		t.Fatalf("terraform plan -generate-config-out: %v\n%s\n%s", err, out, generated)
	}
	for _, want := range []string{"The next apply corrects Job " + ns + "/llama", "re-creates it", "The Job will be re-created",
		"1 to import, 0 to add, 1 to change, 0 to destroy"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	// The pods run for 10 minutes: wait until they are scheduled, not done.
	edited := regexp.MustCompile(`wait_for\s+= null`).ReplaceAllString(generated, `wait_for = "scheduled"`)
	if err := os.WriteFile(filepath.Join(tf.Dir, "generated.tf"), []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
	if jobUID(t, ns) == jobUID0 {
		t.Error("the correcting apply did not re-create the Job")
	}
	if serviceUID(t, ns) != svcUID {
		t.Error("the correcting apply re-created the Service")
	}
	runningPods(t, ns, "app=llama")
	if changes, out := tf.PlanHasChanges(); changes {
		t.Fatalf("plan after the correcting apply shows changes:\n%s", out)
	}
}

// A Service of the pods' subdomain that is not headless cannot give the
// pods their names: import refuses it, saying so, and imports nothing.
func TestAccDistributedJob_adoptRefusesServiceNotHeadless(t *testing.T) {
	ns := acctest.Namespace(t)
	createIndexedJob(t, headlessService(ns, ""), handWrittenIndexedJob(t, ns, true))
	// The Service's ClusterIP is allocated at creation; wait until the
	// server reports it, so the refusal names it.
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		svc, err := acctest.Client(t).CoreV1().Services(ns).Get(ctx, "llama", metav1.GetOptions{})
		return err == nil && svc.Spec.ClusterIP != "", err
	})
	if err != nil {
		t.Fatal(err)
	}
	tf, out, _, err := importIndexedJob(t, ns)
	if err == nil {
		t.Fatalf("the import of a Job with a Service that is not headless succeeded:\n%s", out)
	}
	if flat := acctest.Flatten(out); !strings.Contains(flat, "Service "+ns+"/llama, the subdomain of Job "+ns+"/llama's pods, is not headless") {
		t.Errorf("the refusal does not say the Service is not headless:\n%s", out)
	}
	if len(tf.State()) != 0 {
		t.Errorf("the refused import left state: %v", tf.State())
	}
}
