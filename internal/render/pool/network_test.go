package pool

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// The pools of the local cluster's GPU networks (scripts/localcluster/
// fixtures/gpunetwork.yaml and topology.yaml's eks-p5-tas).
var (
	p5Pool    = spec.PoolPolicy{Name: "gpu-p5-tas", Cloud: "eks", Accelerator: "h100-80gb", GPUsPerNode: 8}
	megaPool  = spec.PoolPolicy{Name: "a3mega", Cloud: "gke", Accelerator: "h100-80gb", GPUsPerNode: 8, MachineType: "a3-megagpu-8g"}
	ultraPool = spec.PoolPolicy{Name: "a3ultra", Cloud: "gke", Accelerator: "h200", GPUsPerNode: 8}
	ndPool    = spec.PoolPolicy{Name: "ndh100", Cloud: "aks", Accelerator: "h100-80gb", GPUsPerNode: 8}
)

func parallelJob(gpus int64, parallelism int32) spec.Workload {
	return spec.Workload{Name: "train", Kind: spec.KindJob, Image: "img", GPU: spec.GPU{Count: gpus},
		Job: &spec.JobControls{Parallelism: &parallelism}}
}

// renderOnPool places w on p and renders its pod.
func renderOnPool(t *testing.T, w spec.Workload, p spec.PoolPolicy) (corev1.PodTemplateSpec, gpudiag.Diagnostics) {
	t.Helper()
	placed, diags := Apply(w, p)
	if diags.HasError() {
		return corev1.PodTemplateSpec{}, diags
	}
	r, more := workload.ResolveAndRender(placed, workload.Options{Pool: &p})
	diags = append(diags, more...)
	if r == nil {
		return corev1.PodTemplateSpec{}, diags
	}
	pod := r.PodTemplate()
	if pod == nil {
		t.Fatal("no pod template")
	}
	return *pod, diags
}

// Per cloud: what a pod of a multi-node job asking every GPU of the
// machine gets from the pool's network.
func TestNetworkInWorkloadPods(t *testing.T) {
	cases := []struct {
		name        string
		pool        spec.PoolPolicy
		resources   map[corev1.ResourceName]string
		annotations []string
		sidecar     string
		ipcLock     bool
	}{
		{"eks p5", p5Pool, map[corev1.ResourceName]string{"vpc.amazonaws.com/efa": "32", "hugepages-2Mi": "5Gi"}, nil, "", false},
		{"gke a3 mega", megaPool, nil, []string{"networking.gke.io/interfaces", "devices.gke.io/container.tcpxo-daemon"}, "tcpxo-daemon", false},
		{"gke a3 ultra", ultraPool, nil, []string{"networking.gke.io/interfaces"}, "", false},
		{"aks nd h100 v5", ndPool, map[corev1.ResourceName]string{"rdma/ib": "8"}, nil, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pod, diags := renderOnPool(t, parallelJob(8, 4), c.pool)
			if diags.HasError() {
				t.Fatalf("diagnostics: %v", diags)
			}
			ctr := pod.Spec.Containers[0]
			for name, want := range c.resources {
				req, lim := ctr.Resources.Requests[name], ctr.Resources.Limits[name]
				if req.String() != want || lim.String() != want {
					t.Errorf("%s: requests %s limits %s, want %s", name, req.String(), lim.String(), want)
				}
			}
			for _, a := range c.annotations {
				if pod.Annotations[a] == "" {
					t.Errorf("annotation %s missing", a)
				}
			}
			if c.sidecar != "" && (len(pod.Spec.InitContainers) != 1 || pod.Spec.InitContainers[0].Name != c.sidecar) {
				t.Errorf("init containers %v, want the %s sidecar", pod.Spec.InitContainers, c.sidecar)
			}
			hasLock := ctr.SecurityContext != nil && ctr.SecurityContext.Capabilities != nil &&
				slices.Contains(ctr.SecurityContext.Capabilities.Add, "IPC_LOCK")
			if hasLock != c.ipcLock {
				t.Errorf("IPC_LOCK = %v, want %v", hasLock, c.ipcLock)
			}
		})
	}
}

// Who does not get the network: one pod, or a pool that turns it off.
func TestNetworkNotInPods(t *testing.T) {
	off := p5Pool
	no := false
	off.GPUNetwork = &spec.PoolGPUNetwork{Enabled: &no}
	for name, c := range map[string]struct {
		w spec.Workload
		p spec.PoolPolicy
	}{"one pod": {parallelJob(8, 1), p5Pool}, "network off": {parallelJob(8, 4), off}} {
		pod, diags := renderOnPool(t, c.w, c.p)
		if diags.HasError() {
			t.Fatalf("%s: %v", name, diags)
		}
		if _, ok := pod.Spec.Containers[0].Resources.Limits["vpc.amazonaws.com/efa"]; ok {
			t.Errorf("%s: the pod asks for EFA", name)
		}
	}
	_, diags := renderOnPool(t, parallelJob(8, 4), off)
	if !hasFinding(diags, gpudiag.SeverityWarning, "node_pool", "Multi-node job without the GPU network") {
		t.Errorf("no warning for a multi-node job on a pool whose network is off: %v", diags)
	}
}

// Plan-time errors on the line: a GPU count without a NIC share, a network
// the machine type lacks, RDMA settings on a cloud without them.
func TestNetworkErrors(t *testing.T) {
	_, diags := renderOnPool(t, parallelJob(4, 2), megaPool)
	if !hasFinding(diags, gpudiag.SeverityError, "gpu.count", "GPUs do not match the pool's GPU network") {
		t.Errorf("4 of 8 GPUs on A3 Mega: %v", diags)
	}
	yes := true
	cases := []struct {
		name string
		pool spec.PoolPolicy
		path string
		want string
	}{
		{"network on a machine without one", spec.PoolPolicy{Name: "g5", Cloud: "eks", Accelerator: "a10g", GPUsPerNode: 8,
			GPUNetwork: &spec.PoolGPUNetwork{Enabled: &yes}}, "gpu_network.enabled", "has no GPU-to-GPU network"},
		{"rdma resource on eks", spec.PoolPolicy{Name: "p5", Cloud: "eks", Accelerator: "h100-80gb", GPUsPerNode: 8,
			GPUNetwork: &spec.PoolGPUNetwork{RDMAResource: "rdma/ib"}}, "gpu_network.rdma_resource", "not an RDMA device plugin"},
		{"rdma devices not matching the NICs", spec.PoolPolicy{Name: "nd", Cloud: "aks", Accelerator: "h100-80gb", GPUsPerNode: 8,
			GPUNetwork: &spec.PoolGPUNetwork{RDMADevices: 3}}, "gpu_network.rdma_devices", "has 8 NICs for 8 GPUs"},
		{"generic without a resource", spec.PoolPolicy{Name: "gen", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8,
			GPUNetwork: &spec.PoolGPUNetwork{Enabled: &yes}}, "gpu_network.rdma_resource", "Name the RDMA resource"},
		{"machine type of another model", spec.PoolPolicy{Name: "p", Cloud: "gke", Accelerator: "h100-80gb", GPUsPerNode: 8,
			MachineType: "a3-ultragpu-8g"}, "machine_type", `"a3-highgpu-8g", "a3-megagpu-8g"`},
	}
	for _, c := range cases {
		diags := Validate(c.pool)
		if !hasFinding(diags, gpudiag.SeverityError, c.path, c.want) {
			t.Errorf("%s: want an error at %s with %q, got %v", c.name, c.path, c.want, diags)
		}
	}
}

// The cloud node-pool shapes carry what the network needs.
func TestNetworkPoolShapes(t *testing.T) {
	r, diags := Render(p5Pool)
	if diags.HasError() || r.EKS.EFAInterfaces != 32 || r.EKS.PlacementGroupStrategy != "cluster" {
		t.Errorf("eks p5: %+v %v", r.EKS, diags)
	}
	r, _ = Render(megaPool)
	if r.GKE.MachineType != "a3-megagpu-8g" || r.GKE.GuestAccelerator.Type != "nvidia-h100-mega-80gb" || len(r.GKE.AdditionalNodeNetworks) != 8 {
		t.Errorf("gke a3 mega: %+v", r.GKE)
	}
	r, _ = Render(ndPool)
	if !r.AKS.InfiniBand || r.AKS.VMSize != "Standard_ND96isr_H100_v5" {
		t.Errorf("aks nd h100 v5: %+v", r.AKS)
	}
	// h200 on EKS: p5e (32 EFA) and p5en (16) differ, so only machine_type
	// gives the node group a network.
	h200 := spec.PoolPolicy{Name: "h200", Cloud: "eks", Accelerator: "h200", GPUsPerNode: 8}
	if r, _ = Render(h200); r.GPUNetwork != nil || r.EKS.EFAInterfaces != 0 {
		t.Errorf("h200 without machine_type: %+v", r.EKS)
	}
	h200.MachineType = "p5en.48xlarge"
	if r, _ = Render(h200); r.EKS.EFAInterfaces != 16 || !slices.Equal(r.EKS.InstanceTypes, []string{"p5en.48xlarge"}) {
		t.Errorf("h200 on p5en: %+v", r.EKS)
	}
}

func hasFinding(diags gpudiag.Diagnostics, severity gpudiag.Severity, path, substring string) bool {
	for _, d := range diags {
		if d.Severity == severity && d.PathString() == path && strings.Contains(d.Summary+" "+d.Detail, substring) {
			return true
		}
	}
	return false
}
