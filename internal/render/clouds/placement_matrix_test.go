package clouds_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// The placement matrix (issue #12): for every cloud, every pool shape
// (placement_nodes_test.go) and every workload intent below, render the
// workload's pod and ask the scheduler's own predicates whether it fits the
// pool's node. It must fit exactly when the pool can serve the intent.
// Regenerate testdata/placement/<cloud>.txt with -update (the flag of
// rendertest, whose Golden compares and writes).

// matrixIntent is what a user asks for, without a node_pool.
type matrixIntent struct {
	name      string
	accels    []string // nil: any GPU
	count     int64
	partition string
	strategy  string // "" means single
	sharing   string
	clients   int64
	spot      bool
}

func (in matrixIntent) workload(c spec.Cloud) spec.Workload {
	g := spec.GPU{Count: in.count, Partition: in.partition, MIGStrategy: in.strategy, Sharing: in.sharing, MaxSharedClients: in.clients}
	if len(in.accels) == 1 {
		g.Accelerator = in.accels[0]
	} else {
		g.Accelerators = in.accels
	}
	return spec.Workload{Name: "matrix", Kind: spec.KindDeployment, Cloud: string(c), Image: "registry.example/matrix:1", GPU: g, Spot: in.spot}
}

// matrixIntents: any GPU; each model at 1 GPU, its largest machine and
// (where the cloud knows its machines) more than any machine has; a
// preference list both ways; for the first model spot and every sharing
// variant; for the first MIG model every profile under both strategies,
// spot, and time-slicing.
func matrixIntents(c spec.Cloud) []matrixIntent {
	accels := matrixCloudAccels[c]
	out := []matrixIntent{{name: "any x1", count: 1}}
	for _, a := range accels {
		counts := matrixAccels[a].machineCounts(c)
		largest := int64(8)
		if len(counts) > 0 {
			largest = counts[len(counts)-1]
		}
		for _, n := range slices.Compact([]int64{1, largest, oversize(counts)}) {
			if n > 0 {
				out = append(out, matrixIntent{name: a + " x" + strconv.FormatInt(n, 10), accels: []string{a}, count: n})
			}
		}
	}
	a0, a1 := accels[0], accels[1]
	out = append(out,
		matrixIntent{name: "[" + a0 + "," + a1 + "] x1", accels: []string{a0, a1}, count: 1},
		matrixIntent{name: "[" + a1 + "," + a0 + "] x1", accels: []string{a1, a0}, count: 1},
		matrixIntent{name: a0 + " x1 spot", accels: []string{a0}, count: 1, spot: true},
	)
	out = append(out, sharingIntents(a0)...)
	for _, a := range accels {
		f := matrixAccels[a]
		if f.mig == nil {
			continue
		}
		profiles := f.profilesBySize()
		for _, p := range profiles {
			for _, s := range spec.MIGStrategyNames() {
				out = append(out, matrixIntent{name: a + " " + p + " " + s + " x1", accels: []string{a}, count: 1, partition: p, strategy: s})
			}
		}
		out = append(out,
			matrixIntent{name: a + " " + profiles[0] + " single x1 spot", accels: []string{a}, count: 1, partition: profiles[0], strategy: spec.MIGStrategySingle, spot: true},
			matrixIntent{name: a + " time-slicing x1", accels: []string{a}, count: 1, sharing: spec.SharingTimeSlicing})
		break
	}
	return out
}

func sharingIntents(a string) []matrixIntent {
	return []matrixIntent{
		{name: a + " time-slicing x1", accels: []string{a}, count: 1, sharing: spec.SharingTimeSlicing},
		{name: a + " time-slicing/4 x1", accels: []string{a}, count: 1, sharing: spec.SharingTimeSlicing, clients: 4},
		{name: a + " time-slicing/8 x1", accels: []string{a}, count: 1, sharing: spec.SharingTimeSlicing, clients: 8},
		{name: a + " time-slicing x2", accels: []string{a}, count: 2, sharing: spec.SharingTimeSlicing},
		{name: a + " mps x1", accels: []string{a}, count: 1, sharing: spec.SharingMPS},
	}
}

// oversize is a GPU count no machine of the cloud has (0 when the cloud's
// machines are unknown or the largest already reaches MaxGPUsPerPod).
func oversize(counts []int64) int64 {
	if len(counts) == 0 || counts[len(counts)-1] >= spec.MaxGPUsPerPod {
		return 0
	}
	return min(2*counts[len(counts)-1], spec.MaxGPUsPerPod)
}

// verdict is what a pool should do with an intent.
type verdict int

const (
	expectNo verdict = iota
	expectYes
	// expectEither: both outcomes are right (see expectFit).
	expectEither
)

// expectFit decides from the intent and the pool's shape alone whether the
// pool can serve the intent.
func expectFit(in matrixIntent, p matrixPool) verdict {
	if len(in.accels) > 0 && !slices.Contains(in.accels, p.accel) {
		return expectNo
	}
	// Without GPU Feature Discovery no label names the node's model or
	// sharing strategy: a pod asking for either must not be placed there on
	// a guess (the provider's device plugin values turn GFD on).
	if p.noGFD && (len(in.accels) > 0 || in.sharing != "") {
		return expectNo
	}
	either := false
	if p.cloud != spec.CloudGeneric { // generic clusters have no spot capacity: spot is a warned no-op
		if in.spot && !p.spot {
			return expectNo
		}
		// spot = false states no preference: GKE's untainted spot nodes
		// may take the pod, AKS's tainted ones may not.
		either = !in.spot && p.spot
	}
	var ok bool
	switch {
	case in.partition != "":
		ok = servesPartition(in, p)
	case in.sharing != "":
		var warned bool
		ok, warned = servesSharing(in, p)
		either = either || warned
	default:
		ok = p.partition == "" && p.sharing == "" && in.count <= p.gpus
		// Autopilot makes a node for the pod: a bigger one is not wrong.
		either = either || p.cloud == spec.CloudGKEAutopilot && ok && in.count < p.gpus
	}
	switch {
	case !ok:
		return expectNo
	case either:
		return expectEither
	}
	return expectYes
}

func servesPartition(in matrixIntent, p matrixPool) bool {
	strategy := cmpOr(in.strategy, spec.MIGStrategySingle)
	perGPU := p.layout()[in.partition]
	return perGPU > 0 && p.sharing == "" && p.strategy == strategy && in.count <= p.gpus*perGPU
}

// servesSharing: the same sharing mode, one slot per pod. warned: the
// cloud has no label for the replica count, so a max_shared_clients that
// differs from the pool is ignored with a plan-time warning.
func servesSharing(in matrixIntent, p matrixPool) (ok, warned bool) {
	if p.partition != "" || p.sharing != in.sharing || in.count != 1 {
		return false, false
	}
	if in.clients > 0 && in.clients != p.replicas {
		noLabel := p.cloud == spec.CloudAKS || p.cloud == spec.CloudEKS || p.cloud == spec.CloudKarpenter || p.cloud == spec.CloudEKSAuto
		return noLabel, noLabel
	}
	return true, false
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// mustRefuse says the workload itself cannot run on the cloud, so it must
// be a plan-time error; finding is the issue #12 finding about it (0 when
// the provider has always refused it).
func mustRefuse(c spec.Cloud, in matrixIntent) (must bool, finding int) {
	for _, a := range in.accels {
		if counts := matrixAccels[a].machineCounts(c); len(counts) > 0 && in.count > counts[len(counts)-1] && in.partition == "" && in.sharing == "" {
			return true, 2 // no machine of the cloud has that many GPUs
		}
	}
	switch {
	case c == spec.CloudEKSAuto && (in.partition != "" || in.sharing != ""):
		return true, 3 // Auto Mode can neither partition nor share
	case c == spec.CloudGKEAutopilot && len(in.accels) == 0:
		return true, 0 // Autopilot only creates GPU nodes for a named accelerator
	}
	return false, 0
}

// podFits is the scheduler's verdict for one node: required node affinity
// (nodeSelector and affinity), NoSchedule/NoExecute taints, and the
// extended resources the node advertises.
func podFits(pod *corev1.Pod, node *corev1.Node) (bool, string) {
	match, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)
	if err != nil {
		return false, "invalid affinity: " + err.Error()
	}
	if !match {
		return false, "node affinity"
	}
	hard := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	if taint, found := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations, hard, false); found {
		return false, "untolerated taint " + taint.ToString()
	}
	for _, c := range pod.Spec.Containers {
		for name, q := range c.Resources.Requests {
			if !strings.Contains(string(name), "/") {
				continue // cpu and memory: not what the matrix is about
			}
			if have := node.Status.Allocatable[name]; have.Cmp(q) < 0 {
				return false, "needs " + q.String() + " " + string(name) + ", node has " + have.String()
			}
		}
	}
	return true, ""
}

// matrixCell is one intent on one pool.
type matrixCell struct {
	key      string
	expected verdict
	refused  bool
	fit      bool
	why      string
	known    int // issue #12 finding this cell is known wrong for, 0 if none
}

func (m matrixCell) right() bool {
	switch {
	case m.refused, !m.fit:
		return m.expected != expectYes
	}
	return m.expected != expectNo
}

func (m matrixCell) symbol() string {
	s := "."
	switch {
	case m.refused:
		s = "R"
	case m.fit:
		s = "Y"
	}
	switch {
	case m.right() && m.expected == expectEither:
		return s + "~"
	case m.right():
		return s
	case m.known > 0:
		return "K" + strconv.Itoa(m.known) + ":" + s
	}
	return "!" + s
}

// matrixRow is one intent on a cloud: the plan-time answer and its cells.
type matrixRow struct {
	intent  matrixIntent
	plan    matrixCell // expected: expectNo = must be refused
	cells   []matrixCell
	refusal string
}

type cloudMatrix struct {
	cloud spec.Cloud
	pools []matrixPool
	rows  []matrixRow
}

func cellKey(c spec.Cloud, pool, intent string) string {
	return string(c) + " | " + pool + " | " + intent
}

func buildCloudMatrix(t *testing.T, c spec.Cloud) cloudMatrix {
	t.Helper()
	m := cloudMatrix{cloud: c, pools: matrixPools(t, c)}
	nodes := make([]*corev1.Node, len(m.pools))
	for i, p := range m.pools {
		nodes[i], _ = p.node()
	}
	for _, in := range matrixIntents(c) {
		r, diags := workload.ResolveAndRender(in.workload(c), workload.Options{SkipManifest: true})
		row := matrixRow{intent: in, plan: matrixCell{key: cellKey(c, "plan", in.name), expected: expectEither, refused: diags.HasError()}}
		must, _ := mustRefuse(c, in)
		if must {
			row.plan.expected, row.plan.known = expectNo, knownWrong[row.plan.key]
		}
		row.plan.fit = !row.plan.refused
		if row.plan.refused {
			row.refusal = pool.DiagSummaries(diags.Errors())
		}
		for i, p := range m.pools {
			cell := matrixCell{key: cellKey(c, p.name, in.name), expected: expectFit(in, p), refused: row.plan.refused}
			if must {
				cell.expected = expectNo // no node of the cloud can run it
			}
			if !cell.refused {
				pod := &corev1.Pod{Spec: r.PodTemplate().Spec}
				cell.fit, cell.why = podFits(pod, nodes[i])
			}
			cell.known = knownWrong[cell.key]
			row.cells = append(row.cells, cell)
		}
		m.rows = append(m.rows, row)
	}
	return m
}

// table prints the matrix: a legend of pools, then one line per intent.
func (m cloudMatrix) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Placement matrix for cloud %q (issue #12). Generated by\n", m.cloud)
	b.WriteString("# `go test ./internal/render/clouds -run TestPlacementMatrix -update`. DO NOT EDIT.\n")
	b.WriteString("# Y fits, . does not fit, R refused at plan time, ~ either is right,\n")
	b.WriteString("# !x WRONG, Kn:x known wrong (issue #12 finding n). plan: ok, R, or Kn.\n")
	for i, p := range m.pools {
		fmt.Fprintf(&b, "# P%02d %s\n", i+1, p.name)
	}
	width := 0
	for _, r := range m.rows {
		width = max(width, len(r.intent.name))
	}
	fmt.Fprintf(&b, "%-*s  %-5s", width, "intent", "plan")
	for i := range m.pools {
		fmt.Fprintf(&b, " %-5s", fmt.Sprintf("P%02d", i+1))
	}
	b.WriteString("\n")
	for _, r := range m.rows {
		plan := "ok"
		switch {
		case !r.plan.right():
			plan = "!" + map[bool]string{true: "R", false: "ok"}[r.plan.refused]
			if r.plan.known > 0 {
				plan = "K" + strconv.Itoa(r.plan.known)
			}
		case r.plan.refused:
			plan = "R"
		}
		fmt.Fprintf(&b, "%-*s  %-5s", width, r.intent.name, plan)
		for _, c := range r.cells {
			fmt.Fprintf(&b, " %-5s", c.symbol())
		}
		b.WriteString("\n")
	}
	b.WriteString(m.counts())
	return b.String()
}

func (m cloudMatrix) counts() string {
	var cells, fits, refused, either, wrong int
	known := map[int]int{}
	for _, r := range m.rows {
		for _, c := range append([]matrixCell{r.plan}, r.cells...) {
			if c.key != r.plan.key {
				cells++
				fits += btoi(c.fit && !c.refused)
				refused += btoi(c.refused)
				either += btoi(c.expected == expectEither)
			}
			switch {
			case c.right():
			case c.known > 0:
				known[c.known]++
			default:
				wrong++
			}
		}
	}
	s := fmt.Sprintf("# %d pools x %d intents = %d cells: %d fit, %d refused, %d either-way; %d WRONG", len(m.pools), len(m.rows),
		cells, fits, refused, either, wrong)
	for _, f := range slices.Sorted(maps.Keys(known)) {
		s += fmt.Sprintf("; %d known wrong (finding %d)", known[f], f)
	}
	return s + "\n"
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wrongCells lists every cell (and plan verdict) that is not right.
func (m cloudMatrix) wrongCells() []matrixCell {
	var out []matrixCell
	for _, r := range m.rows {
		for _, c := range append([]matrixCell{r.plan}, r.cells...) {
			if !c.right() {
				out = append(out, c)
			}
		}
	}
	return out
}

func describeWrong(c matrixCell, rows []matrixRow) string {
	got := "planned"
	switch {
	case strings.Contains(c.key, " | plan | "):
		if c.refused {
			got = "refused"
		}
		return c.key + ": " + got + ", expected refused"
	case c.refused:
		got = "refused (" + refusalOf(c.key, rows) + ")"
	case c.fit:
		got = "fits"
	default:
		got = "does not fit (" + c.why + ")"
	}
	want := map[verdict]string{expectNo: "no fit", expectYes: "fit"}[c.expected]
	return c.key + ": " + got + ", expected " + want
}

func refusalOf(key string, rows []matrixRow) string {
	for _, r := range rows {
		if strings.HasSuffix(key, " | "+r.intent.name) {
			return r.refusal
		}
	}
	return ""
}

func placementGoldenPath(c spec.Cloud) string {
	return filepath.Join("testdata", "placement", string(c)+".txt")
}

// TestPlacementMatrix prints every cloud's matrix, compares it with its
// golden file, and fails on every wrong cell that knownWrong does not list.
func TestPlacementMatrix(t *testing.T) {
	for _, name := range clouds.Names() {
		c := spec.Cloud(name)
		t.Run(name, func(t *testing.T) {
			m := buildCloudMatrix(t, c)
			text := m.table()
			t.Log("\n" + text)
			for _, cell := range m.wrongCells() {
				if cell.known > 0 {
					t.Logf("KNOWN WRONG (issue #12 finding %d): %s", cell.known, describeWrong(cell, m.rows))
					continue
				}
				t.Errorf("WRONG: %s", describeWrong(cell, m.rows))
			}
			rendertest.Golden(t, placementGoldenPath(c), text)
		})
	}
}

// TestPlacementKnownWrongStillWrong fails when a knownWrong entry names a
// cell that does not exist or is now right: whoever fixes a finding must
// delete its entries (and regenerate the goldens).
func TestPlacementKnownWrongStillWrong(t *testing.T) {
	wrong := map[string]bool{}
	exists := map[string]bool{}
	for _, name := range clouds.Names() {
		m := buildCloudMatrix(t, spec.Cloud(name))
		for _, r := range m.rows {
			for _, c := range append([]matrixCell{r.plan}, r.cells...) {
				exists[c.key] = true
				wrong[c.key] = !c.right()
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(knownWrong)) {
		switch {
		case !exists[key]:
			t.Errorf("knownWrong lists %q (finding %d), which is no cell of the matrix; delete the entry", key, knownWrong[key])
		case !wrong[key]:
			t.Errorf("knownWrong lists %q (finding %d), which is now right; delete the entry", key, knownWrong[key])
		}
	}
}
