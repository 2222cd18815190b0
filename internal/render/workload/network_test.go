package workload

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// p5Job is a 2-node distributed job of 8 H100s per pod on an EKS
// p5.48xlarge node group, whose GPU network is EFA.
func p5Job(t *testing.T) *Rendered {
	t.Helper()
	w := goldenWorkload(spec.CloudEKS, "train", spec.KindDistributedJob, spec.GPU{Count: 8, Accelerator: "h100-80gb"})
	w.Distributed = &spec.DistributedControls{Nodes: rendertest.Ptr(int64(2))}
	pool := &spec.PoolPolicy{Name: "gpu-p5", Cloud: string(spec.CloudEKS), Accelerator: "h100-80gb", GPUsPerNode: 8,
		MachineType: "p5.48xlarge"}
	r, diags := ResolveAndRender(w, Options{Pool: pool})
	rendertest.RequireNoErrors(t, diags)
	return r
}

func nodeWith(allocatable map[corev1.ResourceName]string) corev1.Node {
	list := corev1.ResourceList{}
	for name, q := range allocatable {
		list[name] = resource.MustParse(q)
	}
	return corev1.Node{Status: corev1.NodeStatus{Allocatable: list}}
}

// TestUnadvertisedNetwork: the EFA devices and huge pages a p5 job's pods
// ask for are named when no node of the pool has them allocatable, and
// the network says what advertises them.
func TestUnadvertisedNetwork(t *testing.T) {
	r := p5Job(t)
	if r.Network == nil {
		t.Fatal("a 2-node job on p5.48xlarge got no GPU network")
	}
	if !strings.Contains(r.Network.Advertiser, "EFA device plugin") {
		t.Errorf("Advertiser = %q, want the EFA device plugin named", r.Network.Advertiser)
	}
	gpuOnly := nodeWith(map[corev1.ResourceName]string{"nvidia.com/gpu": "8"})
	efaNoPages := nodeWith(map[corev1.ResourceName]string{"nvidia.com/gpu": "8", clouds.ResourceEFA: "32", clouds.ResourceHugePages2Mi: "0"})
	full := nodeWith(map[corev1.ResourceName]string{"nvidia.com/gpu": "8", clouds.ResourceEFA: "32", clouds.ResourceHugePages2Mi: "10256Mi"})
	for _, tc := range []struct {
		name  string
		nodes []corev1.Node
		want  []corev1.ResourceName
	}{
		{"no node of the pool yet: nothing to say", nil, nil},
		{"GPUs only", []corev1.Node{gpuOnly, gpuOnly}, []corev1.ResourceName{clouds.ResourceHugePages2Mi, clouds.ResourceEFA}},
		{"EFA without pre-allocated pages", []corev1.Node{efaNoPages}, []corev1.ResourceName{clouds.ResourceHugePages2Mi}},
		{"one node has both", []corev1.Node{gpuOnly, full}, nil},
	} {
		if got := UnadvertisedNetwork(r.Network, tc.nodes); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := UnadvertisedNetwork(nil, []corev1.Node{gpuOnly}); got != nil {
		t.Errorf("pods without a network: %v", got)
	}
}

// TestNetworkUnknownIsWarned: a multi-node job on machines whose network
// the pods cannot be given (an EFA count not known here; a node group
// launching instance types of different counts) is warned at node_pool,
// saying why, and its pods get no network.
func TestNetworkUnknownIsWarned(t *testing.T) {
	for _, tc := range []struct {
		name, accelerator, machine, want string
	}{
		{"uncounted", "b300", "p6-b300.48xlarge", "its efa device count is not known"},
		{"counts differ", "h200", "", "have different efa device counts"},
	} {
		w := goldenWorkload(spec.CloudEKS, "train", spec.KindDistributedJob, spec.GPU{Count: 8, Accelerator: tc.accelerator})
		w.Distributed = &spec.DistributedControls{Nodes: rendertest.Ptr(int64(2))}
		pool := &spec.PoolPolicy{Name: "gpu", Cloud: string(spec.CloudEKS), Accelerator: tc.accelerator, GPUsPerNode: 8,
			MachineType: tc.machine}
		r, diags := ResolveAndRender(w, Options{Pool: pool})
		rendertest.RequireNoErrors(t, diags)
		if r.Network != nil {
			t.Errorf("%s: the pods got a network: %+v", tc.name, r.Network)
		}
		if !slices.ContainsFunc(diags, func(d gpudiag.Diagnostic) bool {
			return d.Summary == "Multi-node job without the GPU network" && strings.Contains(d.Detail, tc.want)
		}) {
			t.Errorf("%s: no warning saying %q: %v", tc.name, tc.want, diags)
		}
	}
}

// TestKarpenterAndAutoModeEFA: a 2-node job on a self-managed Karpenter p5
// pool gets EFA as on a node group (Karpenter makes every interface EFA
// for pods that ask); on an EKS Auto Mode pool, whose huge pages are not
// known here, it is warned instead.
func TestKarpenterAndAutoModeEFA(t *testing.T) {
	job := func(cloud spec.Cloud) (*Rendered, gpudiag.Diagnostics) {
		w := goldenWorkload(cloud, "train", spec.KindDistributedJob, spec.GPU{Count: 8, Accelerator: "h100-80gb"})
		w.Distributed = &spec.DistributedControls{Nodes: rendertest.Ptr(int64(2))}
		pool := &spec.PoolPolicy{Name: "gpu", Cloud: string(cloud), Accelerator: "h100-80gb", GPUsPerNode: 8}
		return ResolveAndRender(w, Options{Pool: pool})
	}
	r, diags := job(spec.CloudKarpenter)
	rendertest.RequireNoErrors(t, diags)
	if r.Network == nil || r.Network.Resources.Name(clouds.ResourceEFA, resource.DecimalSI).Value() != 32 {
		t.Fatalf("Karpenter p5 pool: network %+v, want 32 EFA", r.Network)
	}
	if !strings.Contains(r.Network.Advertiser, "Karpenter gives every interface") {
		t.Errorf("Karpenter advertiser = %q", r.Network.Advertiser)
	}
	r, diags = job(spec.CloudEKSAuto)
	rendertest.RequireNoErrors(t, diags)
	if r.Network != nil {
		t.Errorf("EKS Auto Mode pool got a network: %+v", r.Network)
	}
	if !slices.ContainsFunc(diags, func(d gpudiag.Diagnostic) bool {
		return d.Summary == "Multi-node job without the GPU network" && strings.Contains(d.Detail, "EKS Auto Mode")
	}) {
		t.Errorf("EKS Auto Mode: no warning naming it: %v", diags)
	}
}
