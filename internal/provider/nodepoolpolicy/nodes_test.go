package nodepoolpolicy

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A failing node neither stops the others nor hides them: every other node
// is done and reported, so the state records it; at most nodesInFlight
// nodes are worked on at once.
func TestForEachNodeFinishesOthersAndBoundsConcurrency(t *testing.T) {
	var names []string
	for i := range 100 {
		names = append(names, fmt.Sprintf("n%03d", i))
	}
	var inFlight, most atomic.Int32
	done, err := forEachNode(names, func(name string) (string, error) {
		now := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			seen := most.Load()
			if now <= seen || most.CompareAndSwap(seen, now) {
				break
			}
		}
		// Not synchronisation: each node's work takes a moment, as a patch
		// does, so that workers overlap and the bound is exercised.
		time.Sleep(time.Millisecond)
		if name == "n007" || name == "n042" {
			return name, fmt.Errorf("node %s: conflict", name)
		}
		return name, nil
	})
	if len(done) != 98 || slices.Contains(done, "n007") || slices.Contains(done, "n042") {
		t.Fatalf("done = %d names (%v...), want the 98 that did not fail", len(done), done[:3])
	}
	if err == nil || !strings.Contains(err.Error(), "node n007: conflict") || !strings.Contains(err.Error(), "node n042: conflict") {
		t.Fatalf("err = %v, want both failures named", err)
	}
	if got := most.Load(); got > nodesInFlight || got < 2 {
		t.Fatalf("%d nodes in flight at most, want 2..%d", got, nodesInFlight)
	}
}
