package adopt

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// handWrittenEKS is how teams write a GPU Deployment on EKS from the docs:
// accelerator label and toleration right, their own selector and container
// name, a sidecar and a volume, and no exclusion of MIG or time-sliced
// nodes of the same accelerator.
const handWrittenEKS = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
  namespace: ml
  labels: {app: llm, team: search}
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: "{}"
    deployment.kubernetes.io/revision: "3"
    owner: search-team
spec:
  replicas: 2
  selector:
    matchLabels: {app: llm}
  template:
    metadata:
      labels: {app: llm, tier: serving}
    spec:
      serviceAccountName: llm
      imagePullSecrets: [{name: ngc}]
      nodeSelector:
        k8s.amazonaws.com/accelerator: nvidia-a10g
      tolerations:
      - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
      - name: server
        image: vllm/vllm-openai:v0.6.0
        args: ["--model", "/models/llama"]
        env:
        - {name: HF_HOME, value: /models}
        - name: HF_TOKEN
          valueFrom: {secretKeyRef: {name: hf, key: token}}
        - name: POD_IP
          valueFrom: {fieldRef: {fieldPath: status.podIP}}
        ports: [{containerPort: 8000}]
        resources:
          limits: {nvidia.com/gpu: "1", memory: 24Gi}
          requests: {nvidia.com/gpu: "1", cpu: "4", memory: 24Gi}
        volumeMounts: [{name: models, mountPath: /models}]
      - name: metrics
        image: prom/statsd-exporter:v0.27.0
      volumes:
      - name: models
        persistentVolumeClaim: {claimName: llama}
`

func liveObject(t *testing.T, text string) *unstructured.Unstructured {
	t.Helper()
	obj := map[string]any{}
	if err := yaml.Unmarshal([]byte(text), &obj); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: obj}
}

func infer(t *testing.T, text, defaultCloud string) *Adoption {
	t.Helper()
	a, diags := Infer(liveObject(t, text), defaultCloud)
	rendertest.RequireNoErrors(t, diags)
	return a
}

func TestInferHandWrittenEKSDeployment(t *testing.T) {
	a := infer(t, handWrittenEKS, "")
	w := a.Workload
	want := spec.GPU{Count: 1, Accelerator: "a10g"}
	if w.Cloud != "eks" || !reflect.DeepEqual(w.GPU, want) || w.Spot {
		t.Fatalf("cloud %q gpu %+v spot %v; want eks %+v on demand", w.Cloud, w.GPU, w.Spot, want)
	}
	checks := map[string][2]any{
		"container_name":  {w.ContainerName, "server"},
		"selector_labels": {w.SelectorLabels, map[string]string{"app": "llm"}},
		"labels":          {w.Labels, map[string]string{"team": "search"}},
		"annotations":     {w.Annotations, map[string]string{"owner": "search-team"}},
		"pod_labels":      {w.PodLabels, map[string]string{"tier": "serving"}},
		"env":             {w.Env, map[string]string{"HF_HOME": "/models"}},
		"secret_env":      {w.SecretEnv, map[string]spec.SecretKeyRef{"HF_TOKEN": {Name: "hf", Key: "token"}}},
		"ports":           {w.Ports, []int32{8000}},
		"cpu, memory":     {w.CPU + " " + w.Memory, "4 24Gi"},
		"replicas":        {*w.Replicas, int32(2)},
		"args":            {w.Args, []string{"--model", "/models/llama"}},
		"pull secrets":    {w.ImagePullSecrets, []string{"ngc"}},
	}
	for name, c := range checks {
		if !reflect.DeepEqual(c[0], c[1]) {
			t.Errorf("%s = %#v, want %#v", name, c[0], c[1])
		}
	}
	if len(a.Corrections) != 1 || !strings.Contains(a.Corrections[0], "nvidia.com/gpu.sharing-strategy NotIn") {
		t.Errorf("corrections = %q, want only the exclusion of shared and MIG nodes", a.Corrections)
	}
}

// The imported configuration renders the corrected object: the patch
// holds exactly what the attributes do not, and passes the GPU guard
// rails.
func TestPatchReproducesTheCorrectedObject(t *testing.T) {
	for name, text := range map[string]string{"eks": handWrittenEKS, "gke mig": handWrittenGKEMIG, "generic mixed": handWrittenGenericMixed} {
		t.Run(name, func(t *testing.T) {
			a := infer(t, text, "")
			rendered, err := workload.ObjectMap(a.Rendered)
			if err != nil {
				t.Fatal(err)
			}
			w, err := a.WithPatch(rendered)
			if err != nil {
				t.Fatal(err)
			}
			r, diags := workload.ResolveAndRender(w, workload.Options{SkipManifest: true})
			rendertest.RequireNoErrors(t, diags)
			got, _ := workload.ObjectMap(r.Objects[len(r.Objects)-1])
			corrected, _ := workload.ObjectMap(a.Corrected)
			got, wantObj := clean(got, w.Name), clean(corrected, w.Name)
			if !reflect.DeepEqual(got, wantObj) {
				gy, _ := yaml.Marshal(got)
				wy, _ := yaml.Marshal(wantObj)
				t.Fatalf("render with patch:\n%s\nwant the corrected object:\n%s\npatch:\n%s", gy, wy, w.Patch)
			}
			for _, absent := range []string{"kubectl.kubernetes.io", "deployment.kubernetes.io", "nvidia.com/gpu:"} {
				if strings.Contains(w.Patch, absent) {
					t.Errorf("patch carries %q, which is bookkeeping or the gpu block's:\n%s", absent, w.Patch)
				}
			}
		})
	}
}

const handWrittenGKEMIG = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: notebook, namespace: ml}
spec:
  selector: {matchLabels: {app.kubernetes.io/name: notebook, app.kubernetes.io/instance: notebook}}
  template:
    metadata: {labels: {app.kubernetes.io/name: notebook, app.kubernetes.io/instance: notebook}}
    spec:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-tesla-a100
        cloud.google.com/gke-gpu-partition-size: 2g.10gb
      containers:
      - name: notebook
        image: jupyter/pytorch-notebook:latest
        resources:
          limits: {nvidia.com/gpu: "1"}
`

const handWrittenGenericMixed = `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: embed, namespace: ml}
spec:
  serviceName: embed-headless
  selector: {matchLabels: {app: embed}}
  template:
    metadata: {labels: {app: embed}}
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB}
      containers:
      - name: embed
        image: embed:1
        resources:
          limits: {nvidia.com/mig-1g.5gb: "2"}
          requests: {nvidia.com/mig-1g.5gb: "2"}
`

func TestInferMIG(t *testing.T) {
	cases := map[string]struct {
		text  string
		cloud string
		gpu   spec.GPU
	}{
		"gke partition label": {handWrittenGKEMIG, "gke", spec.GPU{Count: 1, Accelerator: "a100-40gb", Partition: "2g.10gb"}},
		"mixed strategy resource": {handWrittenGenericMixed, "generic",
			spec.GPU{Count: 2, Accelerator: "a100-40gb", Partition: "1g.5gb", MIGStrategy: spec.MIGStrategyMixed}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			a := infer(t, c.text, "")
			if a.Workload.Cloud != c.cloud || !reflect.DeepEqual(a.Workload.GPU, c.gpu) {
				t.Errorf("cloud %q gpu %+v, want %q %+v", a.Workload.Cloud, a.Workload.GPU, c.cloud, c.gpu)
			}
		})
	}
	// GKE Standard and Autopilot render this pod alike: the import says
	// which it chose and how to choose the other.
	a, diags := Infer(liveObject(t, handWrittenGKEMIG), "")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityWarning, "", "gke, gke-autopilot would all render; adopted as gke")
	if a, _ := Infer(liveObject(t, handWrittenGKEMIG), "gke-autopilot"); a.Workload.Cloud != "gke-autopilot" {
		t.Errorf("with default_cloud gke-autopilot, adopted as %q", a.Workload.Cloud)
	}
	// GKE's MIG nodes carry a partition taint the hand-written pod does not
	// tolerate: it would never schedule.
	if !strings.Contains(strings.Join(a.Corrections, "\n"), `"cloud.google.com/gke-gpu-partition-size=2g.10gb" (Equal, effect NoSchedule)`) {
		t.Errorf("corrections = %q, want the partition toleration added", a.Corrections)
	}
}

// What the provider renders needs no correction and no patch beyond the
// server's defaults.
func TestInferRenderedWorkloadNeedsNothing(t *testing.T) {
	for _, w := range []spec.Workload{
		{Name: "llm", Namespace: "ml", Kind: spec.KindDeployment, Cloud: "aks", Image: "vllm:1", GPU: spec.GPU{Count: 1, Accelerator: "a100-80gb"}, Spot: true},
		{Name: "llm", Namespace: "ml", Kind: spec.KindDeployment, Cloud: "karpenter", Image: "vllm:1", GPU: spec.GPU{Count: 4, Accelerator: "l40s"}},
		{Name: "llm", Namespace: "ml", Kind: spec.KindStatefulSet, Cloud: "gke", Image: "vllm:1", GPU: spec.GPU{Count: 1, Accelerator: "l4", Sharing: spec.SharingTimeSlicing, MaxSharedClients: 4}},
		{Name: "nightly", Namespace: "ml", Kind: spec.KindCronJob, Cloud: "eks", Image: "train:1", GPU: spec.GPU{Count: 8, Accelerator: "h100-80gb"},
			CronJob: &spec.CronJobControls{Schedule: "0 3 * * *", ConcurrencyPolicy: "Forbid"}},
	} {
		t.Run(w.Kind+" on "+w.Cloud, func(t *testing.T) {
			w.CPU, w.Memory = "2", "8Gi"
			r, diags := workload.ResolveAndRender(w, workload.Options{})
			rendertest.RequireNoErrors(t, diags)
			a, diags := Infer(liveObject(t, r.Manifest), "")
			rendertest.RequireNoErrors(t, diags)
			if w.CronJob != nil && !reflect.DeepEqual(a.Workload.CronJob, w.CronJob) {
				t.Errorf("cronjob = %+v, want %+v", a.Workload.CronJob, w.CronJob)
			}
			if a.Workload.Cloud != w.Cloud || !reflect.DeepEqual(a.Workload.GPU, w.GPU) || a.Workload.Spot != w.Spot {
				t.Errorf("inferred %s %+v spot %v, want %s %+v spot %v", a.Workload.Cloud, a.Workload.GPU, a.Workload.Spot, w.Cloud, w.GPU, w.Spot)
			}
			if len(a.Corrections) > 0 {
				t.Errorf("corrections of the provider's own render: %q", a.Corrections)
			}
			rendered, _ := workload.ObjectMap(a.Rendered)
			adopted, err := a.WithPatch(rendered)
			if err != nil || adopted.Patch != "" {
				t.Errorf("patch = %q (%v), want none", adopted.Patch, err)
			}
		})
	}
}

func TestInferRefuses(t *testing.T) {
	noSelector := strings.Replace(handWrittenGKEMIG, `      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-tesla-a100
        cloud.google.com/gke-gpu-partition-size: 2g.10gb
`, "", 1)
	cases := map[string]struct{ text, want string }{
		"job":                  {strings.Replace(handWrittenGKEMIG, "apps/v1\nkind: Deployment", "batch/v1\nkind: Job", 1), "not a kind import can adopt (a job:"},
		"no gpu":               {strings.Replace(handWrittenGKEMIG, "nvidia.com/gpu", "cpu", 1), "no container asks for a GPU"},
		"cloud ambiguous":      {noSelector, "several clouds"},
		"unknown label":        {strings.Replace(handWrittenGKEMIG, "nvidia-tesla-a100", "nvidia-tesla-z900", 1), "several clouds"},
		"unknown mig resource": {strings.Replace(handWrittenGenericMixed, "mig-1g.5gb", "mig-9g.99gb", 2), "no cloud's placement"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, diags := Infer(liveObject(t, c.text), "")
			if !diags.HasError() || !strings.Contains(rendertest.FormatDiags(diags), c.want) {
				t.Errorf("want an error containing %q, got:\n%s", c.want, rendertest.FormatDiags(diags))
			}
		})
	}
	// The provider's default cloud settles a pod that selects no GPU label.
	a, diags := Infer(liveObject(t, noSelector), "eks")
	rendertest.RequireNoErrors(t, diags)
	if a.Workload.Cloud != "eks" || a.Workload.GPU.Accelerator != "" {
		t.Errorf("cloud %q accelerator %q, want eks with any GPU", a.Workload.Cloud, a.Workload.GPU.Accelerator)
	}
}

// A Deployment whose strategy has one of update_strategy's shapes is
// adopted with that attribute (only where it differs from what replicas
// give), and the patch no longer carries the strategy; Kubernetes' default
// 25%/25% has no such shape and stays in the patch.
func TestInferUpdateStrategy(t *testing.T) {
	deployment := func(replicas, strategy string) string {
		return strings.NewReplacer("REPLICAS", replicas, "STRATEGY", strategy).Replace(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: ml}
spec:
  replicas: REPLICAS
  strategy: STRATEGY
  selector: {matchLabels: {app.kubernetes.io/name: llm, app.kubernetes.io/instance: llm}}
  template:
    metadata: {labels: {app.kubernetes.io/name: llm, app.kubernetes.io/instance: llm}}
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
      - name: llm
        image: vllm/vllm-openai:v0.6.3
        resources:
          limits: {nvidia.com/gpu: "1"}
`)
	}
	for _, tc := range []struct {
		name, replicas, strategy, want string
		inPatch                        bool
	}{
		{"surge, one replica", "1", "{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}", spec.UpdateSurge, false},
		{"recreate, three replicas", "3", "{type: Recreate}", spec.UpdateRecreate, false},
		{"rolling, one replica", "1", "{type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}", spec.UpdateRolling, false},
		{"recreate, one replica: the default", "1", "{type: Recreate}", "", false},
		{"Kubernetes' default", "2", "{type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := infer(t, deployment(tc.replicas, tc.strategy), "gke")
			if a.Workload.UpdateStrategy != tc.want {
				t.Errorf("update_strategy %q, want %q", a.Workload.UpdateStrategy, tc.want)
			}
			rendered, err := workload.ObjectMap(a.Rendered)
			if err != nil {
				t.Fatal(err)
			}
			w, err := a.WithPatch(rendered)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(w.Patch, "strategy"); got != tc.inPatch {
				t.Errorf("strategy in the patch: %v, want %v:\n%s", got, tc.inPatch, w.Patch)
			}
		})
	}
}
