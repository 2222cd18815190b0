package flyte

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// Flyte's GPU resource name and node label keys are attributes so a team
// whose nodes are labelled its own way can say so; a base values file
// setting them instead is refused as an override of keys the provider owns
// (MergeBaseValues), so the attributes are the one way to change them.

// override replaces the cloud's defaults with what the user set. The
// unpartitioned requirement follows the partition label.
func (c *flyteClass) override(in Values) {
	if in.GPUResourceName != "" {
		c.resourceName = in.GPUResourceName
	}
	if in.DeviceNodeLabel != "" {
		c.deviceLabel = in.DeviceNodeLabel
	}
	if in.PartitionSizeNodeLabel != "" {
		c.partitionLabel = in.PartitionSizeNodeLabel
		if c.unpartitioned == nil {
			c.unpartitioned = &corev1.NodeSelectorRequirement{Operator: corev1.NodeSelectorOpDoesNotExist}
		}
		c.unpartitioned.Key = in.PartitionSizeNodeLabel
	}
}

// checkFlyteLabels: the resource name is an extended resource (a domain,
// then a name); the labels are label keys.
func checkFlyteLabels(in Values, diags *gpudiag.Diagnostics) {
	if name := in.GPUResourceName; name != "" {
		if msgs := validation.IsQualifiedName(name); len(msgs) > 0 || !chartkit.IsExtendedResource(name) {
			diags.AddError(gpudiag.At(Block, "gpu_resource_name"), "Invalid GPU resource name",
				strconv.Quote(name)+" is not an extended resource name. Allowed: a domain-prefixed name such as "+
					"\"nvidia.com/gpu\" or \"nvidia.com/gpu.shared\".")
		}
	}
	for attr, key := range map[string]string{"gpu_device_node_label": in.DeviceNodeLabel, "gpu_partition_size_node_label": in.PartitionSizeNodeLabel} {
		if key == "" {
			continue
		}
		if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
			diags.AddError(gpudiag.At(Block, attr), "Invalid node label key",
				strconv.Quote(key)+": "+strings.Join(msgs, "; ")+". Allowed: a label key such as \"cloud.google.com/gke-accelerator\".")
		}
	}
}

// ClassDefaults describes, per cloud, the resource name and node labels
// Flyte gets when the attributes are unset: the same flyteDeviceClass the
// values are made from.
func ClassDefaults() string {
	var parts []string
	for _, cloud := range clouds.All() {
		place, ok := chartkit.CloudGPUPlacement(cloud, clouds.GPUIntent{Count: 1})
		if !ok {
			continue
		}
		c := flyteDeviceClass(cloud, string(place.ResourceName), place)
		text := "`" + string(cloud.Name()) + "`: `" + c.resourceName + "`"
		if c.deviceLabel != "" {
			text += ", device `" + c.deviceLabel + "`"
		}
		if c.partitionLabel != "" {
			text += ", partition `" + c.partitionLabel + "`"
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "; ")
}
