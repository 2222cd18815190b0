package distributedjob

import (
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func ptr64(v int64) *int64 { return &v }

func input(d *spec.DistributedControls) kindkit.BuildInput {
	w := spec.Workload{Name: "train", Namespace: "ml", Kind: spec.KindDistributedJob, GPU: spec.GPU{Count: 8}, Distributed: d}
	sel := map[string]string{spec.LabelName: "train", spec.LabelInstance: "train"}
	pod := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: sel},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "train", Image: "img", Env: []corev1.EnvVar{{Name: "A", Value: "1"}},
		}}},
	}
	return kindkit.BuildInput{Workload: w, Meta: metav1.ObjectMeta{Name: "train", Namespace: "ml"}, Pod: pod, Selector: sel}
}

func buildJob(t *testing.T, in kindkit.BuildInput) *batchv1.Job {
	t.Helper()
	obj, ok := build(in)
	if !ok {
		t.Fatal("build refused")
	}
	j, ok := obj.(*batchv1.Job)
	if !ok {
		t.Fatalf("build made a %T", obj)
	}
	return j
}

func envOf(c corev1.Container) map[string]corev1.EnvVar {
	out := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		out[e.Name] = e
	}
	return out
}

// TestIndexedJob: nodes pods at once, each an index under the Service's
// subdomain, and one failure fails the Job.
func TestIndexedJob(t *testing.T) {
	j := buildJob(t, input(&spec.DistributedControls{Nodes: ptr64(4)}))
	s := j.Spec
	if *s.Completions != 4 || *s.Parallelism != 4 || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completions %d parallelism %d mode %s", *s.Completions, *s.Parallelism, *s.CompletionMode)
	}
	if *s.BackoffLimit != 0 || *s.PodReplacementPolicy != batchv1.Failed || s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("backoffLimit %d replacement %s restart %s", *s.BackoffLimit, *s.PodReplacementPolicy, s.Template.Spec.RestartPolicy)
	}
	rules := s.PodFailurePolicy.Rules
	if len(rules) != 2 || rules[0].Action != batchv1.PodFailurePolicyActionCount ||
		rules[1].Action != batchv1.PodFailurePolicyActionFailJob || *rules[1].OnExitCodes.ContainerName != "train" {
		t.Errorf("podFailurePolicy = %+v", rules)
	}
	if s.Template.Spec.Subdomain != "train" || !IsDistributed(j) {
		t.Errorf("subdomain %q, recognised %v", s.Template.Spec.Subdomain, IsDistributed(j))
	}
	if IsDistributed(&batchv1.Job{}) {
		t.Error("an empty Job is recognised as distributed")
	}
}

// TestTorchrunEnv: the PET_* variables after the user's, the rank from
// the completion index, the master pod 0 under the Service.
func TestTorchrunEnv(t *testing.T) {
	in := input(&spec.DistributedControls{Nodes: ptr64(3), Port: ptr64(23456)})
	c := buildJob(t, in).Spec.Template.Spec.Containers[0]
	env := envOf(c)
	want := map[string]string{"PET_NNODES": "3", "PET_NPROC_PER_NODE": "8", "PET_MASTER_ADDR": "train-0.train",
		"PET_MASTER_PORT": "23456", "A": "1"}
	for name, value := range want {
		if env[name].Value != value {
			t.Errorf("%s = %q, want %q", name, env[name].Value, value)
		}
	}
	rank := env["PET_NODE_RANK"].ValueFrom
	if rank == nil || rank.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("PET_NODE_RANK = %+v", env["PET_NODE_RANK"])
	}
	if c.Env[0].Name != "A" {
		t.Errorf("the user's env moved: %v", c.Env)
	}
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 23456 || c.Ports[0].Name != PortName {
		t.Errorf("ports = %+v", c.Ports)
	}
	if len(in.Pod.Spec.Containers[0].Env) != 1 {
		t.Error("build changed its input's container")
	}
}

// TestLauncherNone: stable names and the port, no variables.
func TestLauncherNone(t *testing.T) {
	c := buildJob(t, input(&spec.DistributedControls{Nodes: ptr64(2), Launcher: spec.LauncherNone})).Spec.Template.Spec.Containers[0]
	for name := range envOf(c) {
		if strings.HasPrefix(name, "PET_") {
			t.Errorf("launcher none sets %s", name)
		}
	}
	if len(LauncherEnvNames(spec.LauncherNone)) != 0 || len(LauncherEnvNames(spec.LauncherTorchrun)) != 5 {
		t.Error("LauncherEnvNames disagrees with LauncherEnv")
	}
}

// TestBackoffLimitFromJobBlock: job.backoff_limit replaces the default 0.
func TestBackoffLimitFromJobBlock(t *testing.T) {
	in := input(&spec.DistributedControls{Nodes: ptr64(2)})
	limit := int32(3)
	in.Workload.Job = &spec.JobControls{BackoffLimit: &limit}
	if got := *buildJob(t, in).Spec.BackoffLimit; got != 3 {
		t.Errorf("backoffLimit = %d", got)
	}
}

// TestService: headless, not-ready addresses published, the pods selected,
// the port; its own copy of the metadata.
func TestService(t *testing.T) {
	in := input(&spec.DistributedControls{Nodes: ptr64(2)})
	in.Meta.Labels = map[string]string{"team": "ml"}
	svc := Service(in)
	if svc.Name != "train" || svc.Namespace != "ml" || svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses {
		t.Errorf("service = %+v", svc)
	}
	if svc.Spec.Selector[spec.LabelName] != "train" || svc.Spec.Ports[0].Port != spec.DefaultDistributedPort {
		t.Errorf("selector %v ports %v", svc.Spec.Selector, svc.Spec.Ports)
	}
	svc.Labels["edited"] = "x"
	if _, leaked := in.Meta.Labels["edited"]; leaked {
		t.Error("the Service shares its labels map with the Job")
	}
}

// TestValidate: each rule reports on its attribute.
func TestValidate(t *testing.T) {
	cases := map[string]struct {
		edit func(*spec.Workload)
		at   string
	}{
		"no block":          {func(w *spec.Workload) { w.Distributed = nil }, "distributed.nodes"},
		"zero nodes":        {func(w *spec.Workload) { w.Distributed.Nodes = ptr64(0) }, "distributed.nodes"},
		"bad launcher":      {func(w *spec.Workload) { w.Distributed.Launcher = "mpirun" }, "distributed.launcher"},
		"bad port":          {func(w *spec.Workload) { w.Distributed.Port = ptr64(70000) }, "distributed.port"},
		"completions":       {func(w *spec.Workload) { c := int32(2); w.Job = &spec.JobControls{Completions: &c} }, "job.completions"},
		"MIG":               {func(w *spec.Workload) { w.GPU.Partition = "1g.10gb" }, "gpu.partition"},
		"sharing":           {func(w *spec.Workload) { w.GPU.Sharing = spec.SharingMPS }, "gpu.sharing"},
		"PET_NNODES in env": {func(w *spec.Workload) { w.Env = map[string]string{"PET_NNODES": "2"} }, `env["PET_NNODES"]`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := input(&spec.DistributedControls{Nodes: ptr64(2)}).Workload
			c.edit(&w)
			var diags gpudiag.Diagnostics
			validate(w, true, &diags)
			var at []string
			for _, d := range diags.Errors() {
				at = append(at, d.PathString())
			}
			if !slices.Contains(at, c.at) {
				t.Errorf("errors at %v, want one at %s", at, c.at)
			}
		})
	}
	var diags gpudiag.Diagnostics
	validate(input(&spec.DistributedControls{Nodes: ptr64(2)}).Workload, true, &diags)
	if len(diags) > 0 {
		t.Errorf("a valid workload: %v", diags)
	}
	w := input(nil).Workload
	w.Env = map[string]string{"PET_NNODES": "2"}
	w.Distributed = &spec.DistributedControls{Nodes: ptr64(2), Launcher: spec.LauncherNone}
	diags = nil
	validate(w, true, &diags)
	if len(diags) > 0 {
		t.Errorf("launcher none leaves PET_* to the user: %v", diags)
	}
}
