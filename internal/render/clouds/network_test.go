package clouds

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Each cloud's GPU network per machine type, with what a pod asking every
// GPU of the machine requests (docs/design/gpu-networks.md holds the
// sources).
func TestMachineNetworks(t *testing.T) {
	ib := &spec.PoolGPUNetwork{RDMAResource: "rdma/shared_ib", RDMADevices: 1}
	cases := []struct {
		cloud    spec.Cloud
		machine  string
		settings *spec.PoolGPUNetwork
		kind     string
		gpus     int64
		nics     int64
		resource string
		devices  int64
	}{
		{spec.CloudEKS, "p4d.24xlarge", nil, NetworkEFA, 8, 4, ResourceEFA, 4},
		{spec.CloudEKS, "p5.48xlarge", nil, NetworkEFA, 8, 32, ResourceEFA, 32},
		{spec.CloudEKS, "p5en.48xlarge", nil, NetworkEFA, 8, 16, ResourceEFA, 16},
		{spec.CloudEKS, "p6-b200.48xlarge", nil, NetworkEFA, 8, 8, ResourceEFA, 8},
		{spec.CloudEKS, "p6e-gb200.36xlarge", nil, NetworkEFA, 4, 4, ResourceEFA, 4},
		{spec.CloudGKE, "a3-highgpu-8g", nil, NetworkTCPX, 8, 4, "", 4},
		{spec.CloudGKE, "a3-megagpu-8g", nil, NetworkTCPXO, 8, 8, "", 8},
		{spec.CloudGKE, "a3-ultragpu-8g", nil, NetworkGKERDMA, 8, 8, "", 8},
		{spec.CloudGKE, "a4x-highgpu-4g", nil, NetworkGKERDMA, 4, 4, "", 4},
		{spec.CloudAKS, "Standard_ND96isr_H100_v5", nil, NetworkInfiniBand, 8, 8, AKSDefaultRDMAResource, 8},
		{spec.CloudAKS, "Standard_ND96isr_H200_v5", ib, NetworkInfiniBand, 8, 8, "rdma/shared_ib", 1},
		{spec.CloudAKS, "Standard_ND96asr_v4", nil, NetworkInfiniBand, 8, 8, AKSDefaultRDMAResource, 8},
		{spec.CloudGeneric, "", &spec.PoolGPUNetwork{RDMAResource: "rdma/rdma_shared_device_a"}, NetworkRDMA, 0, 1, "rdma/rdma_shared_device_a", 1},
	}
	for _, c := range cases {
		t.Run(string(c.cloud)+"/"+c.machine, func(t *testing.T) {
			n, ok := Lookup(c.cloud).machineNetwork(c.machine, c.settings)
			if !ok {
				t.Fatalf("no network")
			}
			if n.Kind != c.kind || n.GPUs != c.gpus || n.NICs != c.nics || string(n.Resource) != c.resource || n.Devices != c.devices {
				t.Errorf("got %s %d GPUs %d NICs %q x %d", n.Kind, n.GPUs, n.NICs, n.Resource, n.Devices)
			}
		})
	}
	for _, none := range []struct {
		cloud   spec.Cloud
		machine string
	}{{spec.CloudEKS, "g5.48xlarge"}, {spec.CloudGKE, "a2-highgpu-8g"}, {spec.CloudAKS, "Standard_NC24ads_A100_v4"}, {spec.CloudGeneric, ""}} {
		if _, ok := Lookup(none.cloud).machineNetwork(none.machine, nil); ok {
			t.Errorf("%s %s: a network where the machine has none", none.cloud, none.machine)
		}
	}
}

// Share: every NIC for every GPU; in proportion where whole; GKE's NICs
// only with the whole machine.
func TestNetworkShare(t *testing.T) {
	p5, _ := efaNetwork("p5.48xlarge")
	p4d, _ := efaNetwork("p4d.24xlarge")
	mega, _ := gkeProfile{}.machineNetwork("a3-megagpu-8g", nil)
	shared, _ := aksProfile{}.machineNetwork("Standard_ND96isr_H100_v5", &spec.PoolGPUNetwork{RDMADevices: 1})
	cases := []struct {
		name string
		n    GPUNetwork
		gpus int64
		want int64
		ok   bool
	}{
		{"p5 all", p5, 8, 32, true},
		{"p5 two GPUs", p5, 2, 8, true},
		{"p4d two GPUs", p4d, 2, 1, true},
		{"p4d three GPUs", p4d, 3, 0, false},
		{"mega all", mega, 8, 8, true},
		{"mega four", mega, 4, 0, false},
		{"shared plugin one GPU", shared, 1, 1, true},
		{"more GPUs than the machine", p5, 9, 0, false},
	}
	for _, c := range cases {
		got, ok := c.n.Share(c.gpus)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: Share(%d) = %d, %v; want %d, %v", c.name, c.gpus, got, ok, c.want, c.ok)
		}
	}
	pod, _ := p5.PodFor(2)
	if q := pod.Resources[ResourceHugePages2Mi]; q.String() != "1280Mi" {
		t.Errorf("p5 two GPUs: hugepages %s, want 1280Mi (a quarter of 5120Mi)", q.String())
	}
}

// GKE TCPXO: the interfaces, the device injection for the daemon and the
// daemon as a native sidecar.
func TestGKETCPXOPod(t *testing.T) {
	n, _ := gkeProfile{}.machineNetwork("a3-megagpu-8g", nil)
	pod, ok := n.PodFor(8)
	if !ok {
		t.Fatal("no pod")
	}
	want := `[{"interfaceName":"eth0","network":"default"},{"interfaceName":"eth1","network":"vpc1"},` +
		`{"interfaceName":"eth2","network":"vpc2"},{"interfaceName":"eth3","network":"vpc3"},{"interfaceName":"eth4","network":"vpc4"},` +
		`{"interfaceName":"eth5","network":"vpc5"},{"interfaceName":"eth6","network":"vpc6"},{"interfaceName":"eth7","network":"vpc7"},` +
		`{"interfaceName":"eth8","network":"vpc8"}]`
	if got := pod.Annotations[gkeAnnotationInterfaces]; got != want {
		t.Errorf("interfaces = %s", got)
	}
	devices := pod.Annotations["devices.gke.io/container.tcpxo-daemon"]
	for _, d := range []string{"/dev/nvidia7", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/dmabuf_import_helper"} {
		if !strings.Contains(devices, "- path: "+d+"\n") {
			t.Errorf("device injection lacks %s: %q", d, devices)
		}
	}
	if len(pod.Sidecars) != 1 || pod.Sidecars[0].RestartPolicy == nil || *pod.Sidecars[0].RestartPolicy != "Always" {
		t.Fatalf("sidecars = %+v, want the tcpxo-daemon with restartPolicy Always", pod.Sidecars)
	}
	if pod.Env["NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY"] != gkeApertureDevices {
		t.Errorf("env = %v", pod.Env)
	}
	if got := gkeNodeNetworks(&n); len(got) != 8 || got[0] != "vpc1" || got[7] != "vpc8" {
		t.Errorf("node networks = %v", got)
	}
	ultra, _ := gkeProfile{}.machineNetwork("a3-ultragpu-8g", nil)
	if got := gkeNodeNetworks(&ultra); len(got) != 9 || got[0] != "gvnic-1" || got[1] != "rdma-0" {
		t.Errorf("A3 Ultra node networks = %v", got)
	}
}
