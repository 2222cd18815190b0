package clouds

import (
	"maps"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// A pool's identity is what a Kueue ResourceFlavor selects its nodes by.
// Kueue writes a flavor's node labels into every pod it admits through that
// flavor (docs/design/queues.md), so those labels must hold on every node of
// the pool and on no node of another pool: anything sent to the flavor (a
// plain Job, a chart's pods) then lands on that pool and nowhere else.
//
// Each cloud says which label names a node's pool (PoolNameLabel, in its own
// file); a generic cluster has none, so there the pool is told apart by the
// GPU Feature Discovery labels it is defined by (genericProfile.poolIdentity).

// labelGFDCount is GFD's physical GPU count per node.
const labelGFDCount = "nvidia.com/gpu.count"

// labelMIGStrategy is GFD's record of the device plugin's MIG strategy.
const labelMIGStrategy = "nvidia.com/mig.strategy"

// PoolIdentity is the labels that tell the pool's nodes apart from the
// cloud's other pools, and the labels of cloudSet whose value is one of
// several (a model's SXM and PCIe product names, one of several VM sizes
// with that many GPUs, GFD's labels under the MIG strategies a DRA pool's
// nodes may be labelled with): for those the first is shown, and a node
// may carry another.
func PoolIdentity(pi PoolIntent, toAdd, cloudSet map[string]string) (identity map[string]string, choices map[string][]string) {
	choices = pi.Cloud.labelChoices(pi)
	for k, values := range gfdLabelChoices(pi, cloudSet) {
		if choices == nil {
			choices = map[string][]string{}
		}
		choices[k] = values
	}
	identity = pi.Cloud.poolIdentity(pi, toAdd, cloudSet)
	if len(pi.Labels) > 0 {
		// The pool's own labels tell it apart; a guessed GFD value would
		// only shut out nodes of the model's other variant or strategy.
		for k := range gfdLabelChoices(pi, identity) {
			delete(identity, k)
		}
	}
	return identity, choices
}

// poolNameIdentity is the identity on clouds whose nodes carry their pool's
// name: that one label, equal to the policy's name (the cloud's node pool,
// agent pool, node group or NodePool is named after the policy).
func poolNameIdentity(label, name string) map[string]string {
	if name == "" {
		return nil
	}
	return map[string]string{label: name}
}

// machineChoices is the instance-type label's choices when several machine
// shapes carry the pool's GPU count.
func machineChoices(names []string) map[string][]string {
	if len(names) < 2 {
		return nil
	}
	return map[string][]string{LabelInstanceType: names}
}

// gfdIdentity: on a GPU Operator cluster without a pool-name label, GPU
// Feature Discovery's labels are what a pool is defined by: the model, the
// GPUs per node, the sharing strategy and replicas, the MIG strategy, and
// the per-node selectors the pool sets (its MIG layout and device plugin
// config entry, named after the pool), plus the user's own labels.
// nvidia.com/mig.config is left out for whole GPUs: "all-disabled" is a
// value the pool asks for, not one a GPU Operator node is known to carry.
func gfdIdentity(pi PoolIntent, toAdd, cloudSet map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range []string{LabelGFDProduct, labelGFDCount, LabelSharingStrategy, LabelGPUReplicas, labelMIGStrategy} {
		if v, ok := cloudSet[k]; ok {
			out[k] = v
		}
	}
	if pi.HasMIG() && toAdd[spec.LabelMIGConfig] != "" {
		out[spec.LabelMIGConfig] = toAdd[spec.LabelMIGConfig]
	}
	if v := toAdd[spec.LabelDevicePluginConfig]; v != "" {
		out[spec.LabelDevicePluginConfig] = v
	}
	// A DRA pool's nodes have the model's GFD labels too (dra.md §8): the
	// device-plugin switch is what tells them apart.
	if v := toAdd[spec.LabelDeployDevicePlugin]; v != "" {
		out[spec.LabelDeployDevicePlugin] = v
	}
	maps.Copy(out, pi.Labels)
	return out
}
