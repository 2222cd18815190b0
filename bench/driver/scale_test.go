package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

func TestScaleSize(t *testing.T) {
	for _, c := range []struct {
		scale      float64
		nodes, pod int
	}{{1, 5000, 20000}, {0.02, 100, 400}, {0.2, 1000, 4000}, {0, 0, 0}, {0.00011, 1, 2}} {
		if k, p := scaleSize(c.scale); k != c.nodes || p != c.pod {
			t.Errorf("scaleSize(%g) = %d, %d; want %d, %d", c.scale, k, p, c.nodes, c.pod)
		}
	}
}

const fixtureYAML = `# comment
---
apiVersion: v1
kind: Node
metadata:
  name: mig-0
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    kubernetes.io/hostname: "mig-0"
    fixtures.gpuform.io/cloud: "generic"
spec:
  taints:
  - key: nvidia.com/gpu
    effect: NoSchedule
  - key: sku
    value: gpu
    effect: NoSchedule
status:
  capacity:
    cpu: "8"
    pods: "110"
    nvidia.com/mig-1g.5gb: "3"
    nvidia.com/mig-2g.10gb: "1"
  allocatable:
    cpu: "8"
    pods: "110"
    nvidia.com/mig-1g.5gb: "3"
    nvidia.com/mig-2g.10gb: "1"
---
apiVersion: v1
kind: Node
metadata:
  name: cpu-0
status:
  allocatable:
    cpu: "8"
    pods: "110"
`

func TestParseFixtureNodes(t *testing.T) {
	nodes, err := parseFixtureNodes([]byte(fixtureYAML))
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 || nodes[0].Name != "mig-0" || nodes[1].Name != "cpu-0" {
		t.Fatalf("nodes = %+v", nodes)
	}
	got := gpuResources(&nodes[0])
	if len(got) != 2 || got[0] != (resourceSlots{"nvidia.com/mig-1g.5gb", 3}) || got[1] != (resourceSlots{"nvidia.com/mig-2g.10gb", 1}) {
		t.Errorf("gpuResources = %+v", got)
	}
	if len(gpuResources(&nodes[1])) != 0 {
		t.Error("the CPU node has GPU resources")
	}
}

// The real fixtures: every cloud is there, the CPU pool is not, and the
// goal's 20,000 pods fit on 5,000 clones.
func TestLoadFixturesAndFullScaleFits(t *testing.T) {
	fixtures, err := loadFixtures("../../scripts/localcluster/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, f := range fixtures {
		files[f.File] = true
	}
	for _, want := range []string{"aks.yaml", "eks.yaml", "eks-auto.yaml", "gke.yaml", "gke-autopilot.yaml", "karpenter.yaml", "generic.yaml"} {
		if !files[want] {
			t.Errorf("no GPU node from %s", want)
		}
	}
	if files["cpu.yaml"] {
		t.Error("the CPU fixture was not skipped")
	}
	k, p := scaleSize(1)
	nodes := planNodes("abcde", fixtures, k)
	seen := map[string]bool{}
	for _, n := range nodes {
		if seen[n.Name] {
			t.Fatalf("duplicate node name %s", n.Name)
		}
		seen[n.Name] = true
	}
	places, err := spreadPods(nodes, p)
	if err != nil {
		t.Fatal(err)
	}
	checkWithinCapacity(t, nodes, places)
	// At the goal size the pending workload has a pool, all of it busy.
	if n, err := pendingCandidates(nodes, places); err != nil || n == 0 {
		t.Fatalf("pending workload at BENCH_SCALE=1: %d candidate nodes, %v", n, err)
	}
}

func TestCloneNode(t *testing.T) {
	nodes, err := parseFixtureNodes([]byte(fixtureYAML))
	if err != nil {
		t.Fatal(err)
	}
	f := &nodes[0]
	n := cloneNode(f, "bench-abcde-mig-0-7", "abcde")
	if n.Labels["kubernetes.io/hostname"] != n.Name || n.Labels[spec.LabelKey] != "abcde" || n.Labels["fixtures.gpuform.io/cloud"] != "generic" {
		t.Errorf("labels = %v", n.Labels)
	}
	if n.Annotations["kwok.x-k8s.io/node"] != "fake" {
		t.Errorf("annotations = %v", n.Annotations)
	}
	last := n.Spec.Taints[len(n.Spec.Taints)-1]
	if len(n.Spec.Taints) != 3 || last != (corev1.Taint{Key: spec.LabelKey, Value: "abcde", Effect: corev1.TaintEffectNoSchedule}) {
		t.Errorf("taints = %v", n.Spec.Taints)
	}
	if len(f.Spec.Taints) != 2 || f.Labels[spec.LabelKey] != "" {
		t.Error("the fixture was modified")
	}
	q := n.Status.Allocatable["nvidia.com/mig-1g.5gb"]
	if q.Value() != 3 {
		t.Errorf("allocatable = %v", n.Status.Allocatable)
	}

	pod := scalePod("ns", "gpu-00001", "abcde", n, "nvidia.com/mig-2g.10gb")
	if pod.Spec.NodeName != n.Name || pod.Labels[spec.LabelKey] != "abcde" {
		t.Errorf("pod = %+v", pod.ObjectMeta)
	}
	want := []corev1.Toleration{
		{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "sku", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
		{Key: spec.LabelKey, Operator: corev1.TolerationOpEqual, Value: "abcde", Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	}
	if len(pod.Spec.Tolerations) != len(want) {
		t.Fatalf("tolerations = %v", pod.Spec.Tolerations)
	}
	for i, tol := range want {
		if pod.Spec.Tolerations[i] != tol {
			t.Errorf("toleration %d = %v, want %v", i, pod.Spec.Tolerations[i], tol)
		}
		if i < len(n.Spec.Taints) && !pod.Spec.Tolerations[i].ToleratesTaint(klog.Background(), &n.Spec.Taints[i], false) {
			t.Errorf("toleration %d does not tolerate %v", i, n.Spec.Taints[i])
		}
	}
	r := pod.Spec.Containers[0].Resources
	if l, q := r.Limits["nvidia.com/mig-2g.10gb"], r.Requests["nvidia.com/mig-2g.10gb"]; l.Value() != 1 || q.Value() != 1 {
		t.Errorf("resources = %+v", r)
	}
}

func gpuNode(name string, pods int64, res map[string]int64) *corev1.Node {
	alloc := corev1.ResourceList{}
	for k, v := range res {
		alloc[corev1.ResourceName(k)] = *resource.NewQuantity(v, resource.DecimalSI)
	}
	if pods > 0 {
		alloc[corev1.ResourcePods] = *resource.NewQuantity(pods, resource.DecimalSI)
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Allocatable: alloc}}
}

func checkWithinCapacity(t *testing.T, nodes []*corev1.Node, places []placement) {
	t.Helper()
	used := map[int]map[string]int64{}
	for _, pl := range places {
		if used[pl.Node] == nil {
			used[pl.Node] = map[string]int64{}
		}
		used[pl.Node][pl.Resource]++
	}
	for i, u := range used {
		podCount := int64(0)
		for res, n := range u {
			podCount += n
			q := nodes[i].Status.Allocatable[corev1.ResourceName(res)]
			if !strings.HasPrefix(res, gpuResourcePrefix) || n > q.Value() {
				t.Errorf("node %s: %d × %s, allocatable %v", nodes[i].Name, n, res, q.Value())
			}
		}
		if q, ok := nodes[i].Status.Allocatable[corev1.ResourcePods]; ok && podCount > q.Value() {
			t.Errorf("node %s: %d pods, pods limit %d", nodes[i].Name, podCount, q.Value())
		}
	}
}

func TestSpreadPods(t *testing.T) {
	nodes := []*corev1.Node{
		gpuNode("one", 0, map[string]int64{"nvidia.com/gpu": 1}),
		gpuNode("mig", 0, map[string]int64{"nvidia.com/mig-1g.5gb": 2, "nvidia.com/mig-2g.10gb": 1}),
		gpuNode("eight", 2, map[string]int64{"nvidia.com/gpu": 8}), // pods limit 2
		gpuNode("cpu", 0, map[string]int64{"cpu": 8}),
	}
	places, err := spreadPods(nodes, 6)
	if err != nil {
		t.Fatal(err)
	}
	want := []placement{
		{0, "nvidia.com/gpu"}, {1, "nvidia.com/mig-1g.5gb"}, {2, "nvidia.com/gpu"}, // first pass: one each
		{1, "nvidia.com/mig-1g.5gb"}, {2, "nvidia.com/gpu"}, // "one" and "eight" (pods limit) are full
		{1, "nvidia.com/mig-2g.10gb"},
	}
	if len(places) != len(want) {
		t.Fatalf("places = %v", places)
	}
	for i := range want {
		if places[i] != want[i] {
			t.Errorf("place %d = %v, want %v", i, places[i], want[i])
		}
	}
	checkWithinCapacity(t, nodes, places)
	if _, err := spreadPods(nodes, 7); err == nil || !strings.Contains(err.Error(), "6 GPU units") {
		t.Errorf("7 pods on 6 units: err = %v", err)
	}
}

func TestDataSourceReadSeconds(t *testing.T) {
	log := `2026-11-26T08:40:00.100Z [INFO]  Terraform version: 1.14.0
2026-11-26T08:40:01.250Z [TRACE] provider.terraform-provider-gpu: Calling provider defined DataSource Read: tf_data_source_type=gpu_cluster_capacity @module=sdk.framework
2026-11-26T08:40:01.900Z [TRACE] provider.terraform-provider-gpu: something else
2026-11-26T08:40:03.000Z [TRACE] provider.terraform-provider-gpu: Called provider defined DataSource Read: tf_data_source_type=gpu_cluster_capacity @module=sdk.framework
`
	got, err := dataSourceReadSeconds(strings.NewReader(log))
	if err != nil || got < 1.7499 || got > 1.7501 {
		t.Errorf("dataSourceReadSeconds = %v, %v; want 1.75", got, err)
	}
	if _, err := dataSourceReadSeconds(strings.NewReader("nothing\n")); err == nil {
		t.Error("no error without Read lines")
	}
}

func TestSpliceSection(t *testing.T) {
	section := scaleBegin + "## Large clusters\n\nnew\n" + scaleEnd + "\n"
	doc := "# report\n\n## CPU\n\nx\n\n## Raw runs\n\n| run |\n"
	got := spliceSection(doc, section)
	if want := "# report\n\n## CPU\n\nx\n\n" + section + "## Raw runs\n\n| run |\n"; got != want {
		t.Errorf("insert:\n%s\nwant:\n%s", got, want)
	}
	again := spliceSection(got, scaleBegin+"## Large clusters\n\nnewer\n"+scaleEnd+"\n")
	if strings.Count(again, scaleBegin) != 1 || !strings.Contains(again, "newer") || strings.Contains(again, "\nnew\n") ||
		!strings.HasSuffix(again, "## Raw runs\n\n| run |\n") {
		t.Errorf("replace:\n%s", again)
	}
	if got := spliceSection("", section); got != section {
		t.Errorf("empty doc: %q", got)
	}
}

func TestRequestKeyText(t *testing.T) {
	k := requestKey{Verb: "LIST", Resource: "pods/status"}
	text, _ := k.MarshalText()
	var back requestKey
	if err := back.UnmarshalText(text); err != nil || back != k {
		t.Errorf("round trip of %v: %v, %v", k, back, err)
	}
}

func TestRequestKeyTextMalformed(t *testing.T) {
	var k requestKey
	if err := k.UnmarshalText([]byte("LIST")); err == nil {
		t.Error("no error for a key without a resource")
	}
}

func TestExplainedClosestPool(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		path := filepath.Join(dir, "apply.log")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	refused := "│ Error: gpu_workload Deployment ns/pending did not become ready\n│ \n" +
		"│ Deployment ns/pending was not ready (wait_for = \"rollout\"): the scheduler has\n" +
		"│ refused a pod for 0s (unschedulable_timeout)\n│ \n│ GPU pools in the cluster:\n" +
		"│   generic/NVIDIA-H100-80GB-HBM3: labels and taints match, but at most 2 nvidia.com/gpu are free\n" +
		"│   gke/a100-pool: 2/2 nodes: node selector ...\n"
	first, err := explainedClosestPool(write(refused))
	if err != nil || first != "generic/NVIDIA-H100-80GB-HBM3: labels and taints match, but at most 2 nvidia.com/gpu are free" {
		t.Fatalf("closest pool = %q, %v", first, err)
	}
	if _, err := explainedClosestPool(write(strings.Replace(refused, "(unschedulable_timeout)", "after 5m0s", 1))); err == nil {
		t.Fatal("an apply that ended at its timeout was accepted")
	}
	if _, err := explainedClosestPool(write(strings.Replace(refused, "labels and taints match", "does not match", 1))); err == nil {
		t.Fatal("an explanation naming another pool first was accepted")
	}
}

func TestPendingCandidates_everyPoolNodeMustBeBusy(t *testing.T) {
	h100 := func(name string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"nvidia.com/gpu.product": pendingProduct}}}
	}
	other := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "t4"}}
	nodes := []*corev1.Node{h100("a"), other, h100("b")}
	if n, err := pendingCandidates(nodes, []placement{{Node: 0}, {Node: 2}}); err != nil || n != 2 {
		t.Fatalf("candidates = %d, %v; want 2", n, err)
	}
	if _, err := pendingCandidates(nodes, []placement{{Node: 0}, {Node: 1}}); err == nil || !strings.Contains(err.Error(), "node b") {
		t.Fatalf("an idle pool node was not named: %v", err)
	}
}
