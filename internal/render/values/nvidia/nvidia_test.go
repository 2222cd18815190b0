package nvidia

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

func errorPaths(diags gpudiag.Diagnostics) []string {
	var out []string
	for _, d := range diags.Errors() {
		out = append(out, d.PathString())
	}
	return out
}

// TestGPUOperatorPodsTolerateThePools: the operands and the NFD worker
// keep the chart's own tolerations and add each pool's taints, or the
// operator never reaches a tainted pool's nodes.
func TestGPUOperatorPodsTolerateThePools(t *testing.T) {
	pools := []spec.PoolPolicy{{
		Name: "shared", Cloud: "generic", Accelerator: "t4", GPUsPerNode: 1, Sharing: spec.SharingTimeSlicing, Replicas: 4,
		Taints: []spec.Taint{{Key: "example.com/team", Value: "ml", Effect: spec.TaintNoSchedule}},
	}}
	values, diags := GenerateGPUOperator(clouds.Lookup(spec.CloudGeneric), GPUOperatorValues{NodePools: pools}, true)
	if diags.HasError() {
		t.Fatal(diags)
	}
	pods, err := GPUOperatorPods(values)
	if err != nil || len(pods) != 2 {
		t.Fatalf("want the operand and nfd-worker pods: %v %v", pods, err)
	}
	team := clouds.TolerateEqual("example.com/team", "ml")
	team.Effect = corev1.TaintEffectNoSchedule
	for _, pod := range pods {
		if !slices.Contains(pod.Tolerations, team) {
			t.Errorf("%s does not tolerate the pool's taint: %v", pod.Containers[0].Name, pod.Tolerations)
		}
	}
	for _, want := range GPUOperatorDaemonsetTolerations {
		if !slices.Contains(pods[0].Tolerations, want) {
			t.Errorf("operands lost the chart's toleration %v", want)
		}
	}
	config, _ := chartkit.GetPath(values, "devicePlugin", "config", "data", "shared")
	if s, ok := config.(string); !ok || !strings.Contains(s, "replicas: 4") {
		t.Errorf("the shared pool's device plugin config: %#v", config)
	}
	if v, _ := chartkit.GetPath(values, "driver", "enabled"); v != true {
		t.Error("generic clusters get the driver from the operator")
	}
}

func TestGenerateGPUOperatorDiagnostics(t *testing.T) {
	values, diags := GenerateGPUOperator(clouds.Lookup(spec.CloudGeneric), GPUOperatorValues{
		MIGStrategy: "both", ConfigMapName: "Bad_Name",
		DCGMExporter: new(false), ServiceMonitor: new(true),
	}, true)
	if values != nil {
		t.Error("no values with errors")
	}
	got := errorPaths(diags)
	for _, want := range []string{"gpu_operator.mig_strategy", "gpu_operator.config_map_name", "gpu_operator.service_monitor"} {
		if !slices.Contains(got, want) {
			t.Errorf("no error at %s: %v", want, got)
		}
	}
	// Autopilot admits no privileged DaemonSets, for either chart.
	if _, diags := GenerateGPUOperator(clouds.Lookup(spec.CloudGKEAutopilot), GPUOperatorValues{}, true); !diags.HasError() {
		t.Error("the GPU Operator on GKE Autopilot must be an error")
	}
	if _, diags := GenerateDevicePlugin(clouds.Lookup(spec.CloudGKEAutopilot), DevicePluginValues{}, true); !diags.HasError() {
		t.Error("the device plugin on GKE Autopilot must be an error")
	}
}

// TestDevicePluginPodsLandOnGPUNodes: on AKS the plugin selects the nodes
// AKS labels accelerator=nvidia.
func TestDevicePluginPodsLandOnGPUNodes(t *testing.T) {
	values, diags := GenerateDevicePlugin(clouds.Lookup(spec.CloudAKS), DevicePluginValues{MIGStrategy: spec.MIGStrategyMixed}, true)
	if diags.HasError() {
		t.Fatal(diags)
	}
	pods, err := DevicePluginPods(values)
	if err != nil || len(pods) != 1 {
		t.Fatalf("%v %v", pods, err)
	}
	if pods[0].NodeSelector[clouds.AKSLabelAccelerator] != "nvidia" {
		t.Errorf("nodeSelector %v", pods[0].NodeSelector)
	}
	if _, diags := GenerateDevicePlugin(clouds.Lookup(spec.CloudAKS), DevicePluginValues{MIGStrategy: "all"}, true); !slices.Contains(errorPaths(diags), "nvidia_device_plugin.mig_strategy") {
		t.Errorf("unknown mig_strategy: %v", diags)
	}
}

// TestInputPaths: a chart values key maps back to the attribute that set it.
func TestInputPaths(t *testing.T) {
	operator := &GPUOperatorValues{NodePools: []spec.PoolPolicy{{Name: "a"}, {Name: "b"}}}
	for _, c := range []struct {
		keys []string
		want string
	}{
		{[]string{"devicePlugin", "config", "data", "b"}, "node_pools[1]"},
		{[]string{"devicePlugin", "config", "data", DefaultDevicePluginConfigName}, "mig_strategy"},
		{[]string{"devicePlugin", "config", "data", "gone"}, "node_pools"},
		{[]string{"devicePlugin", "config", "name"}, "config_map_name"},
		{[]string{"dcgmExporter", "serviceMonitor", "enabled"}, "service_monitor"},
		{[]string{"dcgmExporter", "enabled"}, "dcgm_exporter"},
		{[]string{"node-feature-discovery", "worker", "tolerations"}, "tolerations"},
		{[]string{"somethingElse"}, ""},
		{nil, ""},
	} {
		if got := (gpudiag.Diagnostic{Path: GPUOperatorInputPath(operator, c.keys)}).PathString(); got != c.want {
			t.Errorf("GPUOperatorInputPath(%v) = %q, want %q", c.keys, got, c.want)
		}
	}
	if GPUOperatorInputPath(nil, []string{"mig"}) != nil || DevicePluginInputPath(nil, []string{"tolerations"}) != nil {
		t.Error("no block, no path")
	}
	plugin := &DevicePluginValues{NodePools: []spec.PoolPolicy{{Name: "a"}}}
	if got := (gpudiag.Diagnostic{Path: DevicePluginInputPath(plugin, []string{"config", "map", "a"})}).PathString(); got != "node_pools[0]" {
		t.Errorf("DevicePluginInputPath config.map.a = %q", got)
	}
}

// TestEachChartNamesItsOwnMIGStrategies: the device plugin takes "none"
// (and defaults to it), the GPU Operator does not; each refusal lists what
// that chart takes.
func TestEachChartNamesItsOwnMIGStrategies(t *testing.T) {
	generic := clouds.Lookup(spec.CloudGeneric)
	_, diags := GenerateGPUOperator(generic, GPUOperatorValues{MIGStrategy: "none"}, true)
	if !slices.Contains(errorPaths(diags), "gpu_operator.mig_strategy") || !strings.Contains(diags.Errors()[0].Detail, `Allowed values: "single", "mixed".`) {
		t.Errorf("the GPU Operator takes no \"none\": %v", diags)
	}
	_, diags = GenerateDevicePlugin(generic, DevicePluginValues{MIGStrategy: "all"}, true)
	if len(diags.Errors()) != 1 || !strings.Contains(diags.Errors()[0].Detail, `is not a device plugin MIG strategy. Allowed values: "none", "single", "mixed".`) {
		t.Errorf("the device plugin lists none first: %v", diags)
	}
	if _, diags := GenerateDevicePlugin(generic, DevicePluginValues{MIGStrategy: "none"}, true); diags.HasError() {
		t.Errorf("the device plugin takes \"none\": %v", diags)
	}
}
