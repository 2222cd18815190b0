package queue

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// A flavor's nodeLabels do two jobs. Kueue writes them into every pod it
// admits through the flavor, so they must select the pool's nodes and no
// other pool's: then a plain Job or a chart's pod sent to the queue lands on
// the pool whose quota it used. And Kueue matches a pod set to a flavor on
// the keys the group's flavors use (kueue_match.go), so a pool's own
// workloads must match its flavor, and must not match a flavor whose nodes
// they cannot run on.
//
// The labels start as the pool's node selector (what its workloads select,
// so Kueue's merge into their nodeSelector never conflicts) plus its identity
// (pool.Render: the cloud's pool-name label, or GFD's labels on generic
// clusters). Two steps then add keys until nothing changes:
//   - a key some flavor uses and a pool's workloads require gets that pool's
//     value, where its nodes have one value for it;
//   - a pool's work that Kueue would let into another pool's flavor whose
//     nodes it cannot run on gets a key that tells the two apart.
// What still fails is refused at plan time (checkFlavorLabels).

// maxLabelRounds bounds the fixpoint; each round adds at least one of the
// few keys the pools' labels have.
const maxLabelRounds = 8

// assignFlavorLabels sets every flavor's labels and reports the queues Kueue
// could not run as written. All flavors must be resolved.
func assignFlavorLabels(flavors []flavor, diags *gpudiag.Diagnostics) {
	for i := range flavors {
		f := &flavors[i]
		f.labels = map[string]string{}
		maps.Copy(f.labels, f.pool.NodeSelector)
		maps.Copy(f.labels, f.pool.IdentityLabels)
	}
	for range maxLabelRounds {
		changed := completeKeys(flavors)
		if discriminate(flavors) {
			changed = true
		}
		if !changed {
			break
		}
	}
	checkFlavorLabels(flavors, diags)
}

func (f flavor) placement() podPlacement {
	return podPlacement{NodeSelector: f.pool.NodeSelector, Affinity: f.pool.Affinity}
}

// nodeLabels is every label the pool's nodes carry with one known value:
// what the cloud or GPU stack sets, what the pool asks to be added, and its
// identity, less the labels whose value is one of several.
func (f flavor) nodeLabels() map[string]string {
	out := map[string]string{}
	maps.Copy(out, f.pool.CloudSetLabels)
	maps.Copy(out, f.pool.NodeLabels)
	maps.Copy(out, f.pool.IdentityLabels)
	for k := range f.pool.LabelChoices {
		delete(out, k)
	}
	return out
}

// nodeVariants are the label sets a node of the pool may have.
func (f flavor) nodeVariants() []map[string]string {
	return labelVariants(f.nodeLabels(), f.pool.LabelChoices)
}

// labelVariants expands known labels with each choice of every label that
// has several.
func labelVariants(known map[string]string, choices map[string][]string) []map[string]string {
	variants := []map[string]string{known}
	for _, k := range slices.Sorted(maps.Keys(choices)) {
		var next []map[string]string
		for _, v := range variants {
			for _, choice := range choices[k] {
				n := maps.Clone(v)
				n[k] = choice
				next = append(next, n)
			}
		}
		variants = next
	}
	return variants
}

// runsOn: some node of q would take a pod placed like p (taints aside:
// Kueue adds q's tolerations at admission).
func runsOn(p podPlacement, q flavor) bool {
	return runsOnAny(p, q.nodeVariants())
}

func runsOnAny(p podPlacement, nodes []map[string]string) bool {
	return slices.ContainsFunc(nodes, func(labels map[string]string) bool { return selectsNode(p, labels) })
}

// selectsAnyNodeOf: the flavor's labels select some node of q.
func selectsAnyNodeOf(labels map[string]string, q flavor) bool {
	return slices.ContainsFunc(q.nodeVariants(), func(node map[string]string) bool { return subset(labels, node) })
}

func subset(small, big map[string]string) bool {
	for k, v := range small {
		if got, ok := big[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func allLabelKeys(flavors []flavor) map[string]bool {
	labels := make([]map[string]string, len(flavors))
	for i, f := range flavors {
		labels[i] = f.labels
	}
	return labelKeys(labels...)
}

// completeKeys gives each flavor the pool's value of every key that counts
// and that its workloads require. Where the pool's nodes may carry one of
// several values, the first is taken (and warned about, guessedLabels):
// without a value Kueue would admit none of the pool's work.
func completeKeys(flavors []flavor) bool {
	keys := allLabelKeys(flavors)
	changed := false
	for i := range flavors {
		f := &flavors[i]
		known := f.nodeLabels()
		for _, k := range constrainedKeys(f.placement()) {
			if _, has := f.labels[k]; has || !keys[k] {
				continue
			}
			v, ok := known[k]
			if !ok && len(f.pool.LabelChoices[k]) > 0 {
				v, ok = f.pool.LabelChoices[k][0], true
			}
			if ok {
				f.labels[k] = v
				changed = true
			}
		}
	}
	return changed
}

// discriminate adds to a flavor the first label of its pool that keeps out
// the work of another pool (of the same GPU resource) which Kueue would
// otherwise admit there although it cannot run on the pool's nodes.
func discriminate(flavors []flavor) bool {
	changed := false
	for _, p := range flavors {
		for j := range flavors {
			q := &flavors[j]
			if p.index == q.index || p.resourceName() != q.resourceName() {
				continue
			}
			keys := allLabelKeys(flavors)
			if !kueueSelects(p.placement(), keys, q.labels) || runsOn(p.placement(), *q) {
				continue
			}
			if k, v, ok := telling(p.placement(), keys, *q); ok {
				q.labels[k] = v
				changed = true
			} else if k, v, ok := requiredLabel(p, keys, *q); ok {
				flavors[p.index].labels[k] = v
				changed = true
			}
		}
	}
	return changed
}

// requiredLabel is a label p's work requires and q's flavor lacks: once p's
// own flavor names it, Kueue matches on it, and q's flavor (without it) no
// longer takes p's work. It serves where no label of q's nodes tells the two
// apart (a whole-GPU pool has no label that a MIG pool's nodes lack).
func requiredLabel(p flavor, keys map[string]bool, q flavor) (string, string, bool) {
	known := p.nodeLabels()
	for _, k := range constrainedKeys(p.placement()) {
		if _, has := p.labels[k]; has || keys[k] {
			continue
		}
		v, ok := known[k]
		if !ok && len(p.pool.LabelChoices[k]) > 0 {
			v, ok = p.pool.LabelChoices[k][0], true
		}
		withKey := maps.Clone(keys)
		withKey[k] = true
		if ok && !kueueSelects(p.placement(), withKey, q.labels) {
			return k, v, true
		}
	}
	return "", "", false
}

// telling is a label of q's nodes which, once Kueue matches on it, keeps
// work placed like p out of q's flavor.
func telling(p podPlacement, keys map[string]bool, q flavor) (string, string, bool) {
	known := q.nodeLabels()
	for _, k := range slices.Sorted(maps.Keys(known)) {
		if _, has := q.labels[k]; has {
			continue
		}
		labels := maps.Clone(q.labels)
		labels[k] = known[k]
		withKey := maps.Clone(keys)
		withKey[k] = true
		if !kueueSelects(p, withKey, labels) {
			return k, known[k], true
		}
	}
	return "", "", false
}

// checkFlavorLabels reports what Kueue could still not run as the queue is
// written, on the flavor that causes it.
func checkFlavorLabels(flavors []flavor, diags *gpudiag.Diagnostics) {
	keys := allLabelKeys(flavors)
	for _, f := range flavors {
		if len(f.labels) > maxFlavorEntries {
			diags.AddError(f.path("node_pool"), "Too many node labels for a ResourceFlavor", f.ref()+" is selected by "+
				strconv.Itoa(len(f.labels))+" node labels ("+describeLabels(f.labels)+"), and Kueue accepts at most "+
				strconv.Itoa(maxFlavorEntries)+". Allowed: a pool with fewer extra labels, or fewer pools in the queue.")
			continue
		}
		if !kueueSelects(f.placement(), keys, f.labels) {
			diags.AddError(f.path("node_pool"), "Kueue can never admit this pool's work", neverAdmitted(f, flavors, keys))
			continue
		}
		for _, q := range flavors {
			if q.index == f.index || q.resourceName() != f.resourceName() {
				continue
			}
			if selectsAnyNodeOf(f.labels, q) {
				diags.AddError(f.path("node_pool"), "Kueue cannot tell two pools apart", f.ref()+" and "+q.ref()+" offer "+
					f.resourceName()+", and this flavor's node labels ("+describeLabels(f.labels)+") also select "+
					strconv.Quote(q.spec.Pool.Name)+"'s nodes, so Kueue could run work charged to this pool there. "+
					"Allowed: give one pool a label of its own (labels = { \"pool\" = \"...\" }), or put the pools in separate queues.")
				break
			}
			if kueueSelects(f.placement(), keys, q.labels) && !runsOn(f.placement(), q) {
				diags.AddError(q.path("node_pool"), "Kueue could admit another pool's work here", "Kueue would let the "+
					"workloads of "+f.ref()+" into this flavor ("+q.ref()+", node labels "+describeLabels(q.labels)+
					") when theirs is full, and they cannot run on its nodes: they would hold this pool's quota and stay "+
					"Pending. No label of the two pools tells them apart. Allowed: put the pools in separate queues, or give "+
					"one a label of its own (labels = { \"pool\" = \"...\" }).")
			}
		}
		if guessed := guessedLabels(f); len(guessed) > 0 {
			diags.AddWarning(f.path("node_pool"), "The flavor selects one variant of the model", guessedDetail(f, guessed))
		}
	}
}

// neverAdmitted explains a failed match of a pool's work with its own
// flavor: a key another flavor uses, which the work requires and this pool's
// nodes carry with no single value.
func neverAdmitted(f flavor, flavors []flavor, keys map[string]bool) string {
	detail := f.ref() + "'s workloads require node labels Kueue matches on"
	for _, k := range constrainedKeys(f.placement()) {
		if _, has := f.labels[k]; has || !keys[k] {
			continue
		}
		var users []string
		for _, o := range flavors {
			if _, ok := o.labels[k]; ok {
				users = append(users, "flavor["+strconv.Itoa(o.index)+"]")
			}
		}
		detail = f.ref() + "'s workloads select " + k + ", which Kueue matches on because " + strings.Join(users, ", ") +
			" name it; this pool's nodes have no single value of it for the flavor to name"
		if choices := f.pool.LabelChoices[k]; len(choices) > 0 {
			detail += " (it may be any of " + gpudiag.QuoteList(choices) + ")"
		}
		break
	}
	return detail + ", so Kueue would keep every workload of this pool pending (\"flavor " + f.name() +
		" doesn't match node affinity\"). Allowed: put this pool in a gpu_queue of its own, or in one with pools " +
		"whose flavors do not name that label."
}

// guessedLabels are the flavor's labels whose value is the first of several.
func guessedLabels(f flavor) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(f.labels)) {
		if len(f.pool.LabelChoices[k]) > 1 {
			out = append(out, k)
		}
	}
	return out
}

func guessedDetail(f flavor, guessed []string) string {
	parts := make([]string, len(guessed))
	identity := true
	for i, k := range guessed {
		parts[i] = k + "=" + f.labels[k] + " (the pool's nodes may report any of " + gpudiag.QuoteList(f.pool.LabelChoices[k]) + ")"
		if _, ok := f.pool.IdentityLabels[k]; !ok {
			identity = false
		}
	}
	detail := "The ResourceFlavor of " + f.ref() + " selects " + strings.Join(parts, ", ") + ". Kueue writes it into every " +
		"pod it admits here, so nodes of the pool that report another value never get this queue's work. "
	if f.spec.Pool.UsesDRA() && f.spec.Pool.Partition != "" {
		detail += "GPU Feature Discovery labels a DRA pool's MIG nodes under the GPU Operator's cluster-wide mig.strategy, " +
			"which the pool cannot see: the flavor takes the labels of \"single\", the operator's default, and a cluster " +
			"running \"mixed\" or \"none\" labels the nodes with the GPUs' product and count instead. "
	}
	if identity {
		return detail + "No label names this pool's nodes, so the flavor selects them by the model's first variant. " +
			"If the nodes report another, give the pool a label of its own (labels = { \"pool\" = \"...\" }): the flavor " +
			"then selects by that instead."
	}
	return detail + "Kueue matches on " + strings.Join(guessed, ", ") + " in this queue because other flavors name it, so " +
		"this flavor must name one value. If the nodes report another, put this pool in a gpu_queue without those pools."
}
