package values

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
)

// Flyte's resource name and label keys can be set; unset they are the
// cloud's, and an invalid one is a diagnostic on its attribute (issue #15).
func TestFlyteLabelOverrides(t *testing.T) {
	values := mustGenerate(t, TargetFlyteCore, Input{Cloud: "gke", Blocks: map[string]any{flyte.Block: &flyte.Values{
		GPUResourceName: "nvidia.com/gpu.shared", DeviceNodeLabel: "team.example.com/gpu",
		PartitionSizeNodeLabel: "team.example.com/partition",
	}}})
	k8s := asMap(t, valueAt(t, values, flyte.PluginPath(TargetFlyteCore)...))
	for key, want := range map[string]string{
		flyte.KeyGPUResourceName: "nvidia.com/gpu.shared", flyte.KeyGPUDeviceNodeLabel: "team.example.com/gpu",
		flyte.KeyGPUPartitionSizeLabel: "team.example.com/partition",
	} {
		if k8s[key] != want {
			t.Errorf("%s = %v, want %s", key, k8s[key], want)
		}
	}
	if req := asMap(t, k8s["gpu-unpartitioned-node-selector-requirement"]); req["key"] != "team.example.com/partition" {
		t.Errorf("the unpartitioned requirement follows the partition label: %v", req)
	}
	tolerations, ok := k8s[flyte.KeyResourceTolerations].([]any)
	if !ok || len(tolerations) == 0 {
		t.Fatalf("resource-tolerations: %v", k8s[flyte.KeyResourceTolerations])
	}
	if _, ok := asMap(t, tolerations[0])["nvidia.com/gpu.shared"]; !ok {
		t.Errorf("resource-tolerations are keyed by the resource name tasks request: %v", tolerations)
	}

	defaults := mustGenerate(t, TargetFlyteCore, Input{Cloud: "gke", Blocks: map[string]any{flyte.Block: &flyte.Values{}}})
	if got := valueAt(t, defaults, append(flyte.PluginPath(TargetFlyteCore), flyte.KeyGPUDeviceNodeLabel)...); got != "cloud.google.com/gke-accelerator" {
		t.Errorf("default device label on GKE: %v", got)
	}
	if !strings.Contains(flyte.ClassDefaults(), "`gke`: `nvidia.com/gpu`, device `cloud.google.com/gke-accelerator`") {
		t.Errorf("defaults description: %s", flyte.ClassDefaults())
	}

	_, diags := Generate(TargetFlyteCore, Input{Cloud: "gke", Blocks: map[string]any{flyte.Block: &flyte.Values{
		GPUResourceName: "gpu", DeviceNodeLabel: "not a label!",
	}}})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "flyte.gpu_resource_name", "domain-prefixed")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "flyte.gpu_device_node_label", "label key")
}
