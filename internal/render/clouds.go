package render

import (
	"fmt"
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
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

// cloudOrder is the registry of clouds: each name with the profile that
// holds every rule of that cloud, in documentation order (CloudNames). The
// order also decides which profile recognises a live node first
// (classifyNode): clouds whose own node-pool label is most specific come
// before Karpenter and generic GPU Operator labels. Adding a cloud is one
// entry here and one cloud_<name>.go file implementing cloudProfile.
var cloudOrder = []struct {
	name    Cloud
	profile cloudProfile
}{
	{CloudGKE, gkeProfile{autopilot: false}},
	{CloudGKEAutopilot, gkeProfile{autopilot: true}},
	{CloudAKS, aksProfile{}},
	{CloudEKS, eksProfile{}},
	{CloudEKSAuto, awsKarpenterProfile{auto: true}},
	{CloudKarpenter, awsKarpenterProfile{auto: false}},
	{CloudGeneric, genericProfile{}},
}

// CloudNames lists the accepted cloud values.
func CloudNames() []string {
	names := make([]string, len(cloudOrder))
	for i, c := range cloudOrder {
		names[i] = string(c.name)
	}
	return names
}

// ParseCloud accepts exactly one of CloudNames (lower case, no trimming: the
// value is echoed into state, so normalising it would cause diffs).
func ParseCloud(s string) (Cloud, error) {
	for _, c := range cloudOrder {
		if string(c.name) == s {
			return c.name, nil
		}
	}
	if s == "" {
		return "", fmt.Errorf("cloud must be set; allowed values: %s", gpudiag.QuoteList(CloudNames()))
	}
	return "", fmt.Errorf("%q is not a supported cloud; allowed values: %s", s, gpudiag.QuoteList(CloudNames()))
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

// cloudProfile is everything one cloud decides. Each implementation lives
// in its own cloud_<name>.go file, so a reader finds all of a cloud's rules
// (workloads, machines, pools, live nodes, chart values) in one place.
// Profiles embed baseProfile (pool_rules.go), whose methods are the neutral
// answer, and override what their cloud does differently.
type cloudProfile interface {
	workloadRules
	machineRules
	poolRules
	nodeRules
	stackRules
}

// workloadRules place one workload's GPU request.
type workloadRules interface {
	// offers reports whether nodes with this accelerator exist on the cloud.
	offers(a *Accelerator) bool
	// validate reports combinations this cloud cannot run. It only sees
	// values that are known (lenient) unless strict is set (apply time).
	validate(in gpuIntent, strict bool) gpudiag.Diagnostics
	// resource is the extended resource the pod requests for the intent.
	resource(in gpuIntent) corev1.ResourceName
	// place returns what a pod needs to land on, and be admitted to, a node
	// matching the intent. in has passed validate.
	place(in gpuIntent) placement
	// checkEnv warns about a container variable that undoes the cloud's
	// own driver setup.
	checkEnv(name, value string, path []any, diags *gpudiag.Diagnostics)
}

// profileFor is the registered profile of c, nil for an unknown cloud
// (workload code reports that itself).
func profileFor(c Cloud) cloudProfile {
	for _, e := range cloudOrder {
		if e.name == c {
			return e.profile
		}
	}
	return nil
}

// rulesFor is profileFor, with the neutral baseProfile answers for an
// unknown or unset cloud (lenient validation runs before the cloud is known).
func rulesFor(c Cloud) cloudProfile {
	if p := profileFor(c); p != nil {
		return p
	}
	return unknownCloud{}
}

// unknownCloud offers nothing and places nothing.
type unknownCloud struct{ baseProfile }

func (unknownCloud) offers(*Accelerator) bool                     { return false }
func (unknownCloud) validate(gpuIntent, bool) gpudiag.Diagnostics { return nil }
func (unknownCloud) resource(gpuIntent) corev1.ResourceName       { return ResourceNvidiaGPU }
func (unknownCloud) place(in gpuIntent) placement                 { return newPlacement(ResourceNvidiaGPU) }

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

// labelRequirement is "node label key has one of values", or with notIn
// "node label key is absent or has none of values".
type labelRequirement struct {
	key    string
	values []string
	notIn  bool
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
	// excludedValues are NotIn requirements every acceptable node must
	// meet, whichever accelerator it has, e.g. no sharing strategy for a
	// whole-GPU pod (wholeGPUNodeExclusions). NotIn also matches nodes
	// without the label, so nodes GFD has not labelled still fit.
	excludedValues []labelRequirement
}

func newPlacement(resource corev1.ResourceName) placement {
	return placement{nodeSelector: map[string]string{}, env: map[string]string{}, resourceName: resource}
}

// offeredByMessage explains which accelerators a cloud offers, for Details.
func offeredByMessage(c Cloud) string {
	return fmt.Sprintf("Accelerators offered on %q: %s.", c, gpudiag.QuoteList(CloudAccelerators(c)))
}

// warnSharedClientsWithoutLabel: outside GKE and generic (GFD) clusters no
// node label says how many clients share a GPU, so max_shared_clients cannot
// select anything. The pod still requests nvidia.com/gpu.shared, which only
// exists where the device plugin shares GPUs.
func warnSharedClientsWithoutLabel(c Cloud, in gpuIntent) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	if in.sharing != "" && in.maxSharedClients > 0 {
		diags.AddWarning(gpudiag.At("gpu", "max_shared_clients"), "max_shared_clients has no effect on "+string(c),
			"No node label on "+string(c)+" records the device plugin's replica count, so max_shared_clients = "+
				strconv.FormatInt(in.maxSharedClients, 10)+" is ignored; the pod requests "+string(ResourceNvidiaGPUShared)+
				". It selects nodes on: \"gke\", \"gke-autopilot\", \"generic\".")
	}
	return diags
}
