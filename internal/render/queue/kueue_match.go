package queue

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// Kueue's flavor matching, reproduced so the plan can tell whether Kueue
// will ever admit a pool's work (docs/design/queues.md, "ResourceFlavor";
// sigs.k8s.io/kueue v0.17.0 pkg/scheduler/flavorassigner flavorSelector and
// checkFlavorForPodSets, pkg/cache/scheduler updateLabelKeys):
//
//   - the label keys that count are those some flavor of the resource group
//     has in its nodeLabels; every other key of the pod's nodeSelector and
//     required node affinity is dropped;
//   - a term of the required affinity left with no expression makes the
//     affinity match anything (terms are ORed), leaving the nodeSelector;
//   - what remains must match a node whose labels are exactly the flavor's
//     nodeLabels, with the scheduler's own node affinity rules (so In on a
//     key the flavor lacks fails, NotIn and DoesNotExist pass).
//
// Taints are matched separately and never fail for a pool's own flavor: the
// flavor's tolerations are the pool's.

// podPlacement is what a pod set says about nodes: its nodeSelector and
// required node affinity.
type podPlacement struct {
	NodeSelector map[string]string
	Affinity     *corev1.Affinity
}

// labelKeys is the set of keys Kueue matches on: every key of every
// flavor's nodeLabels in the group.
func labelKeys(flavorLabels ...map[string]string) map[string]bool {
	keys := map[string]bool{}
	for _, l := range flavorLabels {
		for k := range l {
			keys[k] = true
		}
	}
	return keys
}

// kueueSelects reports whether Kueue lets a pod set with placement p take
// a flavor with nodeLabels flavor, given the group's label keys.
func kueueSelects(p podPlacement, keys map[string]bool, flavor map[string]string) bool {
	filtered := podPlacement{}
	if len(p.NodeSelector) > 0 {
		filtered.NodeSelector = map[string]string{}
		for k, v := range p.NodeSelector {
			if keys[k] {
				filtered.NodeSelector[k] = v
			}
		}
	}
	if terms := requiredTerms(p.Affinity); len(terms) > 0 {
		var kept []corev1.NodeSelectorTerm
		for _, t := range terms {
			var exprs []corev1.NodeSelectorRequirement
			for _, e := range t.MatchExpressions {
				if keys[e.Key] {
					exprs = append(exprs, e)
				}
			}
			if len(exprs) == 0 {
				kept = nil
				break
			}
			kept = append(kept, corev1.NodeSelectorTerm{MatchExpressions: exprs})
		}
		if len(kept) > 0 {
			filtered.Affinity = requiredAffinity(kept)
		}
	}
	return selectsNode(filtered, flavor)
}

// selectsNode is the scheduler's node affinity verdict for a node with
// exactly these labels.
func selectsNode(p podPlacement, labels map[string]string) bool {
	pod := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: p.NodeSelector, Affinity: p.Affinity}}
	ok, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}})
	return err == nil && ok
}

func requiredTerms(a *corev1.Affinity) []corev1.NodeSelectorTerm {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
}

func requiredAffinity(terms []corev1.NodeSelectorTerm) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
	}}
}

// constrainedKeys are the keys whose presence the placement requires (a
// nodeSelector entry, In or Exists in every term): a flavor without them
// fails Kueue's match once some other flavor makes the key count.
func constrainedKeys(p podPlacement) []string {
	keys := slices.Collect(maps.Keys(p.NodeSelector))
	for _, t := range requiredTerms(p.Affinity) {
		for _, e := range t.MatchExpressions {
			if e.Operator == corev1.NodeSelectorOpIn || e.Operator == corev1.NodeSelectorOpExists {
				keys = append(keys, e.Key)
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
