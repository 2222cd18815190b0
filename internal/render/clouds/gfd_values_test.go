package clouds_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// gfdOnlyNode is a GPU node of a cluster set up from our nvidia-device-plugin
// values: Node Feature Discovery's PCI label and GPU Feature Discovery's
// labels (docs/design/nvidia.md#gpu-feature-discovery-labels), but no nvidia.com/gpu.present, which only the GPU
// Operator sets.
var gfdOnlyNode = map[string]string{
	"feature.node.kubernetes.io/pci-10de.present": "true",
	clouds.LabelGFDProduct:                        "NVIDIA-H100-80GB-HBM3",
	"nvidia.com/gpu.count":                        "8",
	clouds.LabelSharingStrategy:                   "none",
	clouds.LabelGPUReplicas:                       "1",
}

// TestGenericPlacementMatchesDevicePluginValues (issue #12 finding 5): on a
// generic cluster set up from the generated nvidia-device-plugin values,
// GPU Feature Discovery must run (and reach tainted GPU nodes), and every
// workload must select only labels that GFD or NFD set there.
func TestGenericPlacementMatchesDevicePluginValues(t *testing.T) {
	generated := generateFor(t, values.TargetNvidiaDevicePlugin, values.Input{Cloud: string(spec.CloudGeneric), Blocks: map[string]any{nvidia.BlockDevicePlugin: &nvidia.DevicePluginValues{NodePools: []spec.PoolPolicy{{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, Dedicated: rendertest.Ptr(true)}}}}})
	if enabled, _ := chartkit.GetPath(generated, "gfd", "enabled"); enabled != true {
		t.Errorf("gfd.enabled = %v: without GPU Feature Discovery no node carries the nvidia.com/gpu.product workloads select", enabled)
	}
	var workerTolerations []corev1.Toleration
	if v, ok := chartkit.GetPath(generated, "nfd", "worker", "tolerations"); !ok || chartkit.DecodePlain(v, &workerTolerations) != nil {
		t.Errorf("nfd.worker.tolerations not set (%v): the chart's NFD worker tolerates only nvidia.com/gpu=present", v)
	}
	dedicated := corev1.Taint{Key: "nvidia.com/gpu", Value: clouds.DedicatedGPUTaintValue, Effect: corev1.TaintEffectNoSchedule}
	if !slices.ContainsFunc(workerTolerations, func(tol corev1.Toleration) bool { return tol.ToleratesTaint(klog.Background(), &dedicated, false) }) {
		t.Errorf("NFD worker does not tolerate a dedicated pool's %v, so its nodes never get the PCI label GFD and the plugin need", dedicated)
	}

	for name, gpu := range map[string]spec.GPU{
		"h100":    {Count: 1, Accelerator: "h100-80gb"},
		"any GPU": {Count: 1},
	} {
		w := rendertest.ValidWorkload()
		w.Cloud, w.GPU = string(spec.CloudGeneric), gpu
		r, diags := workload.ResolveAndRender(w, workload.Options{})
		rendertest.RequireNoErrors(t, diags)
		if !podAcceptsNode(t, r, gfdOnlyNode) {
			t.Errorf("%s: the pod does not fit a GFD-labelled node without the GPU Operator: selector %v affinity %v", name, r.NodeSelector, r.Affinity)
		}
	}
}

// TestGPUOperatorValuesKeepGFD: the GPU Operator runs GFD by default
// (gfd.enabled: true, docs/design/nvidia.md#gpu-operator-chart-values); generic placement relies on it.
func TestGPUOperatorValuesKeepGFD(t *testing.T) {
	generated := generateFor(t, values.TargetGPUOperator, values.Input{Cloud: string(spec.CloudGeneric), Blocks: map[string]any{nvidia.BlockGPUOperator: &nvidia.GPUOperatorValues{}}})
	if enabled, ok := chartkit.GetPath(generated, "gfd", "enabled"); ok && enabled != true {
		t.Errorf("gpu-operator values set gfd.enabled = %v", enabled)
	}
}

// generateFor is values.Generate that fails the test on error diagnostics.
func generateFor(t *testing.T, target string, in values.Input) map[string]any {
	t.Helper()
	generated, diags := values.Generate(target, in)
	rendertest.RequireNoErrors(t, diags)
	return generated
}
