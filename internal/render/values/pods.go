package values

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// PodFragments assembles, for a target, the pod specs its values will
// produce once the chart (or Numaflow, or flytepropeller) applies them:
// FiftyOne's delegated-operator Deployments and Job templates, a Flyte GPU
// task (plain, per configured device, unpartitioned, interruptible), the
// GPU Operator's operand and NFD worker DaemonSet pods, the device plugin
// DaemonSet pod, the Numaflow UDF pods. Only what the values carry is
// filled in (images the chart chooses are chartkit.PlaceholderImage), so the
// specs can be validated, or server-side dry-run, to prove the GPU settings
// are well-formed. It errors when the values do not have the target's
// shape.
func PodFragments(target string, values map[string]any) ([]corev1.PodSpec, error) {
	t, ok := lookup(target)
	if !ok {
		return nil, fmt.Errorf("unknown target %q; allowed values: %s", target, gpudiag.QuoteList(TargetNames()))
	}
	return t.Pods(values)
}
