package queue

import (
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
)

// excludedForResources is how Kueue's topology message says it left nodes
// out for want of free resources (tas_flavor_snapshot.go, notFitMessage:
// "Total nodes: 8; excluded: resource \"nvidia.com/gpu\": 2"): nodes that
// pods leaving would free.
const excludedForResources = `excluded: resource "`

// RequeueNote is a word for a report on work waiting for a topology
// domain, when Kueue left nodes out for their used resources and release k
// does not look at such work again when pods it does not manage leave
// those nodes (kueue#8653, docs/design/kueue-versions.md): the work may
// then wait until something else happens in its queue. "" when the note
// does not apply; the release is asked only when it might.
func RequeueNote(statuses []Status, release func() kueuever.Known) string {
	excluded := false
	for _, s := range statuses {
		if s.WaitsForTopology() && strings.Contains(s.Message, excludedForResources) {
			excluded = true
		}
	}
	if !excluded {
		return ""
	}
	k := release()
	rule := kueuever.RequeueAfterUnmanagedPods
	if rule.In(k.Effective()) {
		return ""
	}
	return "\n\n" + k.Name() + " does not look at work it found no room for again when pods it does not manage (pods " +
		"outside its queues) leave the nodes it excluded (" + rule.Ref + ", fixed " + rule.Since() + "): if such pods " +
		"free them, the workload may stay pending until something else changes in its queue (other work admitted or " +
		"finished, the queue or a flavor updated). " + k.Describe()
}
