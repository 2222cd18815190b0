package pool

import (
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// devicePluginConfig is the NVIDIA device plugin config file for the pool
// (k8s-device-plugin api/config/v1: version, flags.migStrategy,
// sharing.timeSlicing / sharing.mps). It becomes one entry of the GPU
// Operator's devicePlugin.config ConfigMap, selected per node with
// nvidia.com/device-plugin.config, so every pool can carry its own MIG
// strategy and sharing whatever the cluster default is.
//
// It is written by hand rather than marshalled: the key order then matches
// NVIDIA's documentation (version first), and every value is a known
// resource name, strategy or integer, so no quoting is ever needed.
//
// Sharing uses renameByDefault: true, so shared slots are advertised as
// <resource>.shared and can never be mistaken for whole GPUs or whole MIG
// instances (the workload renderer requests nvidia.com/gpu.shared). Time
// slicing also sets failRequestsGreaterThanOne: a pod asking for two slots
// could get two slices of the same GPU, which is no faster than one; GKE
// rejects such requests too. (For MPS the plugin forces it on.)
func devicePluginConfig(pi clouds.PoolIntent) string {
	var b strings.Builder
	b.WriteString("version: v1\n")
	b.WriteString("flags:\n")
	b.WriteString("  migStrategy: " + devicePluginMIGStrategy(pi) + "\n")
	if pi.Sharing == "" {
		return b.String()
	}
	b.WriteString("sharing:\n")
	if pi.Sharing == spec.SharingMPS {
		b.WriteString("  mps:\n")
	} else {
		b.WriteString("  timeSlicing:\n")
	}
	b.WriteString("    renameByDefault: true\n")
	if pi.Sharing == spec.SharingTimeSlicing {
		b.WriteString("    failRequestsGreaterThanOne: true\n")
	}
	b.WriteString("    resources:\n")
	for _, name := range sharedResources(pi) {
		b.WriteString("    - name: " + name + "\n")
		b.WriteString("      replicas: " + strconv.FormatInt(pi.Replicas, 10) + "\n")
	}
	return b.String()
}

// devicePluginMIGStrategy: the plugin's default is "none" (MIG devices
// ignored), so MIG pools name their strategy.
func devicePluginMIGStrategy(pi clouds.PoolIntent) string {
	if !pi.HasMIG() {
		return "none"
	}
	return pi.MIGStrategy
}

// sharedResources are the resource names to replicate, before renaming:
// nvidia.com/gpu, or under mixed MIG each profile's nvidia.com/mig-<profile>
// (the only MIG resources the plugin time-slices).
func sharedResources(pi clouds.PoolIntent) []string {
	if !pi.HasMIG() {
		return []string{string(clouds.ResourceNvidiaGPU)}
	}
	names := make([]string, len(pi.Cut))
	for i, s := range pi.Cut {
		names[i] = s.Profile.MixedResourceName()
	}
	return names
}
