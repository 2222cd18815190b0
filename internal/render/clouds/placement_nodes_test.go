package clouds_test

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// matrixPool is one node-pool shape of the placement matrix. Every node of
// a pool is identical, so the matrix builds one node per pool.
type matrixPool struct {
	name      string
	cloud     spec.Cloud
	accel     string
	gpus      int64
	partition string // a MIG profile, PartitionAllBalanced, or "" for whole GPUs
	strategy  string // MIG strategy; "" without MIG
	sharing   string
	replicas  int64
	spot      bool
	dedicated bool
	// dra: the pool hands out GPUs through NVIDIA's DRA driver; strategy is
	// then the MIG strategy GPU Feature Discovery labels its nodes under
	// (the GPU Operator's cluster-wide one, which the policy cannot say).
	dra bool
	// noGFD: a generic cluster running the NVIDIA device plugin without
	// GPU Feature Discovery or the GPU Operator (values other than the
	// provider's, which enable GFD), so no nvidia.com/gpu.* labels exist.
	noGFD bool
	// poolName is the cloud's name of the pool where the display name
	// cannot be one (AKS agent pools: lowercase letters and digits, at most
	// 12); "" uses the display name.
	poolName string
	// rendered is pool.Render's answer; nil on GKE Autopilot, which has no
	// node pools (Autopilot creates a node per pod from its GPU request).
	rendered *spec.PoolRendered
}

func (p matrixPool) facts() matrixAccel { return matrixAccels[p.accel] }

func (p matrixPool) policy() spec.PoolPolicy {
	name := p.poolName
	if name == "" {
		name = strings.ToLower(strings.NewReplacer(".", "-", "/", "-", " ", "-").Replace(p.name))
	}
	pp := spec.PoolPolicy{
		Name: name, Cloud: string(p.cloud),
		Accelerator: p.accel, GPUsPerNode: p.gpus, Partition: p.partition, MIGStrategy: p.strategy,
		Sharing: p.sharing, Replicas: p.replicas, Spot: p.spot, Dedicated: rendertest.Ptr(p.dedicated),
	}
	if p.partition != "" && p.strategy == spec.MIGStrategySingle {
		pp.MIGStrategy = "" // the default; exercise it
	}
	if p.dra {
		pp.GPUAllocation, pp.MIGStrategy = spec.GPUAllocationDRA, ""
	}
	return pp
}

// layout is what one GPU of the pool is cut into: profile -> instances.
func (p matrixPool) layout() map[string]int64 {
	switch p.partition {
	case "":
		return nil
	case spec.PartitionAllBalanced:
		return p.facts().balanced
	}
	return map[string]int64{p.partition: p.facts().mig[p.partition]}
}

// matrixPools lists every pool shape the matrix places workloads on for a
// cloud: whole GPUs of each model; for the first model also its largest
// machine, spot, not dedicated, time-slicing and MPS; for the first MIG
// model single-strategy partitions (two profiles, and spot), mixed (one
// profile and all-balanced) where the cloud runs the NVIDIA device plugin,
// and time-sliced whole GPUs.
func matrixPools(t *testing.T, c spec.Cloud) []matrixPool {
	t.Helper()
	if c == spec.CloudGKEAutopilot {
		return autopilotPools()
	}
	var pools []matrixPool
	add := func(p matrixPool) {
		p.cloud = c
		pools = append(pools, p)
	}
	migDone := false
	for i, name := range matrixCloudAccels[c] {
		f := matrixAccels[name]
		small, large := poolCounts(f, c)
		whole := matrixPool{accel: name, gpus: small, dedicated: true}
		add(named(whole))
		if i == 0 {
			add(named(withGPUs(whole, large)))
			add(named(withSpot(whole)))
			open := whole
			open.dedicated = false
			add(named(open))
			if c != spec.CloudEKSAuto { // Auto Mode cannot share GPUs (RenderPool refuses)
				add(named(withSharing(whole, spec.SharingTimeSlicing)))
				add(named(withSharing(whole, spec.SharingMPS)))
			}
		}
		if f.mig == nil || migDone || c == spec.CloudEKSAuto { // Auto Mode cannot partition
			continue
		}
		migDone = true
		profiles := migProfilesFor(f, c)
		add(named(withMIG(whole, profiles[0], spec.MIGStrategySingle)))
		add(named(withMIG(whole, profiles[len(profiles)-1], spec.MIGStrategySingle)))
		add(named(withSpot(withMIG(whole, profiles[0], spec.MIGStrategySingle))))
		if c != spec.CloudGKE { // GKE partitions natively: one size per pool, no mixed strategy
			add(named(withMIG(whole, profiles[0], spec.MIGStrategyMixed)))
			add(named(withMIG(whole, spec.PartitionAllBalanced, spec.MIGStrategyMixed)))
		}
		add(named(withSharing(whole, spec.SharingTimeSlicing)))
	}
	if c == spec.CloudGeneric {
		bare := matrixPool{accel: matrixCloudAccels[c][0], gpus: 1, dedicated: true, noGFD: true}
		add(named(bare))
		add(named(withSharing(bare, spec.SharingTimeSlicing)))
	}
	for i := range pools {
		if c == spec.CloudAKS {
			pools[i].poolName = "pool" + strconv.Itoa(i+1)
		}
		r, diags := pool.Render(pools[i].policy())
		if diags.HasError() {
			t.Fatalf("pool %s/%s: RenderPool refuses a shape the matrix lists:\n%s", c, pools[i].name, rendertest.FormatDiags(diags))
		}
		pools[i].rendered = r
	}
	return pools
}

// autopilotPools are the nodes Autopilot can create: one per model and GPU
// count it offers, plus spot.
func autopilotPools() []matrixPool {
	var pools []matrixPool
	for i, name := range matrixCloudAccels[spec.CloudGKEAutopilot] {
		for _, n := range matrixAccels[name].gkeCounts {
			pools = append(pools, named(matrixPool{cloud: spec.CloudGKEAutopilot, accel: name, gpus: n}))
		}
		if i == 0 {
			pools = append(pools, named(matrixPool{cloud: spec.CloudGKEAutopilot, accel: name, gpus: 1, spot: true}))
		}
	}
	return pools
}

// poolCounts: the smallest and largest machine of the model on the cloud
// (generic clusters: 1 and 8).
func poolCounts(f matrixAccel, c spec.Cloud) (small, large int64) {
	counts := f.machineCounts(c)
	if len(counts) == 0 {
		return 1, 8
	}
	return counts[0], counts[len(counts)-1]
}

// migProfilesFor: the smallest and the 3g profile the cloud can create.
func migProfilesFor(f matrixAccel, c spec.Cloud) []string {
	candidates := slices.DeleteFunc(f.profilesBySize(), func(p string) bool {
		return c == spec.CloudGKE && !slices.Contains(f.gkePartitions, p)
	})
	var out []string
	out = append(out, candidates[0])
	for _, p := range candidates {
		if strings.HasPrefix(p, "3g.") {
			out = append(out, p)
		}
	}
	return out
}

func withGPUs(p matrixPool, n int64) matrixPool { p.gpus = n; return p }
func withSpot(p matrixPool) matrixPool          { p.spot = true; return p }

func withSharing(p matrixPool, sharing string) matrixPool {
	p.sharing, p.replicas = sharing, 4
	return p
}

func withMIG(p matrixPool, partition, strategy string) matrixPool {
	p.partition, p.strategy = partition, strategy
	return p
}

// named gives the pool its column name, e.g. "a100-40gb x8 mig 1g.5gb".
func named(p matrixPool) matrixPool {
	parts := []string{p.accel + " x" + strconv.FormatInt(p.gpus, 10)}
	switch {
	case p.partition == spec.PartitionAllBalanced:
		parts = append(parts, "mixed all-balanced")
	case p.partition != "" && p.strategy == spec.MIGStrategyMixed && !p.dra:
		parts = append(parts, "mixed "+p.partition)
	case p.partition != "":
		parts = append(parts, "mig "+p.partition)
	}
	if p.sharing != "" {
		parts = append(parts, p.sharing+"/"+strconv.FormatInt(p.replicas, 10))
	}
	if p.spot {
		parts = append(parts, "spot")
	}
	if !p.dedicated && p.cloud != spec.CloudGKEAutopilot {
		parts = append(parts, "not-dedicated")
	}
	if p.noGFD {
		parts = append(parts, "no-GFD")
	}
	if p.dra {
		parts = append(parts, "dra")
		if p.partition != "" {
			parts = append(parts, "gfd-"+p.strategy)
		}
	}
	p.name = strings.Join(parts, " ")
	return p
}

// node is the pool's node as the cloud really labels, taints and sizes it:
// the cloud's own labels and taints (facts), the GPU Operator / GFD labels
// for the configuration (facts), then what the pool policy adds
// (pool.Render's NodeLabels and NodeTaints).
func (p matrixPool) node() (*corev1.Node, []string) {
	labels, taints := p.factLabels(), p.factTaints()
	var conflicts []string
	if p.rendered != nil {
		for _, k := range slices.Sorted(maps.Keys(p.rendered.NodeLabels)) {
			v := p.rendered.NodeLabels[k]
			if old, ok := labels[k]; ok && old != v {
				conflicts = append(conflicts, "pool adds "+k+"="+v+" but the node already has "+old)
			}
			labels[k] = v
		}
		for _, t := range p.rendered.NodeTaints {
			if !slices.ContainsFunc(taints, func(x corev1.Taint) bool { return x.MatchTaint(&t) }) {
				taints = append(taints, t)
			}
		}
	}
	node := &corev1.Node{}
	node.Name = p.name
	node.Labels = labels
	node.Spec.Taints = taints
	node.Status.Allocatable = p.factResources()
	return node, conflicts
}

// factLabels are the labels the cloud and the GPU stack set (not the pool
// policy's own).
func (p matrixPool) factLabels() map[string]string {
	l := map[string]string{}
	switch p.cloud {
	case spec.CloudGKE:
		p.gkeLabels(l)
	case spec.CloudGKEAutopilot:
		p.autopilotLabels(l)
	case spec.CloudAKS:
		p.aksLabels(l)
	case spec.CloudEKS:
		p.eksLabels(l)
	case spec.CloudEKSAuto:
		p.awsKarpenterLabels(l, "eks.amazonaws.com/")
		l[factEKSAutoComputeType] = "auto"
	case spec.CloudKarpenter:
		p.awsKarpenterLabels(l, "karpenter.k8s.aws/")
	}
	if p.runsGPUOperator() {
		p.gpuOperatorLabels(l)
	}
	return l
}

// runsGPUOperator: MIG and sharing outside GKE need the GPU Operator
// (mig-manager, per-node device plugin config), so AKS, EKS, Karpenter and
// generic pools run it. GKE uses its own device plugin; EKS Auto Mode an
// AWS-managed one; the no-GFD generic pools only the device plugin chart.
func (p matrixPool) runsGPUOperator() bool {
	switch p.cloud {
	case spec.CloudAKS, spec.CloudEKS, spec.CloudKarpenter:
		return true
	case spec.CloudGeneric:
		return !p.noGFD
	}
	return false
}

// gkeLabels: GKE labels GPU nodes from the node pool (GKE "Run GPUs in
// Standard node pools", "Running multi-instance GPUs", "GPU time-sharing",
// "NVIDIA MPS", "Spot VMs" docs).
func (p matrixPool) gkeLabels(l map[string]string) {
	l[factGKEAccelerator] = p.facts().gke
	l[factGKEDriverVersion] = "latest"
	l[factGKENodePool] = p.policy().Name
	if p.partition != "" {
		l[factGKEPartitionSize] = p.partition
	}
	if p.sharing != "" {
		l[factGKESharingStrategy] = map[string]string{spec.SharingTimeSlicing: factGKESharingTS, spec.SharingMPS: factGKESharingMPS}[p.sharing]
		l[factGKEMaxShared] = strconv.FormatInt(p.replicas, 10)
	}
	if p.spot {
		l[factGKESpot] = "true"
	}
}

// autopilotLabels: Autopilot nodes carry the accelerator, its count and
// spot (GKE "Deploy GPU workloads in Autopilot").
func (p matrixPool) autopilotLabels(l map[string]string) {
	l[factGKEAccelerator] = p.facts().gke
	l[factGKEAcceleratorCount] = strconv.FormatInt(p.gpus, 10)
	if p.spot {
		l[factGKESpot] = "true"
	}
}

// aksLabels: accelerator=nvidia on GPU nodes, the agent pool, the VM size,
// and scalesetpriority=spot on spot pools (azure-aks-docs use-labels.md,
// spot-node-pool.md).
func (p matrixPool) aksLabels(l map[string]string) {
	l[factAKSAccelerator] = "nvidia"
	l[factAKSAgentPool] = p.policy().Name
	l[factInstanceType] = p.facts().aksMachines[p.gpus]
	if p.spot {
		l[factAKSPriority] = factAKSSpotValue
	}
}

// eksLabels: managed node groups get capacityType and nodegroup (EKS user
// guide "Managed node groups"), plus the well-known instance type.
func (p matrixPool) eksLabels(l map[string]string) {
	l[factEKSNodeGroup] = p.policy().Name
	l[factEKSCapacityType] = "ON_DEMAND"
	if p.spot {
		l[factEKSCapacityType] = "SPOT"
	}
	l[factInstanceType] = p.facts().awsMachines[p.gpus]
}

// awsKarpenterLabels: Karpenter and EKS Auto Mode label nodes from EC2
// instance data (instance-gpu-name/-manufacturer/-count/-memory) and with
// karpenter.sh/capacity-type and karpenter.sh/nodepool.
func (p matrixPool) awsKarpenterLabels(l map[string]string, prefix string) {
	f := p.facts()
	l[prefix+"instance-gpu-name"] = f.awsName
	l[prefix+"instance-gpu-manufacturer"] = "nvidia"
	l[prefix+"instance-gpu-count"] = strconv.FormatInt(p.gpus, 10)
	if f.awsMemMiB > 0 {
		l[prefix+"instance-gpu-memory"] = strconv.FormatInt(f.awsMemMiB, 10)
	}
	l[factInstanceType] = f.awsMachines[p.gpus]
	l[factKarpenterCapacityType] = "on-demand"
	if p.spot {
		l[factKarpenterCapacityType] = "spot"
	}
	l[factKarpenterNodePool] = p.policy().Name
}

// gpuOperatorLabels: gpu.present by the GPU Operator; the rest by GPU
// Feature Discovery for this device plugin configuration (GFD README
// "Generated labels"; k8s-device-plugin v0.20.0 internal/lm: under the
// single strategy the MIG labeller's -MIG-<profile> product, MIG device
// count and replicas 1 replace the GPUs'; a GPU in MIG mode is otherwise
// labelled with replicas 0; -SHARED product unless renameByDefault).
func (p matrixPool) gpuOperatorLabels(l map[string]string) {
	f := p.facts()
	product := f.gfdProduct
	if p.cloud == spec.CloudAKS && f.gfdProductAKS != "" {
		product = f.gfdProductAKS
	}
	l[factGPUPresent] = "true"
	l[factGFDCount] = strconv.FormatInt(p.gpus, 10) // physical GPUs
	l[factGFDSharing] = "none"
	l[factGFDReplicas] = "1"
	if f.mig != nil {
		l[factGFDMIGCapable] = "true"
	}
	switch {
	case p.partition != "" && p.strategy == spec.MIGStrategySingle:
		// The MIG labeller writes over nvidia.com/gpu.*: the count is the
		// node's MIG devices, replicas 1.
		product += "-MIG-" + p.partition
		l[factGFDMIGStrategy] = spec.MIGStrategySingle
		l[factGFDCount] = strconv.FormatInt(p.gpus*p.layout()[p.partition], 10)
	case p.partition != "":
		// GPUs in MIG mode are labelled without sharing: replicas 0.
		l[factGFDMIGStrategy] = spec.MIGStrategyMixed
		l[factGFDReplicas] = "0"
		for profile, per := range p.layout() {
			l[gfdMIGCountLabel(profile)] = strconv.FormatInt(p.gpus*per, 10)
		}
	}
	if p.sharing != "" {
		l[factGFDSharing] = p.sharing
		l[factGFDReplicas] = strconv.FormatInt(p.replicas, 10)
		if !p.renamesShared() {
			product += "-SHARED"
		}
	}
	l[factGFDProduct] = product
}

// renamesShared: the device plugin config the pool policy generates says
// renameByDefault, so shared GPUs are advertised as <resource>.shared.
func (p matrixPool) renamesShared() bool {
	return p.rendered != nil && strings.Contains(p.rendered.DevicePluginConfig, "renameByDefault: true")
}

// factTaints are the taints the cloud itself adds: GKE's nvidia.com/gpu
// (GKE GPU docs; the cluster also has a non-GPU pool) and AKS's spot taint
// (spot-node-pool.md). Dedicated taints come from the pool policy.
func (p matrixPool) factTaints() []corev1.Taint {
	var taints []corev1.Taint
	switch {
	case p.cloud == spec.CloudGKE || p.cloud == spec.CloudGKEAutopilot:
		taints = append(taints, corev1.Taint{Key: factResourceGPU, Value: factGKETaintValue, Effect: corev1.TaintEffectNoSchedule})
	case p.cloud == spec.CloudAKS && p.spot:
		taints = append(taints, corev1.Taint{Key: factAKSPriority, Value: factAKSSpotValue, Effect: corev1.TaintEffectNoSchedule})
	}
	return taints
}

// factResources is what the node's device plugin advertises.
//   - GKE's plugin: everything as nvidia.com/gpu, one per MIG instance and
//     per shared client (GKE MIG and time-sharing docs).
//   - NVIDIA's plugin (k8s-device-plugin internal/rm/rm.go): nvidia.com/gpu
//     for whole GPUs and single-strategy MIG instances, nvidia.com/mig-<p>
//     under mixed; sharing multiplies by replicas and, with
//     renameByDefault, appends .shared.
func (p matrixPool) factResources() corev1.ResourceList {
	out := corev1.ResourceList{}
	if p.dra {
		return out // the driver publishes ResourceSlices; no extended resource
	}
	put := func(name string, n int64) {
		out[corev1.ResourceName(name)] = *resource.NewQuantity(n, resource.DecimalSI)
	}
	replicas := int64(1)
	if p.sharing != "" {
		replicas = p.replicas
	}
	suffix := ""
	if p.sharing != "" && p.renamesShared() {
		suffix = factSharedSuffix
	}
	switch {
	case p.partition == "":
		if p.cloud == spec.CloudGKE {
			suffix = ""
		}
		put(factResourceGPU+suffix, p.gpus*replicas)
	case p.cloud == spec.CloudGKE || p.strategy == spec.MIGStrategySingle:
		put(factResourceGPU, p.gpus*p.layout()[p.partition])
	default:
		for profile, per := range p.layout() {
			put(factDevicePluginMIG+profile, p.gpus*per)
		}
	}
	return out
}

// factOnlyLabel: labels the facts put on nodes that pool.Render's
// CloudSetLabels deliberately leaves out (nothing places on them there).
func factOnlyLabel(p matrixPool, key string) bool {
	c := p.cloud
	switch key {
	case factGKENodePool, factAKSAgentPool, factEKSNodeGroup, factEKSAutoComputeType, factGFDMIGCapable,
		"karpenter.k8s.aws/instance-gpu-manufacturer", "eks.amazonaws.com/instance-gpu-manufacturer":
		return true
	}
	if strings.HasPrefix(key, factDevicePluginMIG) && strings.HasSuffix(key, ".count") {
		return true
	}
	if key == factInstanceType && (c == spec.CloudKarpenter || c == spec.CloudEKSAuto) {
		return true
	}
	// On AKS, EKS and Karpenter pool.Render lists only the GFD label
	// placement reads there (the single-strategy MIG product).
	if strings.HasPrefix(key, "nvidia.com/") && (c == spec.CloudAKS || c == spec.CloudEKS || c == spec.CloudKarpenter) {
		return key != factGFDProduct || p.partition == "" || p.strategy != spec.MIGStrategySingle
	}
	return false
}

// TestPlacementFactsMatchRenderPool keeps the matrix's independent node
// facts and pool.Render's CloudSetLabels in step: a label both name must
// have the same value, and neither may list a label the other lacks (except
// factOnlyLabel). The pool's own labels must not fight the cloud's.
func TestPlacementFactsMatchRenderPool(t *testing.T) {
	for _, c := range clouds.PoolNames() {
		for _, p := range matrixPools(t, spec.Cloud(c)) {
			if p.noGFD {
				// pool.Render describes GPU Operator clusters; the no-GFD
				// pools are the cluster our own device plugin values set up
				// (finding 5), which the matrix checks instead.
				continue
			}
			facts := p.factLabels()
			for _, k := range slices.Sorted(maps.Keys(p.rendered.CloudSetLabels)) {
				want := p.rendered.CloudSetLabels[k]
				switch got, ok := facts[k]; {
				case !ok:
					t.Errorf("%s/%s: RenderPool says the cloud sets %s=%s; the facts have no such label", c, p.name, k, want)
				case got != want && k == factGFDProduct && sameModel(p.accel, got, want):
					// pool.Render shows one of the model's product names (its
					// docs say: the first the catalog lists); the node has the
					// one of its machine (e.g. the PCIe A100 on AKS NC A100 v4).
					t.Logf("%s/%s: RenderPool shows %s=%s, the machine's GPU reports %s", c, p.name, k, want, got)
				case got != want:
					t.Errorf("%s/%s: RenderPool says the cloud sets %s=%s; the facts say %s", c, p.name, k, want, got)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(facts)) {
				_, listed := p.rendered.CloudSetLabels[k]
				if !listed && !factOnlyLabel(p, k) {
					t.Errorf("%s/%s: the facts say the node carries %s=%s; RenderPool's CloudSetLabels lack it",
						c, p.name, k, facts[k])
				}
			}
			if _, conflicts := p.node(); len(conflicts) > 0 {
				t.Errorf("%s/%s: %s", c, p.name, strings.Join(conflicts, "; "))
			}
			// Nothing on EKS sets the cluster-autoscaler accelerator label
			// that EKS workloads select: the node group must carry it.
			if got := p.rendered.NodeLabels[factEKSAccelerator]; c == string(spec.CloudEKS) && got != p.facts().eksLabel {
				t.Errorf("%s/%s: the node group must add %s=%s; RenderPool's NodeLabels have %q", c, p.name,
					factEKSAccelerator, p.facts().eksLabel, got)
			}
			wantTaints := p.factTaints()
			for i := range wantTaints {
				if !slices.ContainsFunc(p.rendered.NodeTaints, func(x corev1.Taint) bool { return x.MatchTaint(&wantTaints[i]) }) {
					t.Errorf("%s/%s: the cloud adds taint %s; RenderPool's NodeTaints lack it", c, p.name, wantTaints[i].ToString())
				}
			}
		}
	}
}

// TestPlacementFactsMatchCatalog compares the facts with the provider's
// catalog, so a fact corrected in one place is corrected in both.
func TestPlacementFactsMatchCatalog(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(matrixAccels)) {
		f := matrixAccels[name]
		a, ok := catalog.LookupAccelerator(name)
		if !ok {
			t.Errorf("%s: not in the catalog", name)
			continue
		}
		check := func(what string, ok bool) {
			if !ok {
				t.Errorf("%s: catalog disagrees with the facts on %s", name, what)
			}
		}
		check("GKE accelerator", f.gke == "" && len(a.GKEAccelerators) == 0 || slices.Contains(a.GKEAccelerators, f.gke))
		check("AWS GPU name", f.awsName == a.AWSGPUName)
		check("AWS GPU memory", f.awsMemMiB == 0 || f.awsMemMiB == a.AWSGPUMemoryMiB)
		check("EKS accelerator label", f.eksLabel == a.EKSAccelerator)
		check("GFD product", slices.Contains(a.GFDProducts, f.gfdProduct))
		check("GFD product (AKS)", f.gfdProductAKS == "" || slices.Contains(a.GFDProducts, f.gfdProductAKS))
		for _, size := range f.aksMachines {
			check("AKS VM size "+size, slices.Contains(a.AKSVMSizes, size))
		}
		check("MIG profile count", len(f.mig) == len(a.MIGProfiles))
		for _, p := range a.MIGProfiles {
			check("MIG profile "+p.Name, f.mig[p.Name] == int64(p.InstancesPerGPU))
		}
	}
}

// sameModel: both product labels (plain or -MIG-<profile>) name the model.
func sameModel(accel, a, b string) bool {
	f := matrixAccels[accel]
	base := func(s string) string { return strings.SplitN(s, "-MIG-", 2)[0] }
	suffix := func(s string) string { return strings.TrimPrefix(s, base(s)) }
	products := []string{f.gfdProduct, f.gfdProductAKS}
	catalog, _ := catalog.LookupAccelerator(accel)
	return suffix(a) == suffix(b) && slices.Contains(products, base(a)) && slices.Contains(catalog.GFDProducts, base(b))
}
