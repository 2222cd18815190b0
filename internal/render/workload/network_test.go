package workload

import (
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

func nodeWith(labels map[string]string, allocatable map[corev1.ResourceName]string) corev1.Node {
	list := corev1.ResourceList{}
	for name, q := range allocatable {
		list[name] = resource.MustParse(q)
	}
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Status: corev1.NodeStatus{Allocatable: list}}
}

// p5NodeLabels are the labels of a p5.48xlarge node of the EKS node
// group group.
func p5NodeLabels(group string) map[string]string {
	return map[string]string{"eks.amazonaws.com/nodegroup": group, "k8s.amazonaws.com/accelerator": "nvidia-h100",
		"node.kubernetes.io/instance-type": "p5.48xlarge", "eks.amazonaws.com/capacityType": "ON_DEMAND"}
}

// TestUnadvertisedNetwork: the EFA devices and huge pages a p5 job's pods
// ask for are named when no node of the pool has them allocatable, and
// the network says what advertises them. Only the pool's own nodes count:
// another node group of the same machine with EFA does not hide it.
func TestUnadvertisedNetwork(t *testing.T) {
	r := p5Job(t)
	if r.Network == nil {
		t.Fatal("a 2-node job on p5.48xlarge got no GPU network")
	}
	if !strings.Contains(r.Network.Advertiser, "EFA device plugin") {
		t.Errorf("Advertiser = %q, want the EFA device plugin named", r.Network.Advertiser)
	}
	own, other := p5NodeLabels("gpu-p5"), p5NodeLabels("other-p5")
	gpuOnly := nodeWith(own, map[corev1.ResourceName]string{"nvidia.com/gpu": "8"})
	efaNoPages := nodeWith(own, map[corev1.ResourceName]string{"nvidia.com/gpu": "8", clouds.ResourceEFA: "32", clouds.ResourceHugePages2Mi: "0"})
	full := nodeWith(own, map[corev1.ResourceName]string{"nvidia.com/gpu": "8", clouds.ResourceEFA: "32", clouds.ResourceHugePages2Mi: "10256Mi"})
	// Another node group of p5s, with EFA, which the pods cannot land on:
	// its own taint is one they do not tolerate.
	otherFull := *full.DeepCopy()
	otherFull.Labels = other
	otherFull.Spec.Taints = []corev1.Taint{{Key: "team", Value: "b", Effect: corev1.TaintEffectNoSchedule}}
	otherModel := *full.DeepCopy()
	otherModel.Labels = maps.Clone(own)
	otherModel.Labels["k8s.amazonaws.com/accelerator"] = "nvidia-a100"
	for _, tc := range []struct {
		name      string
		nodes     []corev1.Node
		want      []corev1.ResourceName
		poolNodes int
	}{
		{"no node of the pool yet: nothing to say", nil, nil, 0},
		{"GPUs only", []corev1.Node{gpuOnly, gpuOnly}, []corev1.ResourceName{clouds.ResourceHugePages2Mi, clouds.ResourceEFA}, 2},
		{"EFA without pre-allocated pages", []corev1.Node{efaNoPages}, []corev1.ResourceName{clouds.ResourceHugePages2Mi}, 1},
		{"one node has both", []corev1.Node{gpuOnly, full}, nil, 2},
		{"another node group has both", []corev1.Node{gpuOnly, otherFull}, []corev1.ResourceName{clouds.ResourceHugePages2Mi, clouds.ResourceEFA}, 1},
		{"only another node group", []corev1.Node{otherFull}, nil, 0},
		{"another model has both", []corev1.Node{gpuOnly, otherModel}, []corev1.ResourceName{clouds.ResourceHugePages2Mi, clouds.ResourceEFA}, 1},
	} {
		got, poolNodes := r.UnadvertisedNetwork(tc.nodes)
		if !slices.Equal(got, tc.want) || poolNodes != tc.poolNodes {
			t.Errorf("%s: %v of %d pool node(s), want %v of %d", tc.name, got, poolNodes, tc.want, tc.poolNodes)
		}
	}
	r.Network = nil
	if got, _ := r.UnadvertisedNetwork([]corev1.Node{gpuOnly}); got != nil {
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
