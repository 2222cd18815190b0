// The GPU networks of GKE's accelerator-optimized machines: GPUDirect-TCPX
// (A3 High), GPUDirect-TCPXO (A3 Mega) and GPUDirect RDMA (A3 Ultra, A4,
// A4X). A pod gets the NICs through GKE multi-networking annotations, so
// only a pod owning the whole machine can have them; TCPX and TCPXO add a
// receive daemon as a native sidecar (docs/design/gpu-networks.md#gke).
//
// Upstream sources: GoogleCloudPlatform/container-engine-accelerators
// gpudirect-tcpx/nccl-test-latest.yaml, gpudirect-tcpxo/nccl-test-latest.yaml,
// README.md (daemon release) and best-practice.md (native sidecar),
// gpudirect-rdma/nccl-test.yaml; Compute Engine "Networking and GPU
// machines" (NIC counts per machine).

package clouds

import (
	"encoding/json"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// GKE multi-networking and NRI device injection annotations.
const (
	gkeAnnotationDefaultInterface = "networking.gke.io/default-interface"
	gkeAnnotationInterfaces       = "networking.gke.io/interfaces"
	// gkeAnnotationDevicesPrefix + container name: the NRI device
	// injector's list of host devices for that container.
	gkeAnnotationDevicesPrefix = "devices.gke.io/container."
)

// Receive daemons of TCPX and TCPXO (Google's samples and release notes).
const (
	gkeTCPXDaemonImage  = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12"
	gkeTCPXODaemonImage = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21"
	gkeTCPXDaemon       = "tcpx-daemon"
	gkeTCPXODaemon      = "tcpxo-daemon"
	// gkeTCPXSocketDir is where the TCPX daemon and NCCL's plugin meet.
	gkeTCPXSocketDir = "/run/tcpx"
	// gkeApertureDevices is TCPXO's LLCM device directory on the host.
	gkeApertureDevices = "/dev/aperture_devices"
)

// gkeNetworkShape is one machine type's GPU NICs: the pod interfaces
// (first interface name, network name prefix and first index) and the
// node pool's additional networks.
type gkeNetworkShape struct {
	kind      string
	gpus      int64
	nics      int64
	firstEth  int    // eth1 (TCPX, TCPXO) or eth2 (RDMA: eth1 is the second gVNIC)
	network   string // "vpc" (vpc1..) or "rdma-" (rdma-0..)
	firstNet  int
	gvnicNets []string // node networks beside the GPU NICs
}

// gkeNetworks: the machine types with a GPU network.
var gkeNetworks = map[string]gkeNetworkShape{
	"a3-highgpu-8g":  {kind: NetworkTCPX, gpus: 8, nics: 4, firstEth: 1, network: "vpc", firstNet: 1},
	"a3-megagpu-8g":  {kind: NetworkTCPXO, gpus: 8, nics: 8, firstEth: 1, network: "vpc", firstNet: 1},
	"a3-ultragpu-8g": {kind: NetworkGKERDMA, gpus: 8, nics: 8, firstEth: 2, network: "rdma-", gvnicNets: []string{"gvnic-1"}},
	"a4-highgpu-8g":  {kind: NetworkGKERDMA, gpus: 8, nics: 8, firstEth: 2, network: "rdma-", gvnicNets: []string{"gvnic-1"}},
	"a4x-highgpu-4g": {kind: NetworkGKERDMA, gpus: 4, nics: 4, firstEth: 2, network: "rdma-", gvnicNets: []string{"gvnic-1"}},
}

func (gkeProfile) machineNetwork(machine string, _ *spec.PoolGPUNetwork) (GPUNetwork, bool) {
	s, ok := gkeNetworks[machine]
	if !ok {
		return GPUNetwork{}, false
	}
	return GPUNetwork{Kind: s.kind, Machine: machine, GPUs: s.gpus, NICs: s.nics, Devices: s.nics, pod: gkeNetworkPod}, true
}

// poolMachines: a pool of a model may use the machines of each of its GKE
// accelerator values (H100 80GB: A3 High and A3 Mega).
func (gkeProfile) poolMachines(a *catalog.Accelerator) []MachineShape {
	var out []MachineShape
	for _, v := range a.GKEAccelerators {
		out = append(out, GKEMachines[v]...)
	}
	return out
}

// gkeMachineAccelerator is the gke-accelerator value a machine type comes
// with ("" for N1 machines and unknown names).
func gkeMachineAccelerator(machine string) string {
	for accel, shapes := range GKEMachines {
		if machine != "" && shapesInclude(shapes, machine) {
			return accel
		}
	}
	return ""
}

// gkeIntentAccelerator is the gke-accelerator value of a pool: its
// machine type's (nvidia-h100-mega-80gb on a3-megagpu-8g), else the
// model's first.
func gkeIntentAccelerator(pi PoolIntent) string {
	if v := gkeMachineAccelerator(pi.Machine); v != "" && pi.MachineSet {
		return v
	}
	return gkePoolAccelerator(pi.Accel)
}

// gkeNodeNetworks are the node pool's additional networks for the pool's
// GPU network, in the order the pods' interfaces use them.
func gkeNodeNetworks(n *GPUNetwork) []string {
	if n == nil {
		return nil
	}
	s := gkeNetworks[n.Machine]
	out := append([]string(nil), s.gvnicNets...)
	for i := range int(s.nics) {
		out = append(out, s.network+strconv.Itoa(s.firstNet+i))
	}
	return out
}

// gkeNetworkPod: the interfaces annotation for every GPU NIC, and per
// kind what the NICs need in the pod.
func gkeNetworkPod(n GPUNetwork, _ int64) NetworkPod {
	s := gkeNetworks[n.Machine]
	pod := NetworkPod{Annotations: map[string]string{
		gkeAnnotationDefaultInterface: "eth0",
		gkeAnnotationInterfaces:       gkeInterfaces(s),
	}, Env: map[string]string{}}
	switch s.kind {
	case NetworkTCPX:
		gkeTCPXPod(&pod, n.GPUs)
	case NetworkTCPXO:
		gkeTCPXOPod(&pod, n)
	case NetworkGKERDMA:
		// Google's NCCL plugin (gIB) comes from the host, where its
		// installer DaemonSet puts it; the image sources its
		// set_nccl_env.sh from there.
		pod.Volumes = append(pod.Volumes, hostPathVolume("gpu-net-gib", "/home/kubernetes/bin/gib"))
		pod.Mounts = append(pod.Mounts, corev1.VolumeMount{Name: "gpu-net-gib", MountPath: "/usr/local/gib"})
	}
	return pod
}

// gkeInterfaces is the interfaces annotation: eth0 on the default network,
// then one interface per GPU NIC.
func gkeInterfaces(s gkeNetworkShape) string {
	type iface struct {
		InterfaceName string `json:"interfaceName"`
		Network       string `json:"network"`
	}
	list := []iface{{"eth0", "default"}}
	for i := range int(s.nics) {
		list = append(list, iface{"eth" + strconv.Itoa(s.firstEth+i), s.network + strconv.Itoa(s.firstNet+i)})
	}
	out, _ := json.Marshal(list) // strings only: cannot fail
	return string(out)
}

// gkeDaemonDevices is the device injection list of a receive daemon: the
// GPUs, the control devices and, for TCPXO, the dma-buf helper.
func gkeDaemonDevices(gpus int64, extra ...string) string {
	var b strings.Builder
	for i := range gpus {
		b.WriteString("- path: /dev/nvidia" + strconv.FormatInt(i, 10) + "\n")
	}
	for _, p := range append([]string{"/dev/nvidiactl", "/dev/nvidia-uvm"}, extra...) {
		b.WriteString("- path: " + p + "\n")
	}
	return b.String()
}

func gkeTCPXPod(pod *NetworkPod, gpus int64) {
	pod.Annotations[gkeAnnotationDevicesPrefix+gkeTCPXDaemon] = gkeDaemonDevices(gpus)
	pod.Volumes = append(gkeDaemonVolumes(), hostPathVolume("gpu-net-tcpx-socket", gkeTCPXSocketDir))
	daemon := gkeDaemon(gkeTCPXDaemon, gkeTCPXDaemonImage, []string{"/tcpgpudmarxd/build/app/tcpgpudmarxd",
		"--gpu_nic_preset", "a3vm", "--gpu_shmem_type", "fd", "--uds_path", gkeTCPXSocketDir, "--setup_param", "--verbose 128 2 0"},
		"NET_ADMIN")
	socket := corev1.VolumeMount{Name: "gpu-net-tcpx-socket", MountPath: gkeTCPXSocketDir}
	daemon.VolumeMounts = append(daemon.VolumeMounts, socket)
	pod.Sidecars = []corev1.Container{daemon}
	pod.Mounts = append(pod.Mounts, socket)
	// NCCL's TCPX plugin finds the daemon's socket here (Google's sample
	// mounts it at /tmp, the plugin's default, which would hide the
	// image's own /tmp).
	pod.Env["NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX"] = gkeTCPXSocketDir
	pod.IPCLock = true
}

func gkeTCPXOPod(pod *NetworkPod, n GPUNetwork) {
	pod.Annotations[gkeAnnotationDevicesPrefix+gkeTCPXODaemon] = gkeDaemonDevices(n.GPUs, "/dev/dmabuf_import_helper")
	pod.Volumes = append(gkeDaemonVolumes(), hostPathVolume("gpu-net-aperture-devices", gkeApertureDevices))
	daemon := gkeDaemon(gkeTCPXODaemon, gkeTCPXODaemonImage, []string{"/bin/sh", "-c",
		"chmod 755 /fts/entrypoint_rxdm_container.sh && exec /fts/entrypoint_rxdm_container.sh --num_hops=2 --num_nics=" +
			strconv.FormatInt(n.NICs, 10) + " --uid= --alsologtostderr"},
		"NET_ADMIN", "NET_BIND_SERVICE")
	pod.Sidecars = []corev1.Container{daemon}
	pod.Mounts = append(pod.Mounts, corev1.VolumeMount{Name: "gpu-net-aperture-devices", MountPath: gkeApertureDevices})
	pod.Env["NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY"] = gkeApertureDevices
}

// gkeDaemonVolumes are the host paths both receive daemons mount: the
// driver's libraries, /sys and /proc/sys.
func gkeDaemonVolumes() []corev1.Volume {
	return []corev1.Volume{
		hostPathVolume("gpu-net-nvidia-lib", gkeDriverInstallDir+"/lib64"),
		hostPathVolume("gpu-net-sys", "/sys"),
		hostPathVolume("gpu-net-proc-sys", "/proc/sys"),
	}
}

// gkeDaemon is a receive daemon as a native sidecar: an init container
// that keeps running (restartPolicy Always), so a Job's pod completes when
// the workload's container does (best-practice.md).
func gkeDaemon(name, image string, command []string, caps ...corev1.Capability) corev1.Container {
	always := corev1.ContainerRestartPolicyAlways
	return corev1.Container{
		Name: name, Image: image, Command: command, RestartPolicy: &always,
		SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: caps}},
		Env:             []corev1.EnvVar{{Name: "LD_LIBRARY_PATH", Value: GKENvidiaLibraryPath}},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "gpu-net-nvidia-lib", MountPath: GKENvidiaLibraryPath},
			{Name: "gpu-net-sys", MountPath: "/hostsysfs"},
			{Name: "gpu-net-proc-sys", MountPath: "/hostprocsysfs"},
		},
	}
}

func hostPathVolume(name, path string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path}}}
}
