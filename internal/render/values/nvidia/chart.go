package nvidia

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
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
// it registers two, when it is linked.
func GPUOperatorChart() chartkit.Chart[GPUOperatorValues] { return gpuOperatorChart }

// DevicePluginChart is the standalone device plugin's registration.
func DevicePluginChart() chartkit.Chart[DevicePluginValues] { return devicePluginChart }

var (
	gpuOperatorChart = chartkit.Register(chartkit.SingleTarget(TargetGPUOperator, BlockGPUOperator,
		GenerateGPUOperator, GPUOperatorPods, GPUOperatorInputPath))
	devicePluginChart = chartkit.Register(chartkit.SingleTarget(TargetDevicePlugin, BlockDevicePlugin,
		GenerateDevicePlugin, DevicePluginPods, DevicePluginInputPath))
)
