package clouds

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Registry is the registry of clouds: each name with the profile that
// holds every rule of that cloud, in documentation order (Names). The
// order also decides which profile recognises a live node first
// (classifyNode): clouds whose own node-pool label is most specific come
// before Karpenter and generic GPU Operator labels. Adding a cloud is one
// entry here and one file named after it (gke.go, aks.go, eks.go,
// karpenter.go, generic.go) implementing Profile; aws.go holds what EKS
// and Karpenter share.
var Registry = []struct {
	name    spec.Cloud
	Profile Profile
}{
	{spec.CloudGKE, gkeProfile{autopilot: false}},
	{spec.CloudGKEAutopilot, gkeProfile{autopilot: true}},
	{spec.CloudAKS, aksProfile{}},
	{spec.CloudEKS, eksProfile{}},
	{spec.CloudEKSAuto, awsKarpenterProfile{auto: true}},
	{spec.CloudKarpenter, awsKarpenterProfile{auto: false}},
	{spec.CloudGeneric, genericProfile{}},
}

// Names lists the accepted cloud values.
func Names() []string {
	names := make([]string, len(Registry))
	for i, c := range Registry {
		names[i] = string(c.name)
	}
	return names
}

// Parse accepts exactly one of Names (lower case, no trimming: the
// value is echoed into state, so normalising it would cause diffs).
func Parse(s string) (spec.Cloud, error) {
	for _, c := range Registry {
		if string(c.name) == s {
			return c.name, nil
		}
	}
	if s == "" {
		return "", fmt.Errorf("cloud must be set; allowed values: %s", gpudiag.QuoteList(Names()))
	}
	hint := ""
	if meant := Suggest(s, Names()); meant != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", meant)
	}
	return "", fmt.Errorf("%q is not a supported cloud%s; allowed values: %s", s, hint, gpudiag.QuoteList(Names()))
}

// offered lists the catalog models a profile offers, in catalog order.
func offered(profile Profile) []*catalog.Accelerator {
	var models []*catalog.Accelerator
	for i := range catalog.Table {
		if profile.Offers(&catalog.Table[i]) {
			models = append(models, &catalog.Table[i])
		}
	}
	return models
}

// offeredNames is offered's catalog ids.
func offeredNames(profile Profile) []string {
	var names []string
	for _, a := range offered(profile) {
		names = append(names, a.Name)
	}
	return names
}

// Profile is everything one cloud decides. Each implementation lives
// in its own <name>.go file, so a reader finds all of a cloud's rules
// (workloads, machines, pools, live nodes, its GPU stack) in one place.
// Profiles embed baseProfile (rules.go), whose methods are the neutral
// answer, and override what their cloud does differently.
//
// Consumers name the role they use: workload placement (WorkloadRules),
// machine shapes (MachineRules), node pools (PoolRules), reading live
// nodes back (NodeRules, capacity's only view: NodeReaders), the cloud's
// own GPU stack (StackRules, for the chart values); with the cloud's name,
// the roles of a looked-up Cloud (roles.go).
type Profile interface {
	WorkloadRules
	MachineRules
	PoolRules
	NodeRules
	StackRules
}

// WorkloadRules place one workload's GPU request.
type WorkloadRules interface {
	// Offers reports whether nodes with this accelerator exist on the cloud.
	Offers(a *catalog.Accelerator) bool
	// Validate reports combinations this cloud cannot run. It only sees
	// values that are known (lenient) unless strict is set (apply time).
	Validate(in GPUIntent, strict bool) gpudiag.Diagnostics
	// Resource is the extended resource the pod requests for the intent.
	Resource(in GPUIntent) corev1.ResourceName
	// Place returns what a pod needs to land on, and be admitted to, a node
	// matching the intent. in has passed validate. Every call returns new
	// maps and slices (NewPlacement), so the caller owns them; only
	// LabelRequirement values are shared, read-only.
	Place(in GPUIntent) Placement
	// CheckEnv warns about a container variable that undoes the cloud's
	// own driver setup.
	CheckEnv(name, value string, path []any, diags *gpudiag.Diagnostics)
}

// NodeReaders are every cloud's NodeRules in Registry order, which is the
// order that decides which cloud recognises a live node first. The slice
// is shared (capacity asks once per node of thousands): read it only.
func NodeReaders() []NodeRules { return nodeReaders }

var nodeReaders = func() []NodeRules {
	readers := make([]NodeRules, len(Registry))
	for i, e := range Registry {
		readers[i] = e.Profile
	}
	return readers
}()

// unknownCloud offers nothing and places nothing.
type unknownCloud struct{ baseProfile }

func (unknownCloud) Offers(*catalog.Accelerator) bool             { return false }
func (unknownCloud) Validate(GPUIntent, bool) gpudiag.Diagnostics { return nil }
func (unknownCloud) Resource(GPUIntent) corev1.ResourceName       { return ResourceNvidiaGPU }
func (unknownCloud) Place(in GPUIntent) Placement                 { return NewPlacement(ResourceNvidiaGPU) }

// GPUIntent is the GPU request after parsing the Workload: catalog entries
// instead of names. Fields are zero when unset or unknown.
type GPUIntent struct {
	// Accelerators in preference order; empty means "any NVIDIA GPU".
	Accelerators []*catalog.Accelerator
	// Count is whole GPUs, MIG instances, or shared slots; 0 when unknown.
	Count int64
	// Partition is set for MIG; migStrategy is then "single" or "mixed".
	Partition   *catalog.MIGProfile
	MIGStrategy string
	// Sharing is "time-slicing" or "mps"; maxSharedClients 0 when unset.
	Sharing          string
	MaxSharedClients int64
	DRA              bool
	Spot             bool
}

// WholeGPUs reports whether the pod asks for entire physical GPUs (as opposed
// to MIG instances or shared slots), which is what node GPU-count labels mean.
func (in GPUIntent) WholeGPUs() bool {
	return in.Partition == nil && in.Sharing == ""
}

// LabelRequirement is "node label key has one of values", or with notIn
// "node label key is absent or has none of values". Values is read-only:
// it may be the catalog's own list or one shared by every placement
// (catalogExclusionValues), and expression() copies it into the objects.
type LabelRequirement struct {
	Key    string
	Values []string
	notIn  bool
}

// Placement is a cloud's answer for one intent. scheduling.go turns it into
// nodeSelector, node affinity and tolerations.
type Placement struct {
	// NodeSelector holds labels every acceptable node carries, whichever
	// accelerator it has (spot, partition size, sharing strategy, ...).
	NodeSelector map[string]string
	// AcceleratorTerms has one entry per acceptable accelerator, in
	// preference order; the requirements of one entry are ANDed. Empty means
	// any GPU node.
	AcceleratorTerms [][]LabelRequirement
	Tolerations      []corev1.Toleration
	// Env is added to the container unless the user sets the same name.
	Env map[string]string
	// ResourceName is the extended resource to request.
	ResourceName corev1.ResourceName
	// HostIPC is required by GKE's MPS daemon.
	HostIPC bool
	// AbsentLabels are node labels an acceptable node must NOT carry, e.g.
	// GKE's partition label for a whole-GPU pod: the partitioned pool has the
	// same accelerator label and taint, and would hand the pod a MIG slice.
	AbsentLabels []string
	// excludedValues are NotIn requirements every acceptable node must
	// meet, whichever accelerator it has, e.g. no sharing strategy for a
	// whole-GPU pod (wholeGPUNodeExclusions). NotIn also matches nodes
	// without the label, so nodes GFD has not labelled still fit.
	excludedValues []LabelRequirement
}

func NewPlacement(resource corev1.ResourceName) Placement {
	return Placement{NodeSelector: map[string]string{}, Env: map[string]string{}, ResourceName: resource}
}

// offeredByMessage explains which accelerators a cloud offers, for Details.
func offeredByMessage(name spec.Cloud, profile Profile) string {
	return fmt.Sprintf("Accelerators offered on %q: %s.", name, gpudiag.QuoteList(offeredNames(profile)))
}

// warnSharedClientsWithoutLabel: outside GKE and generic (GFD) clusters no
// node label says how many clients share a GPU, so max_shared_clients cannot
// select anything. The pod still requests nvidia.com/gpu.shared, which only
// exists where the device plugin shares GPUs.
func warnSharedClientsWithoutLabel(c spec.Cloud, in GPUIntent) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	if in.Sharing != "" && in.MaxSharedClients > 0 {
		diags.AddWarning(gpudiag.At("gpu", "max_shared_clients"), "max_shared_clients has no effect on "+string(c),
			"No node label on "+string(c)+" records the device plugin's replica count, so max_shared_clients = "+
				strconv.FormatInt(in.MaxSharedClients, 10)+" is ignored; the pod requests "+string(ResourceNvidiaGPUShared)+
				". It selects nodes on: \"gke\", \"gke-autopilot\", \"generic\".")
	}
	return diags
}

// MaxMPSClients is the most clients CUDA MPS serves per GPU (Volta and
// later), and GKE's limit for max_shared_clients_per_gpu with either sharing
// strategy.
const MaxMPSClients = gkeMaxSharedClients

// PoolNames lists the clouds a node pool policy can target: every
// cloud except GKE Autopilot, which has no user-managed node pools (it
// creates nodes per pod from the pod's own GPU request).
func PoolNames() []string {
	var names []string
	for _, c := range Registry {
		if summary, _ := c.Profile.PoolsUnsupported(); summary == "" {
			names = append(names, string(c.name))
		}
	}
	return names
}
