package nvidia

import (
	"reflect"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The GPU Operator's values follow the pools' GPU networks: MOFED off in
// the device plugin beside EFA, nvidia-peermem with the operator's driver
// for InfiniBand; nothing for pools without a network.
func TestGPUOperatorNetworkSwitches(t *testing.T) {
	yes := true
	p5 := spec.PoolPolicy{Name: "p5", Cloud: "eks", Accelerator: "h100-80gb", GPUsPerNode: 8}
	nd := spec.PoolPolicy{Name: "ndh100", Cloud: "aks", Accelerator: "h100-80gb", GPUsPerNode: 8}
	g5 := spec.PoolPolicy{Name: "g5", Cloud: "eks", Accelerator: "a10g", GPUsPerNode: 4}
	values, diags := GenerateGPUOperator(clouds.Lookup(spec.CloudEKS), GPUOperatorValues{NodePools: []spec.PoolPolicy{p5}}, true)
	if diags.HasError() {
		t.Fatal(diags)
	}
	want := []any{map[string]any{"name": "MOFED_ENABLED", "value": "false"}}
	devicePlugin, _ := values["devicePlugin"].(map[string]any)
	if got := devicePlugin["env"]; !reflect.DeepEqual(got, want) {
		t.Errorf("EFA pool: devicePlugin.env = %v, want MOFED_ENABLED=false", got)
	}
	values, _ = GenerateGPUOperator(clouds.Lookup(spec.CloudEKS), GPUOperatorValues{NodePools: []spec.PoolPolicy{g5}}, true)
	if dp, _ := values["devicePlugin"].(map[string]any); dp != nil && dp["env"] != nil {
		t.Errorf("pool without a network: devicePlugin.env = %v", dp["env"])
	}
	values, _ = GenerateGPUOperator(clouds.Lookup(spec.CloudAKS), GPUOperatorValues{NodePools: []spec.PoolPolicy{nd}, DriverEnabled: &yes}, true)
	if rdma, _ := values["driver"].(map[string]any)["rdma"].(map[string]any); rdma == nil || rdma["enabled"] != true {
		t.Errorf("InfiniBand pool with the operator's driver: driver = %v, want rdma.enabled", values["driver"])
	}
	values, _ = GenerateGPUOperator(clouds.Lookup(spec.CloudAKS), GPUOperatorValues{NodePools: []spec.PoolPolicy{nd}}, true)
	if _, set := values["driver"].(map[string]any)["rdma"]; set {
		t.Errorf("AKS's preinstalled driver: driver = %v, want no rdma switch", values["driver"])
	}
}

// The standalone device plugin chart takes the same switch as its
// top-level mofedEnabled (the chart's values.yaml): false beside EFA, unset
// elsewhere.
func TestDevicePluginMOFEDBesideEFA(t *testing.T) {
	p5 := spec.PoolPolicy{Name: "p5", Cloud: "eks", Accelerator: "h100-80gb", GPUsPerNode: 8}
	g5 := spec.PoolPolicy{Name: "g5", Cloud: "eks", Accelerator: "a10g", GPUsPerNode: 4}
	values, diags := GenerateDevicePlugin(clouds.Lookup(spec.CloudEKS), DevicePluginValues{NodePools: []spec.PoolPolicy{p5, g5}}, true)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if got, set := values["mofedEnabled"]; !set || got != false {
		t.Errorf("EFA pool: mofedEnabled = %v (set %v), want false", got, set)
	}
	values, _ = GenerateDevicePlugin(clouds.Lookup(spec.CloudEKS), DevicePluginValues{NodePools: []spec.PoolPolicy{g5}}, true)
	if got, set := values["mofedEnabled"]; set {
		t.Errorf("pool without a network: mofedEnabled = %v", got)
	}
}
