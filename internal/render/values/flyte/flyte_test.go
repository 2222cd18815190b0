package flyte

import (
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

func mustGenerate(t *testing.T, target string, cloud spec.Cloud, in Values) map[string]any {
	t.Helper()
	values, diags := Generate(target, clouds.Lookup(cloud), in, true)
	if diags.HasError() || values == nil {
		t.Fatalf("%s on %s: %v", target, cloud, diags.Errors())
	}
	return values
}

func requiredOn(pod corev1.PodSpec, key string) []corev1.NodeSelectorRequirement {
	var out []corev1.NodeSelectorRequirement
	if pod.Affinity == nil || pod.Affinity.NodeAffinity == nil || pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	for _, term := range pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range term.MatchExpressions {
			if r.Key == key {
				out = append(out, r)
			}
		}
	}
	return out
}

// TestGKEPodsPropellerWouldBuild: on GKE the values make propeller request
// one nvidia.com/gpu, select the device by gke-accelerator (a task names it
// in Flyte v1; v2 maps the configured accelerators to it) and keep
// unpartitioned tasks off MIG partitions (docs/design/flyte.md).
func TestGKEPodsPropellerWouldBuild(t *testing.T) {
	for _, c := range []struct {
		target  string
		version int64
	}{{TargetCore, 1}, {TargetBinary, 1}, {TargetBinary, 2}} {
		name := c.target + " v" + strconv.FormatInt(c.version, 10)
		values := mustGenerate(t, c.target, spec.CloudGKE, Values{FlyteVersion: c.version, Accelerators: []string{"a100-80gb"}})
		pods, err := Pods(c.target, values)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		base := pods[0].Containers[0].Resources
		if q := base.Limits[clouds.ResourceNvidiaGPU]; q.Value() != 1 {
			t.Errorf("%s: the base task must request one nvidia.com/gpu: %v", name, base)
		}
		if !slices.Contains(pods[0].Tolerations, clouds.TolerateExists(string(clouds.ResourceNvidiaGPU))) {
			t.Errorf("%s: the base task must tolerate the GPU taint: %v", name, pods[0].Tolerations)
		}
		var device, unpartitioned bool
		for _, pod := range pods[1:] {
			for _, r := range requiredOn(pod, clouds.GKELabelAccelerator) {
				device = device || (r.Operator == corev1.NodeSelectorOpIn && slices.Equal(r.Values, []string{"nvidia-a100-80gb"}))
			}
			for _, r := range requiredOn(pod, clouds.GKELabelPartitionSize) {
				unpartitioned = unpartitioned || r.Operator == corev1.NodeSelectorOpDoesNotExist
			}
		}
		if device != (c.version == 2) || !unpartitioned {
			t.Errorf("%s: device pod on nvidia-a100-80gb %v (want it in v2 only), unpartitioned pod %v", name, device, unpartitioned)
		}
		if ContainsTemplate(values) {
			t.Errorf("%s: values contain {{", name)
		}
	}
}

func TestPodsNeedThePluginConfig(t *testing.T) {
	values := mustGenerate(t, TargetCore, spec.CloudEKS, Values{})
	if _, err := Pods(TargetBinary, values); err == nil {
		t.Error("flyte-core values read as flyte-binary must be an error: the plugin config is elsewhere")
	}
}

func TestGenerateDiagnostics(t *testing.T) {
	values, diags := Generate(TargetCore, clouds.Lookup(spec.CloudGKE), Values{
		Sharing: "slices", GPUResourceName: "gpu", DeviceNodeLabel: "not a label!", FlyteVersion: 2,
		DefaultEnvVars: map[string]string{"1BAD": "x"},
	}, true)
	if values != nil {
		t.Error("no values with errors")
	}
	for _, want := range []string{"flyte.sharing", "flyte.gpu_resource_name", "flyte.gpu_device_node_label", "flyte.flyte_version",
		`flyte.default_env_vars["1BAD"]`} {
		if !slices.ContainsFunc(diags.Errors(), func(d gpudiag.Diagnostic) bool { return d.PathString() == want }) {
			t.Errorf("no error at %s: %v", want, diags)
		}
	}
	// Plan time (not strict) checks, but writes nothing.
	if values, diags := Generate(TargetCore, clouds.Lookup(spec.CloudGKE), Values{}, false); values != nil || diags.HasError() {
		t.Errorf("plan time: %v %v", values, diags)
	}
}

func TestInputPath(t *testing.T) {
	for _, c := range []struct {
		target string
		keys   []string
		want   string
	}{
		{TargetCore, append(PluginPath(TargetCore), "default-tolerations", "0"), "default_tolerations"},
		{TargetBinary, append(PluginPath(TargetBinary), KeyAcceleratorDevices), "accelerators"},
		{TargetCore, append(PluginPath(TargetCore), KeyGPUResourceName), "sharing"},
		{TargetCore, append(PluginPath(TargetCore), "interruptible-tolerations"), "interruptible"},
		{TargetCore, append(PluginPath(TargetCore), "unknown-key"), ""},
		{TargetCore, append(PluginPath(TargetBinary), KeyGPUResourceName), ""},
		{TargetCore, PluginPath(TargetCore), ""},
	} {
		got := gpudiag.Diagnostic{Path: InputPath(c.target, c.keys)}.PathString()
		if got != c.want {
			t.Errorf("InputPath(%s, %v) = %q, want %q", c.target, c.keys, got, c.want)
		}
	}
}

func TestContainsTemplate(t *testing.T) {
	for v, want := range map[any]bool{
		"plain": false, "{{ .Values.x }}": true, 3: false,
	} {
		if ContainsTemplate(v) != want {
			t.Errorf("ContainsTemplate(%v) != %v", v, want)
		}
	}
	if !ContainsTemplate(map[string]any{"a": []any{"x", map[string]any{"{{k}}": "v"}}}) {
		t.Error("a template in a nested map key counts")
	}
	if ContainsTemplate(map[string]any{"a": []any{"x", map[string]any{"k": "{ {v} }"}}}) {
		t.Error("no {{, no template")
	}
}

// TestGPUKeysAreUnique: GPUKeys is the list docs and tests check every
// written plugin key against.
func TestGPUKeysAreUnique(t *testing.T) {
	keys := GPUKeys()
	if len(slices.Compact(slices.Sorted(slices.Values(keys)))) != len(keys) {
		t.Errorf("GPUKeys lists a key twice: %v", keys)
	}
	values := mustGenerate(t, TargetCore, spec.CloudGKE, Values{Accelerators: []string{"l4"}, Interruptible: true,
		DefaultEnvVars: map[string]string{"A": "b"}, DefaultNodeSelector: map[string]string{"team": "ml"}})
	raw, _ := chartkit.GetPath(values, PluginPath(TargetCore)...)
	k8s, ok := raw.(map[string]any)
	if !ok || len(k8s) == 0 {
		t.Fatalf("no plugin config at %v: %v", PluginPath(TargetCore), values)
	}
	for key := range k8s {
		if !slices.Contains(keys, key) {
			t.Errorf("Generate wrote %s, which GPUKeys does not list", key)
		}
	}
}

// TestResourceTolerationsKeepEveryPoolsAndTheClouds: resource-tolerations
// holds the cloud's GPU tolerations under the (here overridden) resource
// name and each pool's tolerations, extra taints included, under the names
// the pool advertises. They were once written, read back and decoded with
// the decode's error ignored, so a failure would have dropped them.
func TestResourceTolerationsKeepEveryPoolsAndTheClouds(t *testing.T) {
	extra := spec.Taint{Key: "team", Value: "ml", Effect: "NoSchedule"}
	values := mustGenerate(t, TargetCore, spec.CloudGKE, Values{
		GPUResourceName: "example.com/gpu",
		NodePools:       []spec.PoolPolicy{{Name: "l4", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1, Taints: []spec.Taint{extra}}},
	})
	k8s, _ := chartkit.GetPath(values, PluginPath(TargetCore)...)
	plugin, ok := k8s.(map[string]any)
	if !ok {
		t.Fatalf("the k8s plugin config is %T, not a map", k8s)
	}
	byName, err := chartkit.FromSingleKeyMaps(plugin[KeyResourceTolerations])
	if err != nil {
		t.Fatal(err)
	}
	decoded := map[string][]corev1.Toleration{}
	for name, v := range byName {
		var ts []corev1.Toleration
		if err := chartkit.DecodePlain(v, &ts); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		decoded[name] = ts
	}
	if !slices.Contains(decoded["example.com/gpu"], clouds.TolerateExists(string(clouds.ResourceNvidiaGPU))) {
		t.Errorf("the cloud's GPU toleration must stay under gpu_resource_name: %v", decoded)
	}
	want := corev1.Toleration{Key: "team", Operator: corev1.TolerationOpEqual, Value: "ml", Effect: corev1.TaintEffectNoSchedule}
	if !slices.Contains(decoded[string(clouds.ResourceNvidiaGPU)], want) {
		t.Errorf("the pool's extra taint must be tolerated under nvidia.com/gpu: %v", decoded)
	}
}
