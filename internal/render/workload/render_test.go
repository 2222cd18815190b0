package workload

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func mustRender(t *testing.T, w spec.Workload, opts Options) *Rendered {
	t.Helper()
	r, diags := ResolveAndRender(w, opts)
	rendertest.RequireNoErrors(t, diags)
	return r
}

func gpuContainer(r *Rendered) corev1.Container {
	return r.PodTemplate().Spec.Containers[0]
}

func TestRenderObjectsInApplyOrder(t *testing.T) {
	w := rendertest.ValidWorkload()
	w.Cloud, w.GPU = "generic", spec.GPU{Count: 1, DRA: &spec.DRA{}}
	w.ModelCache = &spec.ModelCache{Size: "10Gi"}
	r := mustRender(t, w, Options{ServerVersion: utilversion.MajorMinor(1, 34)})
	var kinds []string
	for _, obj := range r.Objects {
		kinds = append(kinds, obj.GetObjectKind().GroupVersionKind().Kind)
	}
	if !slices.Equal(kinds, []string{"PersistentVolumeClaim", "ResourceClaimTemplate", "Deployment"}) {
		t.Fatalf("apply order = %v", kinds)
	}
	if r.ResourceClaimTemplateV1 == nil || r.ResourceClaimTemplateV1beta1 != nil || r.DRAAPIVersionAssumed {
		t.Fatal("1.34 must render resource.k8s.io/v1 without assuming")
	}
	if r.FieldManager != spec.DefaultFieldManager || deploymentOf(t, r).Namespace != spec.DefaultNamespace {
		t.Fatalf("defaults not applied: %q %q", r.FieldManager, deploymentOf(t, r).Namespace)
	}
}

func TestRenderDRAHasNoExtendedResource(t *testing.T) {
	w := rendertest.ValidWorkload()
	w.GPU = spec.GPU{Count: 3, Accelerator: "l4", DRA: &spec.DRA{DeviceClass: "gpu.example.com"}}
	r := mustRender(t, w, Options{})
	c := gpuContainer(r)
	for name := range c.Resources.Limits {
		if name != corev1.ResourceMemory {
			t.Errorf("DRA pod must not request %s", name)
		}
	}
	if len(c.Resources.Claims) != 1 || c.Resources.Claims[0].Name != "gpu" {
		t.Fatalf("claims = %+v", c.Resources.Claims)
	}
	pod := deploymentOf(t, r).Spec.Template.Spec
	if len(pod.ResourceClaims) != 1 || *pod.ResourceClaims[0].ResourceClaimTemplateName != "llm-gpu" {
		t.Fatalf("pod claims = %+v", pod.ResourceClaims)
	}
	req := r.ResourceClaimTemplateV1.Spec.Spec.Devices.Requests[0].Exactly
	if req.Count != 3 || req.DeviceClassName != "gpu.example.com" || req.AllocationMode != resourcev1.DeviceAllocationModeExactCount {
		t.Fatalf("request = %+v", req)
	}
	// Node placement still applies: DRA replaces only the resource request.
	if r.NodeSelector["cloud.google.com/gke-accelerator"] != "nvidia-l4" || r.ResourceName != "" {
		t.Fatalf("selector %v, resource %q", r.NodeSelector, r.ResourceName)
	}
}

func TestRenderUpdateStrategy(t *testing.T) {
	w := rendertest.ValidWorkload()
	if got := deploymentOf(t, mustRender(t, w, Options{})).Spec.Strategy.Type; got != "Recreate" {
		t.Errorf("one replica: %s", got)
	}
	w.Replicas = rendertest.Ptr(int32(3))
	s := deploymentOf(t, mustRender(t, w, Options{})).Spec.Strategy
	if s.Type != "RollingUpdate" || s.RollingUpdate.MaxSurge.IntValue() != 0 || s.RollingUpdate.MaxUnavailable.IntValue() != 1 {
		t.Errorf("several replicas: %+v", s)
	}
}

// update_strategy overrides the strategy derived from replicas, whatever
// their number.
func TestRenderUpdateStrategySet(t *testing.T) {
	for _, tc := range []struct {
		mode               string
		replicas           int32
		typ                string
		surge, unavailable int
	}{
		{spec.UpdateRecreate, 3, "Recreate", 0, 0},
		{spec.UpdateRolling, 1, "RollingUpdate", 0, 1},
		{spec.UpdateSurge, 1, "RollingUpdate", 1, 0},
		{spec.UpdateSurge, 4, "RollingUpdate", 1, 0},
	} {
		w := rendertest.ValidWorkload()
		w.Replicas, w.UpdateStrategy = rendertest.Ptr(tc.replicas), tc.mode
		s := deploymentOf(t, mustRender(t, w, Options{})).Spec.Strategy
		if string(s.Type) != tc.typ {
			t.Errorf("%s with %d replicas: %s, want %s", tc.mode, tc.replicas, s.Type, tc.typ)
			continue
		}
		if tc.typ == "Recreate" {
			if s.RollingUpdate != nil {
				t.Errorf("%s: Recreate with rollingUpdate %+v", tc.mode, s.RollingUpdate)
			}
			continue
		}
		if s.RollingUpdate.MaxSurge.IntValue() != tc.surge || s.RollingUpdate.MaxUnavailable.IntValue() != tc.unavailable {
			t.Errorf("%s with %d replicas: maxSurge %s maxUnavailable %s, want %d and %d", tc.mode, tc.replicas,
				s.RollingUpdate.MaxSurge.String(), s.RollingUpdate.MaxUnavailable.String(), tc.surge, tc.unavailable)
		}
	}
}

func TestRenderEnvUserWinsAndIsSorted(t *testing.T) {
	w := rendertest.ValidWorkload()
	w.Env = map[string]string{"Z": "1", "LD_LIBRARY_PATH": "/usr/local/nvidia/lib64:/opt/lib", "A": "2"}
	env := gpuContainer(mustRender(t, w, Options{})).Env
	var names []string
	for _, e := range env {
		names = append(names, e.Name)
		if e.Name == "LD_LIBRARY_PATH" && e.Value != "/usr/local/nvidia/lib64:/opt/lib" {
			t.Errorf("user value must win, got %q", e.Value)
		}
	}
	if !slices.Equal(names, []string{"A", "LD_LIBRARY_PATH", "Z"}) {
		t.Errorf("env order = %v", names)
	}
}

func TestRenderResources(t *testing.T) {
	w := rendertest.ValidWorkload()
	w.GPU = spec.GPU{Count: 2, Requests: rendertest.Ptr(int64(2)), Accelerator: "a100-80gb"}
	w.CPU = "7"
	c := gpuContainer(mustRender(t, w, Options{}))
	if _, hasCPULimit := c.Resources.Limits[corev1.ResourceCPU]; hasCPULimit {
		t.Error("no CPU limit: throttling starves data loaders")
	}
	if got := c.Resources.Requests.Cpu().String(); got != "7" {
		t.Errorf("explicit cpu = %s", got)
	}
	mem := c.Resources.Limits[corev1.ResourceMemory]
	if got := mem.String(); got != "128Gi" || !mem.Equal(c.Resources.Requests[corev1.ResourceMemory]) {
		t.Errorf("memory limit %s must equal request (large preset x 2)", got)
	}
	gpu := c.Resources.Limits[clouds.ResourceNvidiaGPU]
	if gpu.Value() != 2 || !gpu.Equal(c.Resources.Requests[clouds.ResourceNvidiaGPU]) {
		t.Errorf("gpu limit/request = %v/%v", gpu, c.Resources.Requests[clouds.ResourceNvidiaGPU])
	}
}

func TestRenderAutopilotCountOnlyForWholeGPUs(t *testing.T) {
	w := rendertest.ValidWorkload()
	w.Cloud = "gke-autopilot"
	w.GPU.Count = 2
	if got := mustRender(t, w, Options{}).NodeSelector[clouds.GKELabelAcceleratorCount]; got != "2" {
		t.Errorf("whole GPUs: count label %q", got)
	}
	w.GPU = spec.GPU{Count: 1, Accelerator: "l4", Sharing: spec.SharingTimeSlicing}
	if _, ok := mustRender(t, w, Options{}).NodeSelector[clouds.GKELabelAcceleratorCount]; ok {
		t.Error("shared slots are not physical GPUs")
	}
}

// TestRenderMIGOnDevicePluginClouds: every cloud where the GPU Operator
// configures MIG (EKS Auto Mode cannot: TestEKSAutoRejectsMIGAndSharing).
func TestRenderMIGOnDevicePluginClouds(t *testing.T) {
	for _, cloud := range []spec.Cloud{spec.CloudAKS, spec.CloudEKS, spec.CloudKarpenter, spec.CloudGeneric} {
		w := rendertest.ValidWorkload()
		w.Cloud, w.GPU = string(cloud), spec.GPU{Count: 1, Accelerator: "a100-80gb", Partition: "3g.40gb"}
		r := mustRender(t, w, Options{})
		if r.ResourceName != "nvidia.com/gpu" || !containsRequirement(r, clouds.LabelGFDProduct, "NVIDIA-A100-SXM4-80GB-MIG-3g.40gb") {
			t.Errorf("%s single: resource %q, affinity %+v", cloud, r.ResourceName, r.Affinity)
		}
		w.GPU.MIGStrategy = spec.MIGStrategyMixed
		if r := mustRender(t, w, Options{}); r.ResourceName != "nvidia.com/mig-3g.40gb" {
			t.Errorf("%s mixed: resource %q", cloud, r.ResourceName)
		}
	}
}

func containsRequirement(r *Rendered, key, value string) bool {
	if r.NodeSelector[key] == value {
		return true
	}
	if r.Affinity == nil {
		return false
	}
	for _, term := range r.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, e := range term.MatchExpressions {
			if e.Key == key && slices.Contains(e.Values, value) {
				return true
			}
		}
	}
	return false
}

func TestRenderObjectsDoNotShareMaps(t *testing.T) {
	w := rendertest.ValidWorkload()
	w.Labels = map[string]string{"team": "ml"}
	w.ModelCache = &spec.ModelCache{Size: "1Gi"}
	r := mustRender(t, w, Options{})
	r.PersistentVolumeClaim.Labels["team"] = "changed"
	if deploymentOf(t, r).Labels["team"] != "ml" || w.Labels["team"] != "ml" {
		t.Fatal("objects and input must not share label maps")
	}
}

// ObjectMap is the one encoding of the plan's and the refresh's manifest:
// no status, no creation timestamps, and nested metadata dropped only when
// nothing else is in it.
func TestObjectMapDropsOnlyWhatClientsNeverSet(t *testing.T) {
	r, diags := ResolveAndRender(spec.Workload{Name: "w", Namespace: "ns", Kind: "deployment", Cloud: "generic", Image: "img",
		GPU: spec.GPU{Count: 1, DRA: &spec.DRA{}}}, Options{ServerVersion: utilversion.MajorMinor(1, 34)})
	rendertest.RequireNoErrors(t, diags)
	for _, obj := range r.Objects {
		m, err := ObjectMap(obj)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m["status"]; ok {
			t.Errorf("%T: status must be dropped", obj)
		}
		if _, ok, _ := unstructured.NestedFieldNoCopy(m, "metadata", "creationTimestamp"); ok {
			t.Errorf("%T: creationTimestamp must be dropped", obj)
		}
		if _, ok, _ := unstructured.NestedFieldNoCopy(m, "spec", "metadata"); ok {
			t.Errorf("%T: an empty spec.metadata must be dropped", obj)
		}
	}
	if labels, ok, _ := unstructured.NestedStringMap(mustObjectMap(t, r.Objects), "spec", "template", "metadata", "labels"); !ok || len(labels) == 0 {
		t.Errorf("a pod template's labels must stay: %v", labels)
	}
	if got, err := ManifestOf(r.Objects); err != nil || got != r.Manifest {
		t.Errorf("Rendered.Manifest and ManifestOf must be the same encoding (%v)", err)
	}
}

// mustObjectMap encodes the workload object (the last one rendered).
func mustObjectMap(t *testing.T, objects []Object) map[string]any {
	t.Helper()
	m, err := ObjectMap(objects[len(objects)-1])
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// workloadAs is the workload object of r as the Go type of the kind the
// test rendered.
func workloadAs[T Object](t *testing.T, r *Rendered) T {
	t.Helper()
	obj, ok := r.Workload().(T)
	if !ok {
		t.Fatalf("rendered a %T, want a %T", r.Workload(), obj)
	}
	return obj
}

func deploymentOf(t *testing.T, r *Rendered) *appsv1.Deployment {
	t.Helper()
	return workloadAs[*appsv1.Deployment](t, r)
}

func jobOf(t *testing.T, r *Rendered) *batchv1.Job {
	t.Helper()
	return workloadAs[*batchv1.Job](t, r)
}

func cronJobOf(t *testing.T, r *Rendered) *batchv1.CronJob {
	t.Helper()
	return workloadAs[*batchv1.CronJob](t, r)
}
