package clouds

import (
	"slices"
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// What GPU Feature Discovery writes on a node of a pool, from its own
// labelling rules (k8s-device-plugin v0.20.0, internal/lm/mig-strategy.go
// and resource.go; docs/design/nvidia.md#gfd-labels-of-mig-nodes). Every
// rule that depends on the pool's GPUs, MIG layout, sharing, allocation
// method and MIG strategy is here once: the pool's labels (CloudSetLabels),
// its identity and its label choices all come from gfdLabelSets.
//
// GFD first labels every GPU as a whole (nvidia.com/gpu.product, .count,
// .replicas, .sharing-strategy); a GPU in MIG mode is labelled "without
// sharing", so with replicas 0. Then, under a MIG strategy other than none,
// its MIG labeller writes over those labels:
//   - single: nvidia.com/gpu.product becomes <product>-MIG-<profile>,
//     nvidia.com/gpu.count the node's MIG devices, nvidia.com/gpu.replicas 1;
//   - mixed: nvidia.com/gpu.* keep the GPUs' values and each profile gets
//     nvidia.com/mig-<profile>.* labels instead.
//
// GFD also records the strategy in nvidia.com/mig.strategy.

// GFD's MIG-mode replicas: the whole-GPU labeller runs without sharing on
// a GPU in MIG mode.
const gfdReplicasMIGMode = "0"

// gfdStrategy is one way GFD may label the pool's nodes: the MIG strategy
// it runs with, and whether the pool knows it (recorded is false when the
// strategy is a guess, and nvidia.com/mig.strategy is then left out).
type gfdStrategy struct {
	name     string
	recorded bool
}

// gfdStrategies are the MIG strategies GFD may label the pool's nodes
// under. A device-plugin pool states its own (mig_strategy, which its
// device plugin config entry carries; under the GPU Operator the
// cluster-wide mig.strategy overrides a config file's, docs/design/nvidia.md,
// so the two must agree), and whole GPUs are labelled the same under every
// strategy. A DRA pool has no device plugin config: GFD runs with the GPU
// Operator's cluster-wide mig.strategy (ClusterPolicy spec.mig.strategy,
// passed to GFD as MIG_STRATEGY), which the pool cannot see. Its nodes are
// labelled as under "single", the operator's default, or as under "mixed"
// (and "none", which labels nvidia.com/gpu.* alike): single is first, so
// a flavor that must name one value names single's (and says so).
func gfdStrategies(pi PoolIntent) []gfdStrategy {
	switch {
	case !pi.HasMIG():
		return []gfdStrategy{{}}
	case pi.DRA:
		return []gfdStrategy{{name: spec.MIGStrategySingle}, {name: spec.MIGStrategyMixed}}
	}
	return []gfdStrategy{{name: pi.MIGStrategy, recorded: true}}
}

// gfdLabelSets are the GFD label sets a node of the pool may carry: one
// per MIG strategy (gfdStrategies) and product name of the model, in that
// order; nil for a model without GFD product names.
func gfdLabelSets(pi PoolIntent) []map[string]string {
	if pi.Accel == nil {
		return nil
	}
	var out []map[string]string
	for _, s := range gfdStrategies(pi) {
		for _, product := range pi.Accel.GFDProducts {
			out = append(out, gfdLabels(pi, product, s))
		}
	}
	return out
}

// gfdLabels is what GFD writes on a node of the pool whose GPUs report
// product, under strategy s.
func gfdLabels(pi PoolIntent, product string, s gfdStrategy) map[string]string {
	// A shared MIG pool (mixed, time-sliced) keeps its sharing here, where
	// its placement selects it (selectSharingStrategy), although GFD writes
	// it to nvidia.com/mig-<profile>.sharing-strategy: such a pool runs no
	// gpu_workload (checkSharedPartitions).
	out := map[string]string{LabelGFDProduct: product, LabelSharingStrategy: sharingStrategyValue(pi.Sharing)}
	count := pi.GPUs
	switch {
	case !pi.HasMIG() && pi.Sharing == "":
		out[LabelGPUReplicas] = "1"
	case !pi.HasMIG():
		if pi.Replicas > 0 {
			out[LabelGPUReplicas] = strconv.FormatInt(pi.Replicas, 10)
		}
	case s.name == spec.MIGStrategySingle:
		// One profile per node under single (a pool of several is refused).
		out[LabelGFDProduct] = product + "-MIG-" + pi.Cut[0].Profile.Name
		out[LabelGPUReplicas] = "1"
		count = MulSat(pi.GPUs, pi.Cut[0].PerGPU)
	default:
		out[LabelGPUReplicas] = gfdReplicasMIGMode
	}
	if count > 0 {
		out[labelGFDCount] = strconv.FormatInt(count, 10)
	}
	if s.recorded && s.name != "" {
		out[labelMIGStrategy] = s.name
	}
	return out
}

// gfdPoolLabels is the first label set (the value a pool's labels show),
// nil for a model without GFD product names.
func gfdPoolLabels(pi PoolIntent) map[string]string {
	if sets := gfdLabelSets(pi); len(sets) > 0 {
		return sets[0]
	}
	return nil
}

// gfdLabelChoices are the GFD labels among keys whose value differs
// between the pool's label sets, with every value in order.
func gfdLabelChoices(pi PoolIntent, keys map[string]string) map[string][]string {
	sets := gfdLabelSets(pi)
	var out map[string][]string
	for k := range keys {
		var values []string
		for _, set := range sets {
			if v, ok := set[k]; ok && !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
		if len(values) > 1 {
			if out == nil {
				out = map[string][]string{}
			}
			out[k] = values
		}
	}
	return out
}
