package queue

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Demand is what Kueue admits at once for a workload: the pods of one
// Kueue Workload and what each requests. A Job is one Workload of
// parallelism pods; a StatefulSet one Workload of all its replicas; a
// Deployment's pods are admitted one by one.
type Demand struct {
	Namespace   string
	Cloud       string
	Accelerator string
	Partition   string
	// Resource is the extended resource requested, or for a DRA claim on
	// a pool's class the resource Kueue counts it as; "" otherwise.
	Resource string
	PerPod   int64
	Pods     int64
	CPU      resource.Quantity // per pod
	Memory   resource.Quantity // per pod
	// Placement is the pod template's nodeSelector and required node
	// affinity, which Kueue matches against the flavors' node labels.
	Placement podPlacement
}

// DemandOf reads the demand off a rendered workload, so the check sees the
// requests the pods will really make (sizing presets, patches included).
func DemandOf(w spec.Workload, r *workload.Rendered) Demand {
	return PodSetDemand(PodSet{Namespace: r.Objects[len(r.Objects)-1].GetNamespace(), Cloud: w.Cloud, GPU: w.GPU,
		Pods: podsAdmittedTogether(r), Template: r.PodTemplate(), Rendered: r})
}

// PodSet is one pod set of a Kueue Workload as rendered: a workload's
// pods, or one group of a Ray cluster (head, a worker group), each
// admitted with the others of its object but matched to a flavor alone.
type PodSet struct {
	Namespace string
	Cloud     string
	GPU       spec.GPU
	// Pods is the pod set's count.
	Pods     int64
	Template *corev1.PodTemplateSpec
	// Rendered is the render the template came from: its GPU resource and
	// DRA claim template.
	Rendered *workload.Rendered
}

// PodSetDemand is the demand of one pod set.
func PodSetDemand(p PodSet) Demand {
	r := p.Rendered
	d := Demand{Namespace: p.Namespace, Cloud: p.Cloud, Accelerator: p.GPU.Accelerator,
		Partition: p.GPU.Partition, Resource: r.ResourceName, Pods: p.Pods}
	template := p.Template
	if template == nil {
		return d
	}
	d.Placement = podPlacement{NodeSelector: template.Spec.NodeSelector, Affinity: template.Spec.Affinity}
	if resource, devices := draDemand(r); resource != "" {
		d.Resource, d.PerPod = resource, devices
	}
	for _, c := range template.Spec.Containers {
		if q, ok := c.Resources.Limits[corev1.ResourceName(r.ResourceName)]; ok && r.ResourceName != "" {
			d.PerPod += q.Value()
		}
		d.CPU.Add(request(c, corev1.ResourceCPU))
		d.Memory.Add(request(c, corev1.ResourceMemory))
	}
	return d
}

// draDemand is what Kueue counts of a DRA workload's claim: its devices,
// as the resource its class is mapped to. Only a claim naming a pool's
// class counts (Kueue refuses selectors, firstAvailable and constraints),
// so any other claim gives "" (nothing to match).
func draDemand(r *workload.Rendered) (string, int64) {
	t := r.ResourceClaimTemplateV1
	if t == nil || len(t.Spec.Spec.Devices.Requests) != 1 || t.Spec.Spec.Devices.Requests[0].Exactly == nil {
		return "", 0
	}
	req := t.Spec.Spec.Devices.Requests[0].Exactly
	if !strings.HasSuffix(req.DeviceClassName, dra.PoolDeviceClassName("")) || len(req.Selectors) > 0 {
		return "", 0
	}
	return dra.KueueResourceName(req.DeviceClassName), req.Count
}

func request(c corev1.Container, name corev1.ResourceName) resource.Quantity {
	if q, ok := c.Resources.Requests[name]; ok {
		return q
	}
	return c.Resources.Limits[name] // a limit alone is also the request
}

// podsAdmittedTogether is how many pods Kueue admits as one Workload of
// the rendered object, as its kind says: one where it admits pod by pod.
func podsAdmittedTogether(r *workload.Rendered) int64 {
	if k := r.Kind.Kueue; !k.PodByPod && k.AdmittedTogether != nil {
		return k.AdmittedTogether(r.Workload())
	}
	return 1
}

// CheckWorkload reports, at plan time, a workload the queue can never
// admit: a namespace without the queue's LocalQueue, GPUs no flavor
// covers, or more than a flavor's quota plus what it may borrow. Kueue
// would keep such a workload pending forever.
func CheckWorkload(ref Ref, d Demand) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	if d.Namespace != "" && len(ref.Namespaces) > 0 && !slices.Contains(ref.Namespaces, d.Namespace) {
		diags.AddError(gpudiag.At("queue"), "No LocalQueue in this namespace", "gpu_queue "+strconv.Quote(ref.Name)+
			" has LocalQueues in "+gpudiag.QuoteList(ref.Namespaces)+", not in "+strconv.Quote(d.Namespace)+
			". Allowed: a workload in one of those namespaces, or add "+strconv.Quote(d.Namespace)+" to the queue's namespaces.")
		return diags
	}
	if d.Resource == "" || d.PerPod == 0 {
		return diags // unknown at plan time, or no GPU resource (DRA): nothing to match
	}
	covering := coveringFlavors(ref, d)
	if len(covering) == 0 {
		diags.AddError(gpudiag.At("queue"), "No flavor of the queue covers these GPUs", "The workload asks for "+
			strconv.FormatInt(d.PerPod, 10)+" "+d.Resource+" of "+describeGPU(d)+", but gpu_queue "+strconv.Quote(ref.Name)+
			" has "+describeFlavors(ref.Flavors)+". Kueue would keep it pending forever. Allowed: a node_pool or accelerator "+
			"of one of those flavors, or add the pool to the queue.")
		return diags
	}
	admitting := kueueAdmitting(ref, d, covering)
	if len(admitting) == 0 {
		diags.AddError(gpudiag.At("queue"), "Kueue would admit it to no flavor", "Flavors "+describeFlavors(covering)+
			" of gpu_queue "+strconv.Quote(ref.Name)+" offer "+d.Resource+", but Kueue matches a workload to a flavor on the "+
			"flavors' node labels ("+describeLabelKeys(ref)+"), and this workload's node selection matches none of theirs. "+
			"Kueue would keep it pending forever (\"flavor ... doesn't match node affinity\"). Allowed: node_pool = the pool of "+
			"one of those flavors, or an accelerator, partition and sharing that pool offers.")
		return diags
	}
	runnable := slices.DeleteFunc(slices.Clone(admitting), func(f FlavorRef) bool {
		return f.PoolNodeLabels != nil && !runsOnAny(d.Placement, f.nodeVariants())
	})
	if len(runnable) == 0 {
		diags.AddError(gpudiag.At("queue"), "Kueue would admit it only where it cannot run", "Kueue's flavor matching "+
			"lets this workload into "+describeFlavors(admitting)+" of gpu_queue "+strconv.Quote(ref.Name)+", but its node "+
			"selection matches no node of "+pluralPool(len(admitting))+": it would hold that quota and stay Pending. Allowed: "+
			"node_pool = the pool of a flavor that offers what it asks for, or add such a pool to the queue.")
		return diags
	}
	if len(runnable) < len(admitting) {
		diags.AddWarning(gpudiag.At("queue"), "Kueue may admit it where it cannot run", "Kueue's flavor matching also lets "+
			"this workload into "+describeFlavors(slices.DeleteFunc(slices.Clone(admitting), func(f FlavorRef) bool {
			return slices.ContainsFunc(runnable, func(r FlavorRef) bool { return r.Name == f.Name })
		}))+" of gpu_queue "+strconv.Quote(ref.Name)+", whose nodes it cannot run on; when the other flavors are full it "+
			"could hold that quota and stay Pending. Setting node_pool to the pool of a flavor that serves it avoids this.")
	}
	checkFits(ref, d, runnable, &diags)
	return diags
}

func pluralPool(n int) string {
	if n == 1 {
		return "that flavor's pool"
	}
	return "those flavors' pools"
}

// kueueAdmitting are the covering flavors Kueue's flavor matching lets the
// workload take. Ids of older providers carry no node labels: then every
// covering flavor is kept.
func kueueAdmitting(ref Ref, d Demand, covering []FlavorRef) []FlavorRef {
	labels := make([]map[string]string, len(ref.Flavors))
	for i, f := range ref.Flavors {
		if f.NodeLabels == nil {
			return covering
		}
		labels[i] = f.NodeLabels
	}
	keys := labelKeys(labels...)
	var out []FlavorRef
	for _, f := range covering {
		if kueueSelects(d.Placement, keys, f.NodeLabels) {
			out = append(out, f)
		}
	}
	return out
}

func describeLabelKeys(ref Ref) string {
	var keys []string
	for _, f := range ref.Flavors {
		keys = append(keys, slices.Collect(maps.Keys(f.NodeLabels))...)
	}
	slices.Sort(keys)
	return strings.Join(slices.Compact(keys), ", ")
}

func coveringFlavors(ref Ref, d Demand) []FlavorRef {
	var out []FlavorRef
	for _, f := range ref.Flavors {
		if f.Resource == d.Resource && f.Cloud == d.Cloud && (d.Accelerator == "" || f.Accelerator == d.Accelerator) &&
			(d.Partition == "" || f.Partition == "" || f.Partition == d.Partition) {
			out = append(out, f)
		}
	}
	return out
}

// checkFits: some covering flavor must hold the whole demand, GPUs, CPU and
// memory, within quota plus borrowing limit. A flavor of a cohort without
// a borrowing limit may borrow without bound, so it always fits.
func checkFits(ref Ref, d Demand, covering []FlavorRef, diags *gpudiag.Diagnostics) {
	gpus := d.PerPod * max(d.Pods, 1)
	cpu, memory := scaled(d.CPU, d.Pods), scaled(d.Memory, d.Pods)
	var reasons []string
	for _, f := range covering {
		reason := whyNotFits(ref, f, gpus, cpu, memory)
		if reason == "" {
			return
		}
		reasons = append(reasons, reason)
	}
	diags.AddError(gpudiag.At("queue"), "More than the queue's quota", "The workload needs "+strconv.FormatInt(gpus, 10)+
		" "+d.Resource+", "+cpu.String()+" CPU and "+memory.String()+" memory at once ("+strconv.FormatInt(max(d.Pods, 1), 10)+
		" pods admitted together), but in gpu_queue "+strconv.Quote(ref.Name)+" "+strings.Join(reasons, "; ")+
		". Kueue would keep it pending forever. Allowed: a smaller request, or raise the flavor's quota, or a cohort to borrow from.")
}

func whyNotFits(ref Ref, f FlavorRef, gpus int64, cpu, memory resource.Quantity) string {
	flavor := "flavor " + strconv.Quote(f.Name)
	if ref.Cohort == "" || f.BorrowingLimit != nil {
		limit := f.Quota
		if f.BorrowingLimit != nil {
			limit += *f.BorrowingLimit
		}
		if gpus > limit {
			return flavor + " admits at most " + strconv.FormatInt(limit, 10) + " " + f.Resource + limitSuffix(f)
		}
	}
	for _, h := range []struct {
		name, quota, borrowing string
		need                   resource.Quantity
	}{{"cpu", f.CPU, f.CPUBorrowingLimit, cpu}, {"memory", f.Memory, f.MemoryBorrowingLimit, memory}} {
		q, err := resource.ParseQuantity(h.quota)
		if err != nil || ref.Cohort != "" && h.borrowing == "" {
			continue // unknown, or borrows without bound
		}
		what := "quota of " + q.String()
		if b, err := resource.ParseQuantity(h.borrowing); err == nil && ref.Cohort != "" {
			q.Add(b)
			what = "quota plus borrowing limit of " + q.String()
		}
		if h.need.Cmp(q) > 0 {
			return flavor + " has a " + h.name + " " + what + " (set the flavor's " + h.name + " to raise it)"
		}
	}
	return ""
}

func limitSuffix(f FlavorRef) string {
	if f.BorrowingLimit != nil {
		return " (quota " + strconv.FormatInt(f.Quota, 10) + " + borrowing_limit " + strconv.FormatInt(*f.BorrowingLimit, 10) + ")"
	}
	return " (its quota)"
}

func scaled(q resource.Quantity, n int64) resource.Quantity {
	out := q.DeepCopy()
	out.Mul(max(n, 1))
	return out
}

func describeGPU(d Demand) string {
	s := d.Accelerator
	if d.Partition != "" {
		s += " " + d.Partition
	}
	return s + " on " + d.Cloud
}

func describeFlavors(flavors []FlavorRef) string {
	parts := make([]string, len(flavors))
	for i, f := range flavors {
		parts[i] = strconv.Quote(f.Name) + " (" + f.Accelerator
		if f.Partition != "" {
			parts[i] += " " + f.Partition
		}
		parts[i] += " on " + f.Cloud + ", " + strconv.FormatInt(f.Quota, 10) + " " + f.Resource + ")"
	}
	return "flavors " + strings.Join(parts, ", ")
}
