package ray

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// renderPatched renders cpuHeadCluster with the train group's (worker 0)
// patch and the head's, returning the render (nil on errors) and every
// finding.
func renderPatched(t *testing.T, trainPatch, headPatch string) (*Rendered, gpudiag.Diagnostics) {
	t.Helper()
	c := cpuHeadCluster()
	c.WorkerGroups[0].Patch, c.Head.Patch = trainPatch, headPatch
	resolved := Resolve(c, true)
	if resolved.Findings.HasError() {
		return nil, resolved.Findings
	}
	r, diags := Render(resolved, workload.Options{})
	return r, append(resolved.Findings, diags...)
}

// A group's patch reaches the fields no attribute covers: a sidecar, a
// volume, the group's own settings and more start parameters; the Ray
// container stays first, and the queue's check sees the patched pod.
func TestGroupPatch_applies(t *testing.T) {
	r, diags := renderPatched(t, `
idleTimeoutSeconds: 120
rayStartParams:
  object-store-memory: "1000000000"
template:
  spec:
    priorityClassName: high
    containers:
    - name: log-shipper
      image: fluent/fluent-bit:3.1
    - name: ray-worker
      volumeMounts:
      - name: data
        mountPath: /data
    volumes:
    - name: data
      persistentVolumeClaim:
        claimName: train-data
`, "")
	rendertest.RequireNoErrors(t, diags)
	wg := r.ClusterSpec().WorkerGroupSpecs[0]
	pod := wg.Template.Spec
	if wg.IdleTimeoutSeconds == nil || *wg.IdleTimeoutSeconds != 120 || wg.RayStartParams["object-store-memory"] != "1000000000" ||
		wg.RayStartParams[ParamNumGPUs] != "8" {
		t.Errorf("group fields: idle %v, start params %v", wg.IdleTimeoutSeconds, wg.RayStartParams)
	}
	if pod.PriorityClassName != "high" || len(pod.Containers) != 2 || pod.Containers[0].Name != WorkerContainer ||
		pod.Containers[1].Name != "log-shipper" {
		t.Fatalf("patched pod: priority %q, containers %v", pod.PriorityClassName, pod.Containers)
	}
	if q := pod.Containers[0].Resources.Limits["nvidia.com/gpu"]; q.Value() != 8 {
		t.Errorf("the Ray container lost its GPUs: %v", pod.Containers[0].Resources.Limits)
	}
	mounts := pod.Containers[0].VolumeMounts
	if !slices.ContainsFunc(mounts, func(m corev1.VolumeMount) bool { return m.Name == "data" && m.MountPath == "/data" }) {
		t.Errorf("the Ray container's mounts %v lack the patch's", mounts)
	}
	if got := r.Groups[1].Pod.Pod.Spec.PriorityClassName; got != "high" {
		t.Errorf("the group's rendered pod is not the patched one (priority %q)", got)
	}
}

// What a group's patch may not undo, each on the group's patch attribute.
func TestGroupPatch_refusals(t *testing.T) {
	for name, tc := range map[string]struct{ train, head, path, want string }{
		"not an object": {train: "- a", path: "worker_group[0].patch", want: "does not read as a YAML or JSON object"},
		"a misspelt field": {train: "template:\n  spec:\n    prioritClassName: high", path: "worker_group[0].patch",
			want: `unknown field "template.spec.prioritClassName"`},
		"replicas":         {train: "replicas: 5", path: "worker_group[0].patch", want: "set replicas instead"},
		"the group's name": {train: "groupName: other", path: "worker_group[0].patch", want: "groupName comes from its name attribute"},
		"the GPU limit": {train: `template:
  spec:
    containers:
    - name: ray-worker
      resources:
        limits:
          nvidia.com/gpu: "4"`, path: "worker_group[0].patch", want: `after the patch it is "4"`},
		"num-gpus": {train: "rayStartParams:\n  num-gpus: \"2\"", path: "worker_group[0].patch",
			want: `num-gpus = "2", but its pod gets 8 GPUs`},
		"Ray labels in the start parameters": {train: "rayStartParams:\n  labels: a=b", path: "worker_group[0].patch",
			want: "KubeRay v1.5 refuses"},
		"the accelerator type": {train: "labels:\n  ray.io/accelerator-type: A100", path: "worker_group[0].patch",
			want: `is "H100"`},
		"the pool's toleration": {train: "template:\n  spec:\n    tolerations: []", path: "worker_group[0].patch",
			want: "without it the pod stays Pending"},
		"a GPU for a sidecar": {train: `template:
  spec:
    containers:
    - name: sidecar
      image: busybox
      resources:
        limits:
          nvidia.com/gpu: "1"`, path: "worker_group[0].patch", want: `containers "sidecar" asks for GPU resources`},
		"the head's hidden GPUs": {head: `template:
  spec:
    containers:
    - name: ray-head
      env:
      - name: NVIDIA_VISIBLE_DEVICES
        value: all`, path: "head.patch", want: "NVIDIA runtime shows every GPU of the node"},
		"the pods' selector label": {train: "template:\n  metadata:\n    labels:\n      app.kubernetes.io/instance: other",
			path: "worker_group[0].patch", want: `label "app.kubernetes.io/instance" to "other"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, diags := renderPatched(t, tc.train, tc.head)
			rendertest.RequireDiag(t, diags, errSev, tc.path, tc.want)
		})
	}
}

// A patch of a group without GPUs may set the start parameters, but not a
// num-gpus above 0.
func TestGroupPatch_headNumGPUs(t *testing.T) {
	_, diags := renderPatched(t, "", "rayStartParams:\n  num-gpus: \"1\"\n  dashboard-host: 0.0.0.0")
	rendertest.RequireDiag(t, diags, errSev, "head.patch", "gets 0 GPUs")
	r, diags := renderPatched(t, "", "rayStartParams:\n  dashboard-host: 0.0.0.0")
	rendertest.RequireNoErrors(t, diags)
	if got := r.ClusterSpec().HeadGroupSpec.RayStartParams; got["dashboard-host"] != "0.0.0.0" || got[ParamNumGPUs] != "0" {
		t.Errorf("head start params %v", got)
	}
}
