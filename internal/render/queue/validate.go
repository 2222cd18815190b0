package queue

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/validate"
)

// MaxFlavors is Kueue's limit of flavors in one resource group; every pool
// of a queue is one flavor of its single group.
const MaxFlavors = 64

// Validate checks a queue as configured. With strict false (plan time),
// zero values may be unknown and rules needing them are skipped; with
// strict true everything is final and required values must be set.
func Validate(q spec.Queue, strict bool) gpudiag.Diagnostics {
	_, diags := resolve(q, strict)
	return diags
}

// resolve validates q and resolves every flavor whose pool is known. The
// flavors are meaningful only without error diagnostics.
func resolve(q spec.Queue, strict bool) ([]flavor, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	checkName(&diags, strict, q.Name, gpudiag.At("name"))
	if q.LocalQueueName != "" {
		checkName(&diags, strict, q.LocalQueueName, gpudiag.At("local_queue_name"))
	}
	if q.Cohort != "" {
		checkName(&diags, strict, q.Cohort, gpudiag.At("cohort"))
	}
	checkNamespaces(q.Namespaces, &diags)
	warnDefaultLocalQueue(q, &diags)
	checkOneOf(&diags, q.QueueingStrategy, gpudiag.At("queueing_strategy"), spec.QueueingStrategyNames)
	checkPreemption(q.Preemption, &diags)
	cloud := ""
	if q.Cloud != "" {
		cloud = string(validate.Cloud(q.Cloud, strict, &diags))
	}
	if strict && len(q.Flavors) == 0 {
		diags.AddError(gpudiag.At("flavor"), "Missing flavor", "A queue needs at least one flavor block. "+
			"Allowed: flavor { node_pool = gpu_node_pool_policy.<name>.id, gpus = <quota> }.")
	}
	if len(q.Flavors) > MaxFlavors {
		diags.AddError(gpudiag.At("flavor"), "Too many flavors", strconv.Itoa(len(q.Flavors))+" flavor blocks; Kueue "+
			"accepts at most "+strconv.Itoa(MaxFlavors)+" flavors in a resource group. Allowed: 1 to "+strconv.Itoa(MaxFlavors)+".")
	}
	var out []flavor
	seen := map[string]int{}
	for i, fs := range q.Flavors {
		if f, ok := resolveFlavorBlock(i, fs, q, &cloud, seen, strict, &diags); ok {
			out = append(out, f)
		}
	}
	// Flavor labels depend on every pool of the queue: judged once all are
	// known (always so when strict).
	if len(out) == len(q.Flavors) {
		assignFlavorLabels(out, &diags)
	}
	return out, diags
}

func describeLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ", ")
}

func resolveFlavorBlock(i int, fs spec.QueueFlavor, q spec.Queue, cloud *string, seen map[string]int, strict bool, diags *gpudiag.Diagnostics) (flavor, bool) {
	path := func(attr string) []any { return gpudiag.At("flavor", i, attr) }
	checkLimits(fs, q.Cohort, path, diags)
	if fs.Pool.Name == "" {
		validate.RequireSet(diags, strict, "", path("node_pool"), "the ref of a gpu_node_pool_policy")
		return flavor{}, false
	}
	p := fs.Pool
	if j, dup := seen[p.Name]; dup {
		diags.AddError(path("node_pool"), "Pool listed twice", "node pool "+strconv.Quote(p.Name)+" is already flavor["+
			strconv.Itoa(j)+"]; a pool is one flavor of a queue. Allowed: one flavor block per pool.")
		return flavor{}, false
	}
	seen[p.Name] = i
	switch {
	case *cloud == "":
		*cloud = p.Cloud
	case p.Cloud != *cloud:
		diags.AddError(path("node_pool"), "Pool of another cloud", "node pool "+strconv.Quote(p.Name)+" is on "+
			strconv.Quote(p.Cloud)+" but this queue is on "+strconv.Quote(*cloud)+" (set by cloud or by the first flavor). "+
			"A cluster is on one cloud, so no node of that pool can ever be in it. Allowed: pools on "+strconv.Quote(*cloud)+".")
		return flavor{}, false
	}
	f, ok := resolveFlavor(i, fs, diags)
	if !ok {
		return f, false
	}
	return f, checkQuota(&f, strict, diags)
}

// checkQuota checks the GPU quota's unit and size and fills f.quota and the
// CPU and memory that go with it.
func checkQuota(f *flavor, strict bool, diags *gpudiag.Diagnostics) bool {
	unit, value, set := configuredQuota(f.spec)
	switch {
	case set > 1:
		diags.AddError(f.path(string(unit)), "Several quotas for one pool", f.ref()+" sets more than one of "+
			gpudiag.QuoteList(Units())+". Allowed: only "+string(f.unit)+", the unit of this pool.")
		return false
	case set == 1 && unit != f.unit:
		diags.AddError(f.path(string(unit)), "Quota in the wrong unit", wrongUnitDetail(*f, unit, value))
		return false
	case set == 0 && f.spec.Nodes > 0:
		value = f.spec.Nodes * f.perNode
	case set == 0:
		if strict {
			diags.AddError(f.path(string(f.unit)), "Missing quota", f.ref()+" has no GPU quota. Allowed: "+
				string(f.unit)+" = 1 or more, or nodes = the pool's size to give this queue the whole pool.")
		}
		return !strict
	}
	if value < 0 {
		diags.AddError(f.path(string(f.unit)), "Negative quota", "The quota is "+strconv.FormatInt(value, 10)+". Allowed: 0 or more.")
		return false
	}
	if limit := f.spec.Nodes * f.perNode; f.spec.Nodes > 0 && value > limit {
		diags.AddError(f.path(string(f.unit)), "Quota above the pool's size", f.ref()+" has "+strconv.FormatInt(f.spec.Nodes, 10)+
			" nodes of "+strconv.FormatInt(f.perNode, 10)+" "+f.resourceName()+" each, "+strconv.FormatInt(limit, 10)+
			" in all, so a quota of "+strconv.FormatInt(value, 10)+" admits work no node can run. Allowed: 0 to "+strconv.FormatInt(limit, 10)+".")
		return false
	}
	if l := f.spec.LendingLimit; l != nil && *l > value {
		diags.AddError(f.path("lending_limit"), "Lending more than the quota", "lending_limit is "+strconv.FormatInt(*l, 10)+
			" but the quota is "+strconv.FormatInt(value, 10)+". Allowed: 0 to "+strconv.FormatInt(value, 10)+".")
	}
	f.quota = value
	unitCPU, unitMemory := f.pool.UnitRequests[corev1.ResourceCPU], f.pool.UnitRequests[corev1.ResourceMemory]
	before := len(*diags)
	f.cpu = hostQuota(f.spec.CPU, unitCPU, value, f.path("cpu"), diags)
	f.memory = hostQuota(f.spec.Memory, unitMemory, value, f.path("memory"), diags)
	s := f.spec
	f.cpuBorrowing = hostLimit(s.CPUBorrowingLimit, s.BorrowingLimit, f.cpu, value, unitCPU, f.path("cpu_borrowing_limit"), diags)
	f.memoryBorrowing = hostLimit(s.MemoryBorrowingLimit, s.BorrowingLimit, f.memory, value, unitMemory, f.path("memory_borrowing_limit"), diags)
	f.cpuLending = hostLimit(s.CPULendingLimit, s.LendingLimit, f.cpu, value, unitCPU, f.path("cpu_lending_limit"), diags)
	f.memoryLending = hostLimit(s.MemoryLendingLimit, s.LendingLimit, f.memory, value, unitMemory, f.path("memory_lending_limit"), diags)
	for _, l := range []struct {
		attr  string
		limit *resource.Quantity
		quota resource.Quantity
	}{{"cpu_lending_limit", f.cpuLending, f.cpu}, {"memory_lending_limit", f.memoryLending, f.memory}} {
		if l.limit != nil && l.limit.Cmp(l.quota) > 0 {
			diags.AddError(f.path(l.attr), "Lending more than the quota", l.attr+" is "+l.limit.String()+" but the quota is "+
				l.quota.String()+". Allowed: at most the quota.")
		}
	}
	return len(*diags) == before
}

func wrongUnitDetail(f flavor, unit Unit, value int64) string {
	detail := f.ref() + " advertises " + f.resourceName() + ", counted in " + string(f.unit) + ", but the quota is given as " +
		string(unit) + " = " + strconv.FormatInt(value, 10) + "."
	if unit == UnitGPUs && f.perGPU > 0 {
		detail += " Each GPU of this pool is " + strconv.FormatInt(f.perGPU, 10) + " " + string(f.unit) +
			", so " + strconv.FormatInt(value, 10) + " GPUs are " + string(f.unit) + " = " + strconv.FormatInt(value*f.perGPU, 10) + "."
	}
	return detail + " Allowed: " + string(f.unit) + "."
}

func checkLimits(fs spec.QueueFlavor, cohort string, path func(string) []any, diags *gpudiag.Diagnostics) {
	for _, l := range []struct {
		attr  string
		value *int64
		set   bool
	}{
		{"borrowing_limit", fs.BorrowingLimit, fs.BorrowingLimit != nil}, {"lending_limit", fs.LendingLimit, fs.LendingLimit != nil},
		{"cpu_borrowing_limit", nil, fs.CPUBorrowingLimit != ""}, {"memory_borrowing_limit", nil, fs.MemoryBorrowingLimit != ""},
		{"cpu_lending_limit", nil, fs.CPULendingLimit != ""}, {"memory_lending_limit", nil, fs.MemoryLendingLimit != ""},
	} {
		if !l.set {
			continue
		}
		if l.value != nil && *l.value < 0 {
			diags.AddError(path(l.attr), "Negative limit", l.attr+" is "+strconv.FormatInt(*l.value, 10)+". Allowed: 0 or more.")
		}
		if cohort == "" {
			diags.AddError(path(l.attr), l.attr+" without a cohort", "Queues lend and borrow only within a cohort, and "+
				"Kueue rejects "+l.attr+" on a ClusterQueue without one. Allowed: set cohort, or remove "+l.attr+".")
		}
	}
	if fs.Nodes < 0 {
		diags.AddError(path("nodes"), "Negative node count", "nodes is "+strconv.FormatInt(fs.Nodes, 10)+". Allowed: 1 or more.")
	}
}

// warnDefaultLocalQueue: Kueue (v0.13 and later) sends every Job,
// Deployment, StatefulSet and pod without a queue label to a LocalQueue
// named "default" of its namespace (docs/design/queues.md), so naming the
// team queues so quietly puts all of the namespace's work under the quota.
func warnDefaultLocalQueue(q spec.Queue, diags *gpudiag.Diagnostics) {
	if LocalQueueName(q) != "default" || len(q.Namespaces) == 0 {
		return
	}
	path := gpudiag.At("name")
	if q.LocalQueueName != "" {
		path = gpudiag.At("local_queue_name")
	}
	diags.AddWarning(path, "LocalQueues named \"default\" take every unlabelled workload",
		"Kueue sends every Job, Deployment, StatefulSet and pod without a kueue.x-k8s.io/queue-name label in "+
			gpudiag.QuoteList(q.Namespaces)+" to the LocalQueue named \"default\", so all of those namespaces' work, "+
			"GPU or not, waits for this queue's quota. If that is not meant, choose another local_queue_name.")
}

func checkName(diags *gpudiag.Diagnostics, strict bool, value string, path []any) {
	if value == "" {
		validate.RequireSet(diags, strict, value, path, "a DNS-1123 label (lowercase letters, digits and '-')")
		return
	}
	if errs := names.DNS1123Label(value); len(errs) > 0 {
		diags.AddError(path, "Invalid name", strconv.Quote(value)+": "+errs[0]+
			". Allowed: a DNS-1123 label (lowercase letters, digits and '-', at most 63), usable as Kueue's queue-name label value.")
	}
}

func checkNamespaces(namespaces []string, diags *gpudiag.Diagnostics) {
	seen := map[string]bool{}
	for i, ns := range namespaces {
		if ns == "" {
			continue // unknown at plan time
		}
		if errs := names.DNS1123Label(ns); len(errs) > 0 {
			diags.AddError(gpudiag.At("namespaces", i), "Invalid namespace", strconv.Quote(ns)+": "+errs[0]+
				". Allowed: a namespace name (DNS-1123 label).")
		}
		if seen[ns] {
			diags.AddError(gpudiag.At("namespaces", i), "Namespace listed twice", strconv.Quote(ns)+" is already listed. "+
				"Allowed: each team namespace once.")
		}
		seen[ns] = true
	}
}

func checkOneOf(diags *gpudiag.Diagnostics, value string, path []any, allowed func() []string) {
	if value != "" && !slices.Contains(allowed(), value) {
		diags.AddError(path, "Unknown value", strconv.Quote(value)+" is not accepted. Allowed: "+gpudiag.QuoteList(allowed())+".")
	}
}

func checkPreemption(p spec.QueuePreemption, diags *gpudiag.Diagnostics) {
	checkOneOf(diags, p.WithinClusterQueue, gpudiag.At("preemption", "within_cluster_queue"), spec.WithinClusterQueuePolicyNames)
	checkOneOf(diags, p.ReclaimWithinCohort, gpudiag.At("preemption", "reclaim_within_cohort"), spec.ReclaimWithinCohortPolicyNames)
	checkOneOf(diags, p.BorrowWithinCohort, gpudiag.At("preemption", "borrow_within_cohort"), spec.BorrowWithinCohortPolicyNames)
	if (p.ReclaimWithinCohort == "" || p.ReclaimWithinCohort == "Never") && p.BorrowWithinCohort != "" && p.BorrowWithinCohort != "Never" {
		diags.AddError(gpudiag.At("preemption", "borrow_within_cohort"), "Borrowing preemption without reclaiming",
			"borrow_within_cohort is "+strconv.Quote(p.BorrowWithinCohort)+" but reclaim_within_cohort is Never (or unset), "+
				"which Kueue rejects. Allowed: reclaim_within_cohort = \"LowerPriority\" or \"Any\", or borrow_within_cohort = \"Never\".")
	}
}
