package nvidia

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	corev1 "k8s.io/api/core/v1"
)

// The gpu_operator_values targets of NVIDIA's two charts.
const (
	TargetGPUOperator  = "gpu-operator"
	TargetDevicePlugin = "nvidia-device-plugin"
)

// The gpu_operator_values blocks the two charts read, the first step of
// their diagnostic paths.
const (
	BlockGPUOperator  = "gpu_operator"
	BlockDevicePlugin = "nvidia_device_plugin"
)

// GPUOperatorChart is the GPU Operator's registration with the values
// front door. The package renders two charts with blocks of their own, so
// it registers two; neither depends on the target name.
func GPUOperatorChart() chartkit.Chart[GPUOperatorValues] {
	return chartkit.Chart[GPUOperatorValues]{
		Targets: []string{TargetGPUOperator},
		Block:   BlockGPUOperator,
		Generate: func(_ string, cloud clouds.Cloud, in GPUOperatorValues, strict bool) (map[string]any, gpudiag.Diagnostics) {
			return GenerateGPUOperator(cloud, in, strict)
		},
		Pods: func(_ string, values map[string]any) ([]corev1.PodSpec, error) { return GPUOperatorPods(values) },
		InputPath: func(_ string, in *GPUOperatorValues, keys []string) []any {
			return GPUOperatorInputPath(in, keys)
		},
	}
}

// DevicePluginChart is the standalone device plugin's registration.
func DevicePluginChart() chartkit.Chart[DevicePluginValues] {
	return chartkit.Chart[DevicePluginValues]{
		Targets: []string{TargetDevicePlugin},
		Block:   BlockDevicePlugin,
		Generate: func(_ string, cloud clouds.Cloud, in DevicePluginValues, strict bool) (map[string]any, gpudiag.Diagnostics) {
			return GenerateDevicePlugin(cloud, in, strict)
		},
		Pods: func(_ string, values map[string]any) ([]corev1.PodSpec, error) { return DevicePluginPods(values) },
		InputPath: func(_ string, in *DevicePluginValues, keys []string) []any {
			return DevicePluginInputPath(in, keys)
		},
	}
}
