package placement

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// pod_placement and pod_template give the pool's GPU network to a request
// of several pods, as gpu_workload's pods get it, and nothing to one pod.
func TestPlacementNetwork(t *testing.T) {
	p5 := &spec.PoolPolicy{Name: "gpu-p5-tas", Cloud: "eks", Accelerator: "h100-80gb", GPUsPerNode: 8}
	mega := &spec.PoolPolicy{Name: "a3mega", Cloud: "gke", Accelerator: "h100-80gb", GPUsPerNode: 8,
		MachineType: "a3-megagpu-8g"}
	cases := []struct {
		name, cloud  string
		nodePool     *spec.PoolPolicy
		pods         int64
		want, absent []string
	}{
		{"eks p5 job of 4", "eks", p5, 4, []string{`"vpc.amazonaws.com/efa":"32"`, `"hugepages-2Mi":"5Gi"`}, nil},
		{"eks p5 one pod", "eks", p5, 1, []string{`"initContainers":[]`}, []string{"vpc.amazonaws.com/efa"}},
		{"gke a3 mega job of 2", "gke", mega, 2, []string{`"networking.gke.io/interfaces"`, `"name":"tcpxo-daemon"`,
			`"restartPolicy":"Always"`, `"mountPath":"/dev/aperture_devices"`, `"NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY"`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			placed, diags := placeRequest(c.cloud, gpuRequest{GPU: spec.GPU{Count: 8}, NodePool: c.nodePool, Pods: c.pods})
			if diags.HasError() {
				t.Fatalf("diagnostics: %v", diags)
			}
			obj, err := placementObject(placed)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(obj)
			for _, w := range c.want {
				if !strings.Contains(string(raw), w) {
					t.Errorf("placement lacks %s: %s", w, raw)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(string(raw), a) {
					t.Errorf("placement has %s: %s", a, raw)
				}
			}
		})
	}
	placed, _ := placeRequest("gke", gpuRequest{GPU: spec.GPU{Count: 8}, NodePool: mega, Pods: 2})
	tmpl, err := podTemplateObject(placed, podContainer{Image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(tmpl)
	for _, w := range []string{`"metadata":{"annotations":`, `"initContainers":[{`, `"name":"gpu-net-aperture-devices"`} {
		if !strings.Contains(string(raw), w) {
			t.Errorf("pod template lacks %s: %s", w, raw)
		}
	}
	if _, diags := placeRequest("gke", gpuRequest{GPU: spec.GPU{Count: 4}, NodePool: mega, Pods: 2}); !diags.HasError() {
		t.Error("4 GPUs per pod on A3 Mega with 2 pods placed without an error")
	}
}
