package queue

import (
	"cmp"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Unit is what a pool's GPU quota counts: whole GPUs, MIG instances or
// shared slots. Each is its own attribute, so a quota cannot be given in
// the wrong one by accident (8 "GPUs" of a pool cut into 2g.10gb instances
// would admit 8 instances, not 8 GPUs).
type Unit string

const (
	UnitGPUs         Unit = "gpus"
	UnitMIGInstances Unit = "mig_instances"
	UnitSharedSlots  Unit = "shared_slots"
)

// Units lists the quota attributes of a flavor block.
func Units() []string {
	return []string{string(UnitGPUs), string(UnitMIGInstances), string(UnitSharedSlots)}
}

// maxFlavorEntries is Kueue's limit on a ResourceFlavor's nodeLabels,
// nodeTaints and tolerations, each.
const maxFlavorEntries = 8

// flavor is one flavor block resolved against its pool.
type flavor struct {
	index  int
	spec   spec.QueueFlavor
	pool   *spec.PoolRendered
	unit   Unit
	perGPU int64 // units one GPU of the pool offers (MIG instances or sharing replicas), 1 for whole GPUs
	// quota is the GPU quota in unit; 0 when unknown.
	quota int64
	// perNode is what one node offers in unit.
	perNode int64
	// draResource is the Kueue resource a DRA pool's quota is in
	// (dra.KueueResourceName); "" for device-plugin pools.
	draResource string
	cpu         resource.Quantity
	memory      resource.Quantity
	// CPU and memory borrowing and lending limits; nil is no limit.
	cpuBorrowing, memoryBorrowing, cpuLending, memoryLending *resource.Quantity
	// labels are the ResourceFlavor's nodeLabels (flavor_labels.go); set
	// once every flavor of the queue is resolved.
	labels map[string]string
}

// name is the ResourceFlavor's name: the pool's. Every queue using a pool
// uses the same flavor, which is what lets queues of one cohort lend and
// borrow that pool's GPUs.
func (f flavor) name() string { return f.spec.Pool.Name }

// resourceName is the extended resource the pool's nodes advertise.
// resourceName is what the ClusterQueue gives the pool's quota in: the
// extended resource its nodes advertise, or for a DRA pool the resource
// Kueue counts the pool's DeviceClass as.
func (f flavor) resourceName() string { return cmp.Or(f.draResource, f.pool.ResourceName) }

func (f flavor) path(attr ...any) []any {
	return append([]any{"flavor", f.index}, attr...)
}

// ref names the flavor in findings: flavor[0] (node pool "a100", a100-40gb on gke).
func (f flavor) ref() string {
	return "flavor[" + strconv.Itoa(f.index) + "] (node pool " + strconv.Quote(f.spec.Pool.Name) + ", " +
		f.spec.Pool.Accelerator + " on " + f.spec.Pool.Cloud + ")"
}

// unitOf is the quota unit a pool's nodes advertise.
func unitOf(p spec.PoolPolicy) Unit {
	switch {
	case p.Partition != "":
		return UnitMIGInstances
	case p.Sharing != "":
		return UnitSharedSlots
	default:
		return UnitGPUs
	}
}

// configuredQuota is the quota the flavor block sets, and in which unit.
func configuredQuota(f spec.QueueFlavor) (Unit, int64, int) {
	var unit Unit
	var value int64
	set := 0
	for _, q := range []struct {
		unit  Unit
		value int64
	}{{UnitGPUs, f.GPUs}, {UnitMIGInstances, f.MIGInstances}, {UnitSharedSlots, f.SharedSlots}} {
		if q.value != 0 {
			unit, value = q.unit, q.value
			set++
		}
	}
	return unit, value, set
}

// hostQuota is the CPU or memory quota that goes with quota units: the
// configured quantity, else units x what a default-sized workload asks for
// one unit of the pool (pool.Render's UnitRequests).
func hostQuota(configured string, perUnit resource.Quantity, units int64, path []any, diags *gpudiag.Diagnostics) resource.Quantity {
	if configured != "" {
		return parseHostQuantity(configured, path, diags)
	}
	return times(perUnit, units)
}

// parseHostQuantity reads a configured CPU or memory quantity.
func parseHostQuantity(configured string, path []any, diags *gpudiag.Diagnostics) resource.Quantity {
	q, err := resource.ParseQuantity(configured)
	if err != nil || q.Sign() < 0 {
		diags.AddError(path, "Invalid quantity", strconv.Quote(configured)+" is not a non-negative Kubernetes quantity. "+
			"Allowed: e.g. \"96\", \"750m\" for CPU, \"768Gi\" for memory.")
		return resource.Quantity{}
	}
	return q
}

// hostLimit is a CPU or memory borrowing or lending limit: the configured
// quantity, else the GPU limit's share of the quota's CPU or memory (so a
// queue that may borrow 4 GPUs may borrow the CPU and memory of 4 GPUs),
// else nil: no limit, as for the GPUs.
func hostLimit(configured string, gpuLimit *int64, quota resource.Quantity, gpuQuota int64, perUnit resource.Quantity,
	path []any, diags *gpudiag.Diagnostics) *resource.Quantity {
	switch {
	case configured != "":
		q := parseHostQuantity(configured, path, diags)
		return &q
	case gpuLimit == nil:
		return nil
	case gpuQuota > 0:
		q := shareOf(quota, *gpuLimit, gpuQuota)
		return &q
	}
	q := times(perUnit, *gpuLimit)
	return &q
}

// times is q x n.
func times(q resource.Quantity, n int64) resource.Quantity {
	out := q.DeepCopy()
	out.Mul(n)
	return out
}

// shareOf is quota x n / of, in the quota's own format.
func shareOf(quota resource.Quantity, n, of int64) resource.Quantity {
	if n == 0 {
		return *resource.NewQuantity(0, quota.Format)
	}
	if quota.Format == resource.BinarySI {
		return *resource.NewQuantity(quota.Value()*n/of, resource.BinarySI)
	}
	return *resource.NewMilliQuantity(quota.MilliValue()*n/of, quota.Format)
}

// resolveFlavor decodes and renders the pool of one flavor block and works
// out its quota. ok is false when the pool itself is unusable (reported).
func resolveFlavor(i int, f spec.QueueFlavor, diags *gpudiag.Diagnostics) (flavor, bool) {
	out := flavor{index: i, spec: f}
	rendered, pdiags := pool.Render(f.Pool)
	if pdiags.HasError() {
		diags.AddError(out.path("node_pool"), "Invalid node pool", "The node pool policy "+strconv.Quote(f.Pool.Name)+
			" does not validate: "+pool.DiagSummaries(pdiags.Errors())+". Allowed: the ref of a gpu_node_pool_policy that plans without errors.")
		return out, false
	}
	out.pool = rendered
	if rendered.IdentityProblem != "" {
		diags.AddError(out.path("node_pool"), "The flavor would select no node", out.ref()+": "+rendered.IdentityProblem+
			", and the queue's flavor selects the pool's nodes by it. Allowed: name the gpu_node_pool_policy like the cloud's node pool.")
		return out, false
	}
	out.unit = unitOf(f.Pool)
	if f.Pool.UsesDRA() {
		checkDRAPoolTopology(out, rendered.TopologyLevels, diags)
		// One profile per DRA pool (pool validation), counted per device.
		out.draResource = dra.KueueResourceName(rendered.DeviceClassName)
		out.perNode, out.perGPU = rendered.DevicesPerNode, 1
		if f.Pool.GPUsPerNode > 0 {
			out.perGPU = rendered.DevicesPerNode / f.Pool.GPUsPerNode
		}
		return out, true
	}
	if len(rendered.ResourceNames) != 1 {
		diags.AddError(out.path("node_pool"), "A pool of several GPU resources",
			out.ref()+" offers "+gpudiag.QuoteList(rendered.ResourceNames)+" (partition "+strconv.Quote(f.Pool.Partition)+
				"), and a queue gives one quota per pool. Allowed: a pool whose GPUs are cut into one profile "+
				"(for example partition = \"3g.20gb\"), one pool per profile.")
		return out, false
	}
	for _, l := range []struct {
		what string
		n    int
	}{{"taints", len(rendered.NodeTaints)}, {"tolerations", len(rendered.Tolerations)}} {
		if l.n > maxFlavorEntries {
			diags.AddError(out.path("node_pool"), "Too many "+l.what+" for a ResourceFlavor", out.ref()+" places pods with "+
				strconv.Itoa(l.n)+" "+l.what+", and Kueue accepts at most "+strconv.Itoa(maxFlavorEntries)+" in a ResourceFlavor. "+
				"Allowed: a pool with fewer extra labels or taints.")
			return out, false
		}
	}
	out.perNode = rendered.ResourcesPerNode[rendered.ResourceName]
	if f.Pool.GPUsPerNode > 0 {
		out.perGPU = out.perNode / f.Pool.GPUsPerNode
	}
	return out, true
}
