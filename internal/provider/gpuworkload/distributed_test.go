package gpuworkload

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// TestGangFindings: a distributed job of several pods without a queue is
// warned about, on distributed.nodes; in a queue, or of one pod, it is not.
func TestGangFindings(t *testing.T) {
	nodes := func(n int64) *spec.DistributedControls { return &spec.DistributedControls{Nodes: &n} }
	w := spec.Workload{Kind: spec.KindDistributedJob, Distributed: nodes(4)}
	diags := gangFindings(w)
	if len(diags) != 1 || diags.HasError() || diags[0].PathString() != "distributed.nodes" {
		t.Fatalf("no queue: %v", diags)
	}
	for name, edit := range map[string]func(*spec.Workload){
		"queued":   func(w *spec.Workload) { w.Queue = "team-a" },
		"one node": func(w *spec.Workload) { w.Distributed = nodes(1) },
		"a job":    func(w *spec.Workload) { w.Kind = spec.KindJob },
	} {
		other := w
		edit(&other)
		if diags := gangFindings(other); len(diags) > 0 {
			t.Errorf("%s: %v", name, diags)
		}
	}
}
