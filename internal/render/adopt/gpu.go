package adopt

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// The GPU intent of a live pod is found by search, not by reading label
// keys: every intent each cloud profile can render is placed, and the
// intents whose placement the pod's own node requirements already contain
// are candidates. The rules stay where they are (one file per cloud), and a
// cloud added later is adopted without a change here.

// gpuIntent is what the search decides.
type gpuIntent struct {
	cloud spec.Cloud
	gpu   spec.GPU
	spot  bool
}

// candidate is one intent with the placement its cloud renders for it.
type candidate struct {
	gpuIntent
	place    placementKey
	required int // node requirements of the placement the pod meets
}

// placementKey is what a pod with this intent would be scheduled by; two
// candidates with equal keys are the same choice for the scheduler.
type placementKey struct {
	nodeSelector map[string]string
	affinity     *corev1.Affinity
	resource     corev1.ResourceName
}

func (k placementKey) equal(o placementKey) bool {
	return maps.Equal(k.nodeSelector, o.nodeSelector) && equality.Semantic.DeepEqual(k.affinity, o.affinity) &&
		k.resource == o.resource
}

// inferGPU decides the cloud and GPU intent of a pod whose GPU container
// asks for count of resource. defaultCloud settles a tie between clouds.
func inferGPU(pod corev1.PodSpec, resource corev1.ResourceName, count int64, defaultCloud string) (gpuIntent, string, error) {
	facts := nodeFactsOf(pod)
	var best []candidate
	for _, c := range searchSpace(facts) {
		c.gpu.Count = count
		got, ok := place(c.gpuIntent)
		if !ok || got.resource != resource {
			continue
		}
		required, ok := facts.meets(got)
		if !ok {
			continue
		}
		c.place, c.required = got, required
		switch {
		case len(best) == 0 || required > best[0].required:
			best = []candidate{c}
		case required == best[0].required:
			best = append(best, c)
		}
	}
	if len(best) == 0 {
		return gpuIntent{}, "", fmt.Errorf("no cloud's placement for %d × %s matches the pod's node selector and affinity "+
			"(%s): none of the provider's rules (%s) describes this workload", count, resource, facts, strings.Join(clouds.Names(), ", "))
	}
	intent, warning, err := choose(best, defaultCloud)
	if err == nil && best[0].required == 0 && len(pod.NodeSelector) > 0 {
		warning = strings.TrimSpace(warning + fmt.Sprintf(" None of the pod's node requirements (%s) is a GPU label "+
			"the %s rules know: adopted as any GPU, with the pod's own node selector kept in the patch.", facts, intent.cloud))
	}
	return intent, warning, err
}

// choose settles candidates that the pod matches equally well. The same
// placement reached by different settings is one choice: the simplest, the
// first searched (or the default cloud's), with a warning when the clouds
// differ, since later changes are checked by the chosen cloud's rules.
// Different placements are a question only the user can answer.
func choose(best []candidate, defaultCloud string) (gpuIntent, string, error) {
	chosen := best[0]
	for _, c := range best {
		if string(c.cloud) == defaultCloud {
			chosen = c
			break
		}
	}
	var clouds []string
	for _, c := range best {
		if !c.place.equal(chosen.place) {
			if c.cloud != chosen.cloud && string(chosen.cloud) != defaultCloud {
				return gpuIntent{}, "", fmt.Errorf("the pod's node selector and affinity fit the rules of several clouds "+
					"(%s as %s, %s as %s); set default_cloud in the provider block to the cluster's cloud",
					chosen.cloud, describe(chosen.gpuIntent), c.cloud, describe(c.gpuIntent))
			}
			if c.cloud == chosen.cloud {
				return gpuIntent{}, "", fmt.Errorf("the pod's node selector and affinity fit several GPU requests on %s "+
					"(%s and %s): add the node label that tells them apart to the workload, then import it",
					chosen.cloud, describe(chosen.gpuIntent), describe(c.gpuIntent))
			}
			continue // another cloud, and the default cloud decided
		}
		if !slices.Contains(clouds, string(c.cloud)) {
			clouds = append(clouds, string(c.cloud))
		}
	}
	warning := ""
	if len(clouds) > 1 && string(chosen.cloud) != defaultCloud {
		warning = fmt.Sprintf("The pod's placement is what %s would all render; adopted as %s. Set default_cloud in the "+
			"provider block if the cluster runs on another of them: later changes are checked by that cloud's rules.",
			strings.Join(clouds, ", "), chosen.cloud)
	}
	return chosen.gpuIntent, warning, nil
}

func describe(in gpuIntent) string {
	text := cmp.Or(in.gpu.Accelerator, "any GPU")
	if in.gpu.Partition != "" {
		text += " " + in.gpu.Partition + " (" + cmp.Or(in.gpu.MIGStrategy, spec.MIGStrategySingle) + ")"
	}
	if in.gpu.Sharing != "" {
		text += " " + in.gpu.Sharing
	}
	if in.spot {
		text += " spot"
	}
	return text
}

// searchSpace lists, simplest first, every intent the clouds offer: any
// GPU and each accelerator, whole, each MIG profile under both strategies,
// and shared; each on demand and spot. Shared-client counts are taken from
// the pod's own requirements, the only place they can come from.
func searchSpace(facts nodeFacts) []candidate {
	var out []candidate
	for _, cloud := range clouds.All() {
		c := cloud.Name()
		for _, accel := range append([]string{""}, cloud.Accelerators()...) {
			for _, g := range gpuVariants(accel, facts.numbers()) {
				for _, spot := range []bool{false, true} {
					out = append(out, candidate{gpuIntent: gpuIntent{cloud: c, gpu: g, spot: spot}})
				}
			}
		}
	}
	return out
}

func gpuVariants(accel string, clients []int64) []spec.GPU {
	out := []spec.GPU{{Accelerator: accel}}
	if a, ok := catalog.LookupAccelerator(accel); ok {
		for _, p := range a.MIGProfileNames() {
			out = append(out, spec.GPU{Accelerator: accel, Partition: p},
				spec.GPU{Accelerator: accel, Partition: p, MIGStrategy: spec.MIGStrategyMixed})
		}
	}
	for _, sharing := range spec.SharingNames() {
		for _, n := range append([]int64{0}, clients...) {
			out = append(out, spec.GPU{Accelerator: accel, Sharing: sharing, MaxSharedClients: n})
		}
	}
	return out
}

// place renders the placement of an intent, or reports false when the
// cloud refuses the intent.
func place(in gpuIntent) (placementKey, bool) {
	cloud := clouds.Lookup(in.cloud)
	parsed, diags := workload.ParseGPUIntent(in.gpu, in.spot, cloud, true)
	// A count no machine holds is still this placement: the import reports
	// it with the render's own message instead of finding no match.
	if slices.ContainsFunc(diags, func(d gpudiag.Diagnostic) bool {
		return d.Severity == gpudiag.SeverityError && d.PathString() != "gpu.count"
	}) {
		return placementKey{}, false
	}
	parsed.Count = in.gpu.Count
	p, ok := workload.PlacePod(workload.Container{GPU: in.gpu, Spot: in.spot}, parsed, cloud, nil)
	if !ok {
		return placementKey{}, false
	}
	return placementKey{nodeSelector: p.NodeSelector, affinity: p.Affinity, resource: p.ResourceName}, true
}

// nodeFacts is what a live pod requires of its node's labels: the values a
// key must have (nodeSelector, In), keys that must exist, and values or
// keys that must not be there.
type nodeFacts struct {
	values map[string][]string
	exists map[string]bool
}

func nodeFactsOf(pod corev1.PodSpec) nodeFacts {
	f := nodeFacts{values: map[string][]string{}, exists: map[string]bool{}}
	for k, v := range pod.NodeSelector {
		f.values[k] = []string{v}
	}
	for _, term := range workload.RequiredTerms(pod.Affinity) {
		for _, r := range term.MatchExpressions {
			switch r.Operator {
			case corev1.NodeSelectorOpIn:
				if _, set := f.values[r.Key]; !set {
					f.values[r.Key] = r.Values
				}
			case corev1.NodeSelectorOpExists:
				f.exists[r.Key] = true
			}
		}
	}
	return f
}

func (f nodeFacts) String() string {
	parts := make([]string, 0, len(f.values)+len(f.exists))
	for _, k := range slices.Sorted(maps.Keys(f.values)) {
		parts = append(parts, k+" in "+strings.Join(f.values[k], "|"))
	}
	for _, k := range slices.Sorted(maps.Keys(f.exists)) {
		parts = append(parts, k+" exists")
	}
	if len(parts) == 0 {
		return "no node requirements"
	}
	return strings.Join(parts, "; ")
}

// numbers are the integer label values the pod requires: candidates for a
// shared-clients count.
func (f nodeFacts) numbers() []int64 {
	var out []int64
	for _, values := range f.values {
		for _, v := range values {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 1 && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// meets reports whether the pod already requires everything the placement
// requires (and nothing it excludes), and how many requirements that is:
// the more, the more specific the intent.
func (f nodeFacts) meets(p placementKey) (int, bool) {
	required := 0
	for k, v := range p.nodeSelector {
		if !f.within(k, []string{v}) {
			return 0, false
		}
		required++
	}
	terms := workload.RequiredTerms(p.affinity)
	if len(terms) > 1 {
		return 0, false // a preference list: never what one hand-written pod says
	}
	for _, term := range terms {
		for _, r := range term.MatchExpressions {
			ok, counts := f.allows(r)
			if !ok {
				return 0, false
			}
			if counts {
				required++
			}
		}
	}
	return required, true
}

// allows checks one requirement of the placement against the pod; counts
// says whether it is a positive requirement the pod states.
func (f nodeFacts) allows(r corev1.NodeSelectorRequirement) (ok, counts bool) {
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return f.within(r.Key, r.Values), true
	case corev1.NodeSelectorOpExists:
		_, has := f.values[r.Key]
		return has || f.exists[r.Key], true
	case corev1.NodeSelectorOpNotIn:
		values, has := f.values[r.Key]
		return !has || !slices.ContainsFunc(values, func(v string) bool { return slices.Contains(r.Values, v) }), false
	case corev1.NodeSelectorOpDoesNotExist:
		_, has := f.values[r.Key]
		return !has && !f.exists[r.Key], false
	default:
		return false, false
	}
}

// within: the pod requires key to have one of values, and only those.
func (f nodeFacts) within(key string, values []string) bool {
	got, ok := f.values[key]
	return ok && len(got) > 0 && !slices.ContainsFunc(got, func(v string) bool { return !slices.Contains(values, v) })
}
