package main

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/klog/v2"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

const fixturesDir = "../../scripts/localcluster/fixtures"

// The slice the bench publishes for a node is the one dra.sh publishes for
// the same node: the values below are those of the local cluster's
// 00000-gpu.nvidia.com-dra-h100-0, device gpu-0 and gpu-5.
func TestDRASliceAsDraSh(t *testing.T) {
	fixture, err := draFixtureNode(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	if fixture.Name != "dra-h100-0" {
		t.Fatalf("fixture %s, want dra-h100-0", fixture.Name)
	}
	fixture.UID = "f28f2039"
	slice, err := draSlice(fixture, "abcde")
	if err != nil {
		t.Fatal(err)
	}
	if slice.Name != "00000-gpu.nvidia.com-dra-h100-0" || slice.Spec.Pool.Name != "dra-h100-0" || *slice.Spec.NodeName != "dra-h100-0" ||
		slice.Spec.Driver != draDriver || slice.Spec.Pool.ResourceSliceCount != 1 || len(slice.Spec.Devices) != 8 {
		t.Fatalf("slice %s: %+v", slice.Name, slice.Spec)
	}
	if o := slice.OwnerReferences; len(o) != 1 || o[0].Kind != "Node" || o[0].UID != "f28f2039" || !*o[0].Controller ||
		slice.Labels[spec.LabelKey] != "abcde" {
		t.Fatalf("owner %+v, labels %v", o, slice.Labels)
	}
	want := map[string]string{
		"productName": "NVIDIA H100 80GB HBM3", "brand": "Nvidia", "architecture": "Hopper", "type": "gpu",
		"cudaComputeCapability": "9.0.0", "cudaDriverVersion": "13.0.0", "driverVersion": "580.159.4",
		"uuid": "GPU-8037053f-b39e-4ca6-d8de-81abbc1d0988", "resource.kubernetes.io/pciBusID": "0000:18:00.0",
		"resource.kubernetes.io/pcieRoot": "pci0000:15",
	}
	d := slice.Spec.Devices[0]
	for k, v := range want {
		a := d.Attributes[resourceName(k)]
		got := ""
		switch {
		case a.StringValue != nil:
			got = *a.StringValue
		case a.VersionValue != nil:
			got = *a.VersionValue
		}
		if got != v {
			t.Errorf("gpu-0 %s = %q, want %q", k, got, v)
		}
	}
	if numa := slice.Spec.Devices[5].Attributes["resource.kubernetes.io/numaNode"].IntValue; numa == nil || *numa != 1 {
		t.Errorf("gpu-5 numaNode = %v, want 1", numa)
	}
	if mem := d.Capacity["memory"].Value; mem.String() != "81559Mi" || d.Name != "gpu-0" {
		t.Errorf("%s memory = %s", d.Name, mem.String())
	}
}

// The clone keeps what the DRA workload's placement needs and drops the
// fixtures' bookkeeping (dra.sh would publish a second pool for it).
func TestDRANode(t *testing.T) {
	fixture, err := draFixtureNode(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	n := draNode(fixture, "bench-abcde-dra-0", "abcde")
	for k := range n.Labels {
		if strings.HasPrefix(k, fixtureLabelPrefix) {
			t.Errorf("label %s kept", k)
		}
	}
	if n.Labels["nvidia.com/gpu.product"] != draFixtureProduct || n.Labels[draNodeLabel] != "abcde" ||
		n.Labels["kubernetes.io/hostname"] != n.Name || n.Labels["nvidia.com/gpu.deploy.device-plugin"] != "false" {
		t.Errorf("labels %v", n.Labels)
	}
	if _, ok := n.Status.Allocatable["nvidia.com/gpu"]; ok {
		t.Error("a DRA node advertises nvidia.com/gpu")
	}
	keys := []string{}
	for _, taint := range n.Spec.Taints {
		keys = append(keys, taint.Key)
	}
	if !slices.Equal(keys, []string{"nvidia.com/gpu", spec.LabelKey}) {
		t.Errorf("taints %v", n.Spec.Taints)
	}
}

// A workload on the run's DRA pool claims the pool's class with no
// selector, requests no nvidia.com/gpu, and lands only on the run's DRA
// nodes: their labels selected, their taints tolerated.
func TestDRAPoolWorkloadRendersOntoTheRunsNodes(t *testing.T) {
	version := utilversion.MajorMinor(1, 34)
	r, err := spec.RenderDRA("gpu-000", "ns", "abcde", version)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := spec.RenderDRAPool("abcde")
	if err != nil {
		t.Fatal(err)
	}
	claim := r.ResourceClaimTemplateV1
	if claim == nil || claim.Spec.Spec.Devices.Requests[0].Exactly.DeviceClassName != pool.DeviceClassName ||
		len(claim.Spec.Spec.Devices.Requests[0].Exactly.Selectors) != 0 {
		t.Fatalf("claim %+v, want the pool's class %s and no selector", claim, pool.DeviceClassName)
	}
	got := r.PodTemplate().Spec
	if _, ok := got.Containers[0].Resources.Limits["nvidia.com/gpu"]; ok {
		t.Errorf("the pod requests nvidia.com/gpu: %v", got.Containers[0].Resources.Limits)
	}
	fixture, err := draFixtureNode(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	node := draNode(fixture, "n", "abcde")
	for k, v := range got.NodeSelector {
		if node.Labels[k] != v {
			t.Errorf("the pod selects %s=%s; the run's DRA node has %q", k, v, node.Labels[k])
		}
	}
	for _, taint := range node.Spec.Taints {
		if !slices.ContainsFunc(got.Tolerations, func(tol corev1.Toleration) bool { return tol.ToleratesTaint(klog.Background(), &taint, false) }) {
			t.Errorf("taint %v not tolerated by %v", taint, got.Tolerations)
		}
	}
	hcl := gpuWorkloadDRAHCL("/k", "ns", spec.DRAPoolRef("abcde"), 3)
	for _, want := range []string{`node_pool = jsondecode("`, "count     = 3"} {
		if !strings.Contains(hcl, want) {
			t.Errorf("no %q in\n%s", want, hcl)
		}
	}
}

func resourceName(s string) resourcev1.QualifiedName { return resourcev1.QualifiedName(s) }

// The DRA section shows the control plane's own ratio (the API floor with
// and without DRA) and what Terraform and the provider add to it.
func TestDRAFloorTable(t *testing.T) {
	now := stamp{Commit: "abc"}
	m := func(subject string, apply, destroy float64) measurement {
		return measurement{Run: 1, N: 100, Subject: subject, Measured: now,
			Seconds: map[string]float64{stepApply: apply, stepDestroy: destroy}}
	}
	results := []measurement{m(subjectFloor, 10, 4), m(subjectDRAFloor, 14, 5), m(subjectDRA, 15.4, 6)}
	var b strings.Builder
	draReport(&b, meta{Ns: []int{100}, Now: now}, results)
	out := b.String()
	for _, want := range []string{
		"| apply (waits for rollout) | 10.00 s | 14.00 s | 1.40 | 1.10 |",
		"| destroy (waits until gone) | 4.00 s | 5.00 s | 1.25 | 1.20 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the DRA section lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	draReport(&b, meta{Ns: []int{100}, Now: now}, results[2:])
	if strings.Contains(b.String(), "control plane alone") {
		t.Errorf("a run without the floors shows their table:\n%s", b.String())
	}
}
