package adopt

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// handWrittenIndexedJob is a 4-node torchrun job as the Kubernetes docs'
// "Job with Pod-to-Pod Communication" writes it, on EKS p5 nodes, as the
// server stores it: generated selector and controller labels included.
const handWrittenIndexedJob = `
apiVersion: batch/v1
kind: Job
metadata:
  name: llama
  namespace: ml
  labels: {app: llama, team: ml, kueue.x-k8s.io/queue-name: training}
spec:
  completions: 4
  parallelism: 4
  completionMode: Indexed
  backoffLimit: 2
  selector:
    matchLabels: {batch.kubernetes.io/controller-uid: 0b7c}
  template:
    metadata:
      labels: {app: llama, batch.kubernetes.io/controller-uid: 0b7c, batch.kubernetes.io/job-name: llama,
        controller-uid: 0b7c, job-name: llama}
    spec:
      subdomain: llama
      restartPolicy: Never
      nodeSelector: {k8s.amazonaws.com/accelerator: nvidia-h100}
      tolerations:
      - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
      - name: trainer
        image: registry.invalid/pytorch:24
        command: [torchrun, train.py]
        env:
        - {name: HF_HOME, value: /data}
        - {name: PET_MASTER_ADDR, value: llama-0.llama}
        - {name: PET_MASTER_PORT, value: "29400"}
        - {name: PET_NNODES, value: "4"}
        - name: PET_NODE_RANK
          valueFrom: {fieldRef: {fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}
        - {name: PET_NPROC_PER_NODE, value: "8"}
        ports: [{name: rendezvous, containerPort: 29400}]
        resources:
          limits: {nvidia.com/gpu: "8"}
`

const headlessService = `
apiVersion: v1
kind: Service
metadata: {name: llama, namespace: ml, labels: {app: llama, team: ml}}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector: {app: llama}
  ports: [{name: rendezvous, port: 29400, targetPort: 29400, protocol: TCP}]
`

func serviceReader(t *testing.T, text string) Reader {
	return func(obj kindkit.Object) (*unstructured.Unstructured, error) {
		if text == "" {
			return nil, nil
		}
		return liveObject(t, text), nil
	}
}

func TestInferIndexedJobWithHeadlessService(t *testing.T) {
	a, diags := InferWith(liveObject(t, handWrittenIndexedJob), "", serviceReader(t, headlessService))
	rendertest.RequireNoErrors(t, diags)
	w := a.Workload
	d := w.Distributed
	if w.Kind != spec.KindDistributedJob || d == nil || *d.Nodes != 4 || d.Launcher != "" || d.Port == nil || *d.Port != 29400 {
		t.Fatalf("kind %q distributed %+v; want distributed_job, 4 nodes, torchrun, port 29400", w.Kind, d)
	}
	checks := map[string][2]any{
		"gpu":             {w.GPU, spec.GPU{Count: 8, Accelerator: "h100-80gb"}},
		"queue":           {w.Queue, "training"},
		"labels":          {w.Labels, map[string]string{"team": "ml"}},
		"selector_labels": {w.SelectorLabels, map[string]string{"app": "llama"}},
		"pod_labels":      {w.PodLabels, map[string]string(nil)},
		"env":             {w.Env, map[string]string{"HF_HOME": "/data"}},
		"ports":           {w.Ports, []int32(nil)},
		"backoff_limit":   {*w.Job.BackoffLimit, int32(2)},
	}
	for name, c := range checks {
		if !reflect.DeepEqual(c[0], c[1]) {
			t.Errorf("%s = %#v, want %#v", name, c[0], c[1])
		}
	}
	// The patch carries neither the generated selector nor the controller's
	// labels, nor the PET_* values the launcher renders (only the order of
	// env, as the test has no server to default fieldRef.apiVersion).
	patched, err := a.WithPatch(mustMap(t, a.Rendered))
	if err != nil {
		t.Fatal(err)
	}
	for _, never := range []string{"selector", "controller-uid", "job-name", "llama-0.llama", `"29400"`} {
		if strings.Contains(patched.Patch, never) {
			t.Errorf("the patch holds %s:\n%s", never, patched.Patch)
		}
	}
}

// PET_* variables that are not what the provider renders (a rank from
// elsewhere, another master) leave the launcher to the Job: launcher none.
func TestInferIndexedJobOwnLauncher(t *testing.T) {
	own := strings.Replace(handWrittenIndexedJob, `value: llama-0.llama`, `value: head.llama`, 1)
	a, diags := InferWith(liveObject(t, own), "", serviceReader(t, headlessService))
	rendertest.RequireNoErrors(t, diags)
	if l := a.Workload.Distributed.Launcher; l != spec.LauncherNone {
		t.Errorf("launcher = %q, want none", l)
	}
	if a.Workload.Env["PET_MASTER_ADDR"] != "head.llama" {
		t.Errorf("env = %v, want the Job's own PET_* variables kept", a.Workload.Env)
	}
}

// A Service that is not headless, or does not select the Job's pods, is
// refused with what is wrong.
func TestInferIndexedJobRefusesService(t *testing.T) {
	for name, c := range map[string]struct{ service, want string }{
		"not headless":    {strings.Replace(headlessService, "clusterIP: None", "clusterIP: 10.96.0.12", 1), "is not headless"},
		"other pods":      {strings.Replace(headlessService, "selector: {app: llama}", "selector: {app: other}", 1), "does not select the pods"},
		"two ports":       {strings.Replace(headlessService, "ports: [", "ports: [{name: m, port: 9090},", 1), "one TCP port"},
		"other subdomain": {headlessService, "subdomain is \"workers\""},
	} {
		t.Run(name, func(t *testing.T) {
			job := handWrittenIndexedJob
			if name == "other subdomain" {
				job = strings.Replace(job, "subdomain: llama", "subdomain: workers", 1)
			}
			_, diags := InferWith(liveObject(t, job), "", serviceReader(t, c.service))
			if !diags.HasError() || !strings.Contains(diags.Errors()[0].Detail, c.want) {
				t.Fatalf("diagnostics %v, want an error saying %q", diags, c.want)
			}
		})
	}
}

// Without its Service the Job is still adopted: the apply creates the
// Service, and the import says so.
func TestInferIndexedJobWithoutService(t *testing.T) {
	a, diags := InferWith(liveObject(t, handWrittenIndexedJob), "", serviceReader(t, ""))
	rendertest.RequireNoErrors(t, diags)
	if *a.Workload.Distributed.Port != 29400 || !strings.Contains(strings.Join(a.Corrections, "\n"), "creates the headless Service ml/llama") {
		t.Errorf("port %d, corrections %v", *a.Workload.Distributed.Port, a.Corrections)
	}
}

func mustMap(t *testing.T, obj workload.Object) map[string]any {
	t.Helper()
	m, err := workload.ObjectMap(obj)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
