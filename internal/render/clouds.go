package render

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// Cloud names the kind of cluster a workload runs on. Node labels, taints and
// GPU-sharing mechanics differ per cloud, so placement is a per-cloud profile.
type Cloud string

const (
	CloudGKE          Cloud = "gke"
	CloudGKEAutopilot Cloud = "gke-autopilot"
	CloudAKS          Cloud = "aks"
	// CloudEKS is EKS with managed (or self-managed) node groups.
	CloudEKS Cloud = "eks"
	// CloudEKSAuto is EKS Auto Mode (Karpenter-based, eks.amazonaws.com labels).
	CloudEKSAuto Cloud = "eks-auto"
	// CloudKarpenter is self-installed Karpenter on AWS (karpenter.k8s.aws labels).
	CloudKarpenter Cloud = "karpenter"
	// CloudGeneric is any cluster running the NVIDIA GPU Operator (GPU Feature
	// Discovery labels, nvidia.com/gpu taint), e.g. on-premises.
	CloudGeneric Cloud = "generic"
)

// cloudOrder is the documentation order of CloudNames.
var cloudOrder = []Cloud{CloudGKE, CloudGKEAutopilot, CloudAKS, CloudEKS, CloudEKSAuto, CloudKarpenter, CloudGeneric}

// CloudNames lists the accepted cloud values.
func CloudNames() []string {
	names := make([]string, len(cloudOrder))
	for i, c := range cloudOrder {
		names[i] = string(c)
	}
	return names
}

// ParseCloud accepts exactly one of CloudNames (lower case, no trimming: the
// value is echoed into state, so normalising it would cause diffs).
func ParseCloud(s string) (Cloud, error) {
	for _, c := range cloudOrder {
		if string(c) == s {
			return c, nil
		}
	}
	if s == "" {
		return "", fmt.Errorf("cloud must be set; allowed values: %s", quoteList(CloudNames()))
	}
	return "", fmt.Errorf("%q is not a supported cloud; allowed values: %s", s, quoteList(CloudNames()))
}

// CloudAccelerators lists the catalog ids a cloud offers, sorted. Unknown
// clouds offer nothing.
func CloudAccelerators(c Cloud) []string {
	profile := profileFor(c)
	if profile == nil {
		return nil
	}
	var names []string
	for i := range catalog {
		if profile.offers(&catalog[i]) {
			names = append(names, catalog[i].Name)
		}
	}
	return names
}

// cloudProfile holds every placement rule of one cloud. Each implementation
// lives in its own file so a reader finds all of a cloud's rules in one place.
type cloudProfile interface {
	// offers reports whether nodes with this accelerator exist on the cloud.
	offers(a *Accelerator) bool
	// validate reports combinations this cloud cannot run. It only sees
	// values that are known (lenient) unless strict is set (apply time).
	validate(in gpuIntent, strict bool) Diagnostics
	// resource is the extended resource the pod requests for the intent.
	resource(in gpuIntent) corev1.ResourceName
	// place returns what a pod needs to land on, and be admitted to, a node
	// matching the intent. in has passed validate.
	place(in gpuIntent) placement
}

func profileFor(c Cloud) cloudProfile {
	switch c {
	case CloudGKE:
		return gkeProfile{autopilot: false}
	case CloudGKEAutopilot:
		return gkeProfile{autopilot: true}
	case CloudAKS:
		return aksProfile{}
	case CloudEKS:
		return eksProfile{}
	case CloudEKSAuto:
		return awsKarpenterProfile{labelPrefix: "eks.amazonaws.com/"}
	case CloudKarpenter:
		return awsKarpenterProfile{labelPrefix: "karpenter.k8s.aws/"}
	case CloudGeneric:
		return genericProfile{}
	}
	return nil
}

// gpuIntent is the GPU request after parsing the Workload: catalog entries
// instead of names. Fields are zero when unset or unknown.
type gpuIntent struct {
	// accelerators in preference order; empty means "any NVIDIA GPU".
	accelerators []*Accelerator
	// count is whole GPUs, MIG instances, or shared slots; 0 when unknown.
	count int64
	// partition is set for MIG; migStrategy is then "single" or "mixed".
	partition   *MIGProfile
	migStrategy string
	// sharing is "time-slicing" or "mps"; maxSharedClients 0 when unset.
	sharing          string
	maxSharedClients int64
	dra              bool
	spot             bool
}

// wholeGPUs reports whether the pod asks for entire physical GPUs (as opposed
// to MIG instances or shared slots), which is what node GPU-count labels mean.
func (in gpuIntent) wholeGPUs() bool {
	return in.partition == nil && in.sharing == ""
}

// labelRequirement is "node label key has one of values".
type labelRequirement struct {
	key    string
	values []string
}

// placement is a cloud's answer for one intent. gpu.go turns it into
// nodeSelector, node affinity and tolerations.
type placement struct {
	// nodeSelector holds labels every acceptable node carries, whichever
	// accelerator it has (spot, partition size, sharing strategy, ...).
	nodeSelector map[string]string
	// acceleratorTerms has one entry per acceptable accelerator, in
	// preference order; the requirements of one entry are ANDed. Empty means
	// any GPU node.
	acceleratorTerms [][]labelRequirement
	tolerations      []corev1.Toleration
	// env is added to the container unless the user sets the same name.
	env map[string]string
	// resourceName is the extended resource to request.
	resourceName corev1.ResourceName
	// hostIPC is required by GKE's MPS daemon.
	hostIPC bool
	// absentLabels are node labels an acceptable node must NOT carry, e.g.
	// GKE's partition label for a whole-GPU pod: the partitioned pool has the
	// same accelerator label and taint, and would hand the pod a MIG slice.
	absentLabels []string
}

func newPlacement(resource corev1.ResourceName) placement {
	return placement{nodeSelector: map[string]string{}, env: map[string]string{}, resourceName: resource}
}

// offeredByMessage explains which accelerators a cloud offers, for Details.
func offeredByMessage(c Cloud) string {
	return fmt.Sprintf("Accelerators offered on %q: %s.", c, quoteList(CloudAccelerators(c)))
}
