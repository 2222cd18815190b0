package queue

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// LabelQueue names the gpu_queue an object belongs to. Every object also
// carries spec.LabelManagedBy, as gpu_workload's objects do.
const LabelQueue = "gpu.gpuform.io/queue"

// Rendered is everything a gpu_queue applies, in apply order: the pools'
// Topologies, the flavors, then the ClusterQueue, then the LocalQueues.
type Rendered struct {
	// Topologies are the Kueue Topologies of the pools that have one,
	// named like their flavor and shared the same way.
	Topologies      []*kueue.Topology
	ResourceFlavors []*kueue.ResourceFlavor
	ClusterQueue    *kueue.ClusterQueue
	LocalQueues     []*kueue.LocalQueue
	// Ref is what a gpu_workload needs to know of the queue; ID encodes it.
	Ref Ref
	ID  string
	// Manifest is every object as YAML documents, for GitOps.
	Manifest string
	// DeviceClassMappings are the entries Kueue's Configuration must hold
	// (resources.deviceClassMappings, with the DynamicResourceAllocation
	// gate on) for it to count the DRA flavors' devices; none without DRA
	// pools. A ClusterQueue cannot set them.
	DeviceClassMappings []dra.DeviceClassMapping
}

// Objects are the rendered objects in apply order.
func (r *Rendered) Objects() []workload.Object {
	out := make([]workload.Object, 0, len(r.Topologies)+len(r.ResourceFlavors)+1+len(r.LocalQueues))
	for _, t := range r.Topologies {
		out = append(out, t)
	}
	for _, f := range r.ResourceFlavors {
		out = append(out, f)
	}
	out = append(out, r.ClusterQueue)
	for _, lq := range r.LocalQueues {
		out = append(out, lq)
	}
	return out
}

// Render validates q with every value final and builds the Kueue objects.
// On error diagnostics it returns nil.
func Render(q spec.Queue) (*Rendered, gpudiag.Diagnostics) {
	flavors, diags := resolve(q, true)
	if diags.HasError() {
		return nil, diags
	}
	r := &Rendered{ClusterQueue: clusterQueue(q, flavors)}
	for _, f := range flavors {
		if t := topology(q, f); t != nil {
			r.Topologies = append(r.Topologies, t)
		}
		r.ResourceFlavors = append(r.ResourceFlavors, resourceFlavor(q, f))
		if f.draResource != "" {
			r.DeviceClassMappings = append(r.DeviceClassMappings,
				dra.DeviceClassMapping{Name: f.draResource, DeviceClassNames: []string{f.pool.DeviceClassName}})
		}
	}
	for _, ns := range q.Namespaces {
		r.LocalQueues = append(r.LocalQueues, localQueue(q, ns))
	}
	r.Ref = refOf(q, flavors)
	r.ID = ID(r.Ref)
	manifest, err := workload.ManifestOf(r.Objects())
	if err != nil {
		diags.AddError(nil, "Cannot encode the queue manifest", err.Error())
		return nil, diags
	}
	r.Manifest = manifest
	return r, diags
}

// LocalQueueName is the name of the queue's LocalQueues, which workloads put
// in their queue-name label.
func LocalQueueName(q spec.Queue) string { return cmp.Or(q.LocalQueueName, q.Name) }

func meta(q spec.Queue, name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{
		spec.LabelManagedBy: spec.ManagedBy,
		LabelQueue:          q.Name,
	}}
}

// resourceFlavor is the pool as Kueue sees it: the node labels a pod must
// select to land there (the same selector a gpu_workload on the pool
// gets), the pool's taints, and the tolerations Kueue adds at admission so
// that a queued pod written by hand lands there too.
func resourceFlavor(q spec.Queue, f flavor) *kueue.ResourceFlavor {
	rf := &kueue.ResourceFlavor{
		TypeMeta:   metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "ResourceFlavor"},
		ObjectMeta: meta(q, f.name(), ""),
	}
	// The flavor is shared by every queue using the pool; the queue label
	// would flip between them, so it names none.
	delete(rf.Labels, LabelQueue)
	rf.Labels[LabelPool] = f.spec.Pool.Name
	rf.Spec.NodeLabels = f.labels
	rf.Spec.NodeTaints = slices.Clone(f.pool.NodeTaints)
	rf.Spec.Tolerations = slices.Clone(f.pool.Tolerations)
	if len(f.pool.TopologyLevels) > 0 {
		name := kueue.TopologyReference(f.name())
		rf.Spec.TopologyName = &name
	}
	return rf
}

// topology is the pool's Kueue Topology, nil when the pool has none. It is
// named like the flavor (the pool), shared by every queue of the pool like
// the flavor, and deleted with it: Kueue reads the domains from the nodes
// the flavor selects, level by level.
func topology(q spec.Queue, f flavor) *kueue.Topology {
	if len(f.pool.TopologyLevels) == 0 {
		return nil
	}
	t := &kueue.Topology{
		TypeMeta:   metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "Topology"},
		ObjectMeta: meta(q, f.name(), ""),
	}
	delete(t.Labels, LabelQueue)
	t.Labels[LabelPool] = f.spec.Pool.Name
	for _, l := range f.pool.TopologyLevels {
		t.Spec.Levels = append(t.Spec.Levels, kueue.TopologyLevel{NodeLabel: l.NodeLabel})
	}
	return t
}

// AnnotationSpec records, on the ClusterQueue, the gpu_queue configuration
// it was rendered from (pool ids included): import reads it back, since the
// pools cannot be recovered from the flavors' labels.
const AnnotationSpec = "gpu.gpuform.io/queue-spec"

// encodeSpec is the annotation's content: spec.Queue as indented JSON, so
// that the manifest's YAML holds it as a block of short lines a plan shows
// one by one, rather than one line of hundreds of characters.
func encodeSpec(q spec.Queue) string {
	b, err := json.MarshalIndent(q, "", "  ")
	if err != nil {
		return "{}" // unreachable: strings, ints and slices always marshal
	}
	return string(b)
}

// DecodeSpec reads the annotation back. Annotations written before 0.1.0
// name each flavor's pool by its legacy id, which is read into the pool
// here.
func DecodeSpec(raw string) (spec.Queue, error) {
	var q spec.Queue
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return spec.Queue{}, fmt.Errorf("the %s annotation is not a gpu_queue configuration: %w", AnnotationSpec, err)
	}
	for i, f := range q.Flavors {
		if f.NodePool == "" {
			continue
		}
		p, err := pool.DecodeID(f.NodePool)
		if err != nil {
			return spec.Queue{}, fmt.Errorf("the %s annotation's flavor[%d]: %w", AnnotationSpec, i, err)
		}
		q.Flavors[i].Pool, q.Flavors[i].NodePool = p, ""
	}
	return q, nil
}

// LabelPool names the node pool a ResourceFlavor stands for.
const LabelPool = "gpu.gpuform.io/node-pool"

func clusterQueue(q spec.Queue, flavors []flavor) *kueue.ClusterQueue {
	cq := &kueue.ClusterQueue{
		TypeMeta:   metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "ClusterQueue"},
		ObjectMeta: meta(q, q.Name, ""),
	}
	cq.Annotations = map[string]string{AnnotationSpec: encodeSpec(q)}
	cq.Spec.NamespaceSelector = namespaceSelector(q.Namespaces)
	cq.Spec.CohortName = kueue.CohortReference(q.Cohort)
	cq.Spec.QueueingStrategy = kueue.QueueingStrategy(cmp.Or(q.QueueingStrategy, spec.QueueingBestEffortFIFO))
	cq.Spec.Preemption = preemption(q.Preemption)
	cq.Spec.ResourceGroups = []kueue.ResourceGroup{resourceGroup(flavors)}
	return cq
}

// namespaceSelector admits from the team namespaces only; without any,
// from every namespace (a LocalQueue is still needed to submit).
func namespaceSelector(namespaces []string) *metav1.LabelSelector {
	if len(namespaces) == 0 {
		return &metav1.LabelSelector{}
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: slices.Sorted(slices.Values(namespaces)),
	}}}
}

func preemption(p spec.QueuePreemption) *kueue.ClusterQueuePreemption {
	if p == (spec.QueuePreemption{}) {
		return nil
	}
	out := &kueue.ClusterQueuePreemption{
		WithinClusterQueue:  kueue.PreemptionPolicy(cmp.Or(p.WithinClusterQueue, "Never")),
		ReclaimWithinCohort: kueue.PreemptionPolicy(cmp.Or(p.ReclaimWithinCohort, "Never")),
	}
	if p.BorrowWithinCohort != "" {
		out.BorrowWithinCohort = &kueue.BorrowWithinCohort{Policy: kueue.BorrowWithinCohortPolicy(p.BorrowWithinCohort)}
	}
	return out
}

// resourceGroup puts every pool in one group. Each flavor lists every
// covered resource (Kueue requires it): its own GPU resource with its
// quota, other pools' GPU resources with 0, and the CPU and memory of its
// machines. One group keeps CPU and memory per pool, which separate groups
// (a resource belongs to one group only) could not.
func resourceGroup(flavors []flavor) kueue.ResourceGroup {
	var gpuResources []corev1.ResourceName
	for _, f := range flavors {
		if name := corev1.ResourceName(f.resourceName()); !slices.Contains(gpuResources, name) {
			gpuResources = append(gpuResources, name)
		}
	}
	network := networkResources(flavors) // network.go
	group := kueue.ResourceGroup{CoveredResources: append(append(slices.Clone(gpuResources), corev1.ResourceCPU, corev1.ResourceMemory),
		network...)}
	for _, f := range flavors {
		fq := kueue.FlavorQuotas{Name: kueue.ResourceFlavorReference(f.name())}
		for _, name := range gpuResources {
			rq := kueue.ResourceQuota{Name: name, NominalQuota: *resource.NewQuantity(0, resource.DecimalSI)}
			if string(name) == f.resourceName() {
				rq.NominalQuota = *resource.NewQuantity(f.quota, resource.DecimalSI)
				rq.BorrowingLimit = quantityOrNil(f.spec.BorrowingLimit)
				rq.LendingLimit = quantityOrNil(f.spec.LendingLimit)
			}
			fq.Resources = append(fq.Resources, rq)
		}
		fq.Resources = append(fq.Resources,
			kueue.ResourceQuota{Name: corev1.ResourceCPU, NominalQuota: f.cpu, BorrowingLimit: f.cpuBorrowing, LendingLimit: f.cpuLending},
			kueue.ResourceQuota{Name: corev1.ResourceMemory, NominalQuota: f.memory, BorrowingLimit: f.memoryBorrowing,
				LendingLimit: f.memoryLending})
		for _, q := range networkQuotas(f, network) {
			fq.Resources = append(fq.Resources, kueue.ResourceQuota{Name: q.name, NominalQuota: q.quota})
		}
		group.Flavors = append(group.Flavors, fq)
	}
	return group
}

func quantityOrNil(v *int64) *resource.Quantity {
	if v == nil {
		return nil
	}
	return resource.NewQuantity(*v, resource.DecimalSI)
}

func localQueue(q spec.Queue, namespace string) *kueue.LocalQueue {
	lq := &kueue.LocalQueue{
		TypeMeta:   metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "LocalQueue"},
		ObjectMeta: meta(q, LocalQueueName(q), namespace),
	}
	lq.Spec.ClusterQueue = kueue.ClusterQueueReference(q.Name)
	return lq
}
