package workload

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// patched renders w with a patch and fails the test on errors.
func patched(t *testing.T, w spec.Workload, patch string) *Rendered {
	t.Helper()
	w.Patch = patch
	r, diags := ResolveAndRender(w, Options{})
	rendertest.RequireNoErrors(t, diags)
	return r
}

func eksWorkload(kind string) spec.Workload {
	return spec.Workload{Name: "llm", Namespace: "ml", Kind: kind, Cloud: "eks", Image: "vllm/vllm-openai:v0.6.0",
		GPU: spec.GPU{Count: 1, Accelerator: "a10g"}}
}

// Fields no attribute covers go through the patch, and the GPU placement
// is untouched by them.
func TestPatchAddsWhatAttributesDoNotCover(t *testing.T) {
	r := patched(t, eksWorkload(spec.KindDeployment), `
spec:
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: 0, maxSurge: 1}
  template:
    spec:
      priorityClassName: inference-high
      imagePullSecrets: [{name: ngc}]
      securityContext: {runAsNonRoot: true, runAsUser: 1000}
      nodeSelector: {team: ml}
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
        - {key: team, operator: Equal, value: ml, effect: NoSchedule}
      containers:
        - name: metrics
          image: prom/statsd-exporter:v0.27.0
        - name: llm
          imagePullPolicy: Always
          resources:
            limits: {cpu: "8"}
          volumeMounts: [{name: weights, mountPath: /weights}]
      volumes:
        - name: weights
          persistentVolumeClaim: {claimName: llama-weights}
`)
	pod := deploymentOf(t, r).Spec.Template.Spec
	if pod.PriorityClassName != "inference-high" || len(pod.ImagePullSecrets) != 1 || pod.SecurityContext == nil {
		t.Errorf("pod-level fields not patched: %+v", pod)
	}
	if deploymentOf(t, r).Spec.Strategy.Type != "RollingUpdate" {
		t.Errorf("strategy = %+v", deploymentOf(t, r).Spec.Strategy)
	}
	if len(pod.Containers) != 2 || pod.Containers[0].Name != "llm" || pod.Containers[0].ImagePullPolicy != "Always" ||
		len(pod.Containers[0].VolumeMounts) != 1 {
		t.Errorf("containers not merged by name: %+v", pod.Containers)
	}
	limits := pod.Containers[0].Resources.Limits
	if limits.Name("nvidia.com/gpu", "").String() != "1" || limits.Cpu().String() != "8" {
		t.Errorf("limits = %v, want the GPU kept and cpu 8", limits)
	}
	if pod.NodeSelector["team"] != "ml" || pod.NodeSelector["k8s.amazonaws.com/accelerator"] != "nvidia-a10g" {
		t.Errorf("nodeSelector = %v", pod.NodeSelector)
	}
	if !strings.Contains(r.Manifest, "priorityClassName: inference-high") {
		t.Errorf("the manifest does not show the patch:\n%s", r.Manifest)
	}
}

// A Job's own controls are patchable too.
func TestPatchJob(t *testing.T) {
	r := patched(t, eksWorkload(spec.KindJob), `
spec:
  podFailurePolicy:
    rules:
      - action: FailJob
        onExitCodes: {operator: In, values: [42]}
  template:
    spec:
      restartPolicy: Never
`)
	if jobOf(t, r).Spec.PodFailurePolicy == nil || len(jobOf(t, r).Spec.PodFailurePolicy.Rules) != 1 {
		t.Errorf("podFailurePolicy not patched: %+v", jobOf(t, r).Spec)
	}
}

// A patch that undoes what the GPU rules decided is refused on the patch
// attribute, naming the field and what to do instead.
func TestPatchCannotUndoGPURules(t *testing.T) {
	cases := map[string]struct {
		kind, patch, want string
	}{
		"not YAML":         {spec.KindDeployment, "spec: [", "Invalid patch"},
		"a list":           {spec.KindDeployment, "- a\n- b", "not an object"},
		"misspelt field":   {spec.KindDeployment, "spec:\n  template:\n    spec:\n      priorityClassNam: x", "unknown field"},
		"GPU limit gone":   {spec.KindDeployment, containerPatch(`resources: {limits: {nvidia.com/gpu: null}}`), "changes the GPU request"},
		"more GPUs":        {spec.KindDeployment, containerPatch(`resources: {limits: {nvidia.com/gpu: "2"}, requests: {nvidia.com/gpu: "2"}}`), "changes the GPU request"},
		"another resource": {spec.KindDeployment, containerPatch(`resources: {limits: {nvidia.com/mig-1g.5gb: "1"}}`), "adds a GPU resource"},
		"GPU container renamed away": {spec.KindDeployment, "spec:\n  template:\n    spec:\n      containers:\n        - {name: llm, $patch: delete}\n        - {name: other, image: x}",
			"removes the GPU container"},
		"sidecar with GPUs": {spec.KindDeployment, "spec:\n  template:\n    spec:\n      containers:\n        - name: sidecar\n          image: x\n          resources: {limits: {nvidia.com/gpu: \"1\"}}",
			`containers "sidecar" asks for GPU`},
		"init container with GPUs": {spec.KindJob, "spec:\n  template:\n    spec:\n      initContainers:\n        - name: warm\n          image: x\n          resources: {limits: {nvidia.com/gpu: \"1\"}}",
			`initContainers "warm" asks for GPU`},
		"other accelerator": {spec.KindDeployment, "spec:\n  template:\n    spec:\n      nodeSelector: {k8s.amazonaws.com/accelerator: nvidia-tesla-t4}",
			"changes the GPU node selector"},
		"toleration dropped": {spec.KindDeployment, "spec:\n  template:\n    spec:\n      tolerations: [{key: team, operator: Exists}]",
			"drops a required toleration"},
		"affinity replaced": {spec.KindDeployment, "spec:\n  template:\n    spec:\n      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: team, operator: Exists}]}]}}}",
			"widens the GPU node affinity"},
		"renamed": {spec.KindDeployment, "metadata: {name: other}", "renames the workload"},
		"selector label": {spec.KindDeployment, "spec: {template: {metadata: {labels: {app.kubernetes.io/name: other}}}}",
			"changes a selector label"},
		"job pod label": {spec.KindJob, "spec: {template: {metadata: {labels: {app.kubernetes.io/instance: null}}}}",
			"changes a selector label"},
		"selector": {spec.KindDeployment, "spec: {selector: {matchLabels: {app: x}}}", "changes the selector"},
		"statefulset selector": {spec.KindStatefulSet, "spec: {selector: {matchLabels: {app: x}}}",
			"changes the selector"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := eksWorkload(c.kind)
			w.Patch = c.patch
			r, diags := ResolveAndRender(w, Options{})
			if r != nil {
				t.Errorf("rendered despite %q", c.want)
			}
			for _, d := range diags.Errors() {
				if d.PathString() == "patch" && strings.Contains(d.Summary+": "+d.Detail, c.want) {
					if !strings.Contains(d.Detail, "Allowed") {
						t.Errorf("the finding does not say what is allowed: %s", d.Detail)
					}
					return
				}
			}
			t.Errorf("want an error on patch containing %q, got:\n%s", c.want, rendertest.FormatDiags(diags))
		})
	}
}

// Adding requirements to the placement's affinity narrows it: allowed.
func TestPatchMayNarrowAffinity(t *testing.T) {
	base, diags := ResolveAndRender(eksWorkload(spec.KindDeployment), Options{})
	rendertest.RequireNoErrors(t, diags)
	terms := base.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		t.Fatal("EKS placement has no required affinity: the test would narrow nothing")
	}
	var b strings.Builder
	b.WriteString("spec:\n  template:\n    spec:\n      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n")
	for _, term := range terms {
		b.WriteString("              - matchExpressions:\n                  - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}\n")
		for _, r := range term.MatchExpressions {
			b.WriteString("                  - {key: " + r.Key + ", operator: " + string(r.Operator) + ", values: [" + strings.Join(r.Values, ", ") + "]}\n")
		}
	}
	patched(t, eksWorkload(spec.KindDeployment), b.String())
}

func containerPatch(body string) string {
	return "spec:\n  template:\n    spec:\n      containers:\n        - name: llm\n          " + body + "\n"
}

// An adopted workload keeps its own selector and container name, and its
// patch may leave out the provider's managed-by label, which only marks
// objects for the read cache.
func TestAdoptedIdentityRenders(t *testing.T) {
	w := eksWorkload(spec.KindDeployment)
	w.SelectorLabels = map[string]string{"app": "llm"}
	w.ContainerName = "server"
	r := patched(t, w, "metadata: {labels: {app.kubernetes.io/managed-by: null}}\n"+
		"spec: {template: {metadata: {labels: {app.kubernetes.io/managed-by: null}}}}")
	d := deploymentOf(t, r)
	if got := d.Spec.Selector.MatchLabels; len(got) != 1 || got["app"] != "llm" {
		t.Errorf("selector = %v, want only app=llm", got)
	}
	if got := d.Spec.Template.Labels; got["app"] != "llm" || got[spec.LabelManagedBy] != "" || got[spec.LabelName] != "" {
		t.Errorf("template labels = %v, want app=llm without the provider's labels", got)
	}
	if _, ok := d.Labels[spec.LabelManagedBy]; ok {
		t.Errorf("metadata labels = %v, want managed-by patched away", d.Labels)
	}
	if c := d.Spec.Template.Spec.Containers[0]; c.Name != "server" || c.Resources.Limits.Name("nvidia.com/gpu", "").Value() != 1 {
		t.Errorf("GPU container = %s with limits %v, want server with nvidia.com/gpu 1", c.Name, c.Resources.Limits)
	}
	if r.SelectorLabels["app"] != "llm" {
		t.Errorf("SelectorLabels = %v: pods are found by it", r.SelectorLabels)
	}
}

// The typed pod attributes teams need most: pull secrets for NGC images and
// the priority class queueing systems read.
func TestPullSecretsAndPriorityClass(t *testing.T) {
	w := eksWorkload(spec.KindDeployment)
	w.ImagePullSecrets = []string{"ngc", "quay"}
	w.PriorityClassName = "inference-high"
	pod := deploymentOf(t, patched(t, w, "")).Spec.Template.Spec
	if len(pod.ImagePullSecrets) != 2 || pod.ImagePullSecrets[0].Name != "ngc" || pod.ImagePullSecrets[1].Name != "quay" {
		t.Errorf("imagePullSecrets = %v, want ngc, quay in order", pod.ImagePullSecrets)
	}
	if pod.PriorityClassName != "inference-high" {
		t.Errorf("priorityClassName = %q", pod.PriorityClassName)
	}
	w.ImagePullSecrets = []string{"NGC key"}
	w.PriorityClassName = "High"
	_, diags := ResolveAndRender(w, Options{})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "image_pull_secrets[0]", "DNS-1123 subdomain")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "priority_class_name", "DNS-1123 subdomain")
}

func TestSelectorAndContainerNameValidation(t *testing.T) {
	w := eksWorkload(spec.KindDeployment)
	w.SelectorLabels = map[string]string{spec.LabelManagedBy: "x", "bad key!": "v"}
	w.ContainerName = "Server_1"
	_, diags := ResolveAndRender(w, Options{})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "selector_labels["+`"app.kubernetes.io/managed-by"`+"]", "cannot tell one workload")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, `selector_labels["bad key!"]`, "name part must consist")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "container_name", "lowercase RFC 1123")
}
