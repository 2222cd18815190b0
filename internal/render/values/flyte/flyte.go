package flyte

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/validate"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Values configures flytepropeller's k8s plugin (docs/design/flyte.md): how a
// task's GPU request and accelerator become a resource name, node affinity
// and tolerations. It is cluster-wide, so it holds no GPU count: tasks ask
// for that themselves.
//
// What Flyte can express, per cloud (device = the string a task passes to
// flytekit's GPUAccelerator, or the value Flyte v2 maps an accelerator to):
//   - gke, gke-autopilot: device = cloud.google.com/gke-accelerator value,
//     which equals flytekit's constants (nvidia-tesla-t4, nvidia-l4, ...);
//     MIG partitions through cloud.google.com/gke-gpu-partition-size and
//     "unpartitioned" through a DoesNotExist requirement on it. Flyte cannot
//     add gke-accelerator-count (Autopilot then sizes the node from the
//     request) nor keep whole-GPU tasks off time-shared pools.
//   - eks: device = k8s.amazonaws.com/accelerator, which the node groups
//     carry with flytekit's names (catalog/catalog.go EKSAccelerator). No partitions.
//   - eks-auto, karpenter: device = instance-gpu-name ("t4", "l40s"), not
//     flytekit's constants. No partitions.
//   - aks: device = a VM size (node.kubernetes.io/instance-type): AKS has no
//     model label, and a task selects one size. No partitions.
//   - generic: device = a GPU Feature Discovery product name
//     (nvidia.com/gpu.product); a task selects one (PCIe or SXM). No
//     partitions: single-strategy MIG rewrites the product name instead.
type Values struct {
	// FlyteVersion is 1 (the default; flyte-core, and flyte-binary of the
	// v1 line) or 2 (flyte-binary of Flyte v2), which configures GPUs
	// through accelerator-devices and accelerator-device-classes.
	FlyteVersion int64 // flyte_version
	// Accelerators are the catalog ids tasks may request; v2 maps each to
	// its device, and every version checks the cloud offers them.
	Accelerators []string // accelerators
	// Sharing makes GPU tasks request shared slots ("time-slicing", "mps"):
	// the GPU resource name becomes the cloud's shared resource.
	Sharing string // sharing
	// Interruptible sends Flyte's interruptible tasks to spot capacity and
	// keeps the others off it.
	Interruptible       bool                // interruptible
	DefaultTolerations  []corev1.Toleration // default_tolerations: added to every task pod
	DefaultNodeSelector map[string]string   // default_node_selector: added to every task pod
	// DefaultEnvVars go to every task pod (Flyte v1 only: v2's chart sets
	// default-env-vars itself and a values list would replace it).
	DefaultEnvVars map[string]string // default_env_vars
	// NodePools are the gpu_node_pool_policy pools GPU tasks run on: each
	// pool's resource names get the pool's tolerations (its extra taints
	// included) in resource-tolerations.
	NodePools []spec.PoolPolicy // node_pools
	// GPUResourceName, DeviceNodeLabel and PartitionSizeNodeLabel replace
	// the cloud's defaults (ClassDefaults) for the resource tasks
	// request and the node labels propeller selects devices and partitions
	// by; "" keeps the default.
	GPUResourceName        string // gpu_resource_name
	DeviceNodeLabel        string `tf:"gpu_device_node_label"`
	PartitionSizeNodeLabel string `tf:"gpu_partition_size_node_label"`
}

// The two Flyte charts: flyte-core keeps the k8s plugin config under
// configmap.k8s, flyte-binary (v1 and v2) under configuration.inline.
const (
	TargetCore   = "flyte-core"
	TargetBinary = "flyte-binary"
)

// Flyte k8s plugin config keys (flyteplugins flytek8s/config/config.go).
const (
	KeyGPUResourceName               = "gpu-resource-name"
	KeyResourceTolerations           = "resource-tolerations"
	KeyGPUDeviceNodeLabel            = "gpu-device-node-label"
	KeyGPUPartitionSizeLabel         = "gpu-partition-size-node-label"
	KeyGPUUnpartitionedReq           = "gpu-unpartitioned-node-selector-requirement"
	flyteKeyGPUUnpartitionedTol      = "gpu-unpartitioned-toleration"
	flyteKeyDefaultTolerations       = "default-tolerations"
	flyteKeyDefaultNodeSelector      = "default-node-selector"
	KeyDefaultEnvVars                = "default-env-vars"
	flyteKeyInterruptibleTolerations = "interruptible-tolerations"
	flyteKeyInterruptibleReq         = "interruptible-node-selector-requirement"
	flyteKeyNonInterruptibleReq      = "non-interruptible-node-selector-requirement"
	KeyAcceleratorDevices            = "accelerator-devices"
	flyteKeyAcceleratorDeviceClass   = "accelerator-device-classes"
	// flyteNvidiaDeviceClass is core.GPUAccelerator_NVIDIA_GPU's name.
	flyteNvidiaDeviceClass = "NVIDIA_GPU"
)

// GPUKeys lists every k8s plugin key the flyte targets may write, for
// tests and documentation.
func GPUKeys() []string {
	return []string{
		KeyGPUResourceName, KeyResourceTolerations, KeyGPUDeviceNodeLabel, KeyGPUPartitionSizeLabel,
		KeyGPUUnpartitionedReq, flyteKeyGPUUnpartitionedTol, flyteKeyDefaultTolerations, flyteKeyDefaultNodeSelector,
		KeyDefaultEnvVars, flyteKeyInterruptibleTolerations, flyteKeyInterruptibleReq, flyteKeyNonInterruptibleReq,
		KeyAcceleratorDevices, flyteKeyAcceleratorDeviceClass,
	}
}

// V2AcceleratorNames are the keys of Flyte v2's accelerator-devices
// default map (flyteplugins config.go on main) that name each catalog model.
var V2AcceleratorNames = map[string][]string{
	"a100-40gb": {"A100"},
	"a100-80gb": {"A100 80G"},
	"a10g":      {"A10G"},
	"b200":      {"B200"},
	"h100-80gb": {"H100", "H100 80G"},
	"h200":      {"H200"},
	"l4":        {"L4"},
	"l40s":      {"L40s"},
	"t4":        {"T4"},
	"v100-16gb": {"V100"},
	"v100-32gb": {"V100"},
}

// PluginPath is where a target's k8s plugin config lives in its values:
// flyte-core renders configmap.k8s whole into k8s.yaml; flyte-binary merges
// configuration.inline over its base config.
func PluginPath(target string) []string {
	if target == TargetCore {
		return []string{"configmap", "k8s", "plugins", "k8s"}
	}
	return []string{"configuration", "inline", "plugins", "k8s"}
}

func Generate(target string, cloud clouds.Cloud, in Values, strict bool) (map[string]any, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	v2 := checkFlyteVersion(target, in, &diags)
	accelerators := workload.ResolveAccelerators(spec.GPU{Accelerators: in.Accelerators}, cloud, strict, &diags)
	diags = prefixFlyteGPUPaths(diags)
	sharing := in.Sharing
	if sharing != "" && !slices.Contains(spec.SharingNames(), sharing) {
		diags.AddError(gpudiag.At(Block, "sharing"), "Unknown sharing mode",
			strconv.Quote(sharing)+" is not a GPU sharing mode. Allowed values: "+gpudiag.QuoteList(spec.SharingNames())+".")
		sharing = ""
	}
	chartkit.CheckValuesTolerations(gpudiag.At(Block, "default_tolerations"), in.DefaultTolerations, &diags)
	chartkit.CheckValuesNodeSelector(gpudiag.At(Block, "default_node_selector"), in.DefaultNodeSelector, &diags)
	checkFlyteEnv(in.DefaultEnvVars, v2, &diags)
	checkFlyteLabels(in, &diags)
	checkNoTemplates(in, &diags)
	if !strict {
		for i, p := range in.NodePools {
			diags.Append(chartkit.PrefixDiags(gpudiag.At(Block, "node_pools", i), pool.Validate(p)))
		}
		return nil, diags
	}
	if diags.HasError() {
		return nil, diags
	}
	k8s, byResource := flyteGPUKeys(cloud, sharing, v2, accelerators, in, &diags)
	addFlytePools(byResource, cloud, in.NodePools, &diags)
	if diags.HasError() {
		return nil, diags
	}
	// The tolerations stay typed until here and are written once: reading
	// them back from plain values would need a decode whose failure could
	// only drop them. ToPlain of corev1.Toleration cannot fail (strings
	// and an *int64), so PlainOrNil never yields nil for a non-empty list.
	k8s[KeyResourceTolerations] = chartkit.SingleKeyMaps(byResource, func(ts []corev1.Toleration) any { return chartkit.PlainOrNil(ts) })
	addFlyteDefaults(k8s, in)
	addFlyteInterruptible(k8s, cloud, in.Interruptible, &diags)
	flyteCloudNotes(cloud, sharing, &diags)
	values := map[string]any{}
	chartkit.SetPath(values, k8s, PluginPath(target)...)
	if ContainsTemplate(values) {
		diags.AddError(gpudiag.At(Block), "Template braces in Flyte values",
			"Flyte's charts pass these values through Helm's tpl, which would evaluate \"{{\". This is a provider bug; please report it.")
		return nil, diags
	}
	return values, diags
}

// flyteGPUKeys derives the GPU keys from the cloud's placement of a
// one-GPU task: its resource name, and the device class (v1 gpu-* keys, or
// v2's accelerator-device-classes and devices). The placement's tolerations
// are returned by resource name, for the caller to add the pools' and write
// resource-tolerations.
func flyteGPUKeys(cloud deviceCloud, sharing string, v2 bool, accelerators []*catalog.Accelerator, in Values,
	diags *gpudiag.Diagnostics) (map[string]any, map[string][]corev1.Toleration) {
	k8s := map[string]any{}
	env := in.DefaultEnvVars
	place, _ := chartkit.CloudGPUPlacement(cloud, clouds.GPUIntent{Count: 1, Sharing: sharing})
	class := flyteDeviceClass(cloud, string(place.ResourceName), place)
	class.override(in)
	byResource := map[string][]corev1.Toleration{class.resourceName: clouds.NormalizeTolerations(place.Tolerations)}
	if !v2 {
		maps.Copy(k8s, flyteV1Keys(class))
		flyteDeviceNotes(cloud, accelerators, diags)
		if all := flyteEnv(env, place.Env); len(all) > 0 {
			k8s[KeyDefaultEnvVars] = chartkit.SingleKeyMaps(all, func(s string) any { return s })
		}
		return k8s, byResource
	}
	k8s[flyteKeyAcceleratorDeviceClass] = []any{map[string]any{flyteNvidiaDeviceClass: classValues(class)}}
	if devices := flyteV2Devices(cloud, accelerators, diags); len(devices) > 0 {
		k8s[KeyAcceleratorDevices] = chartkit.SingleKeyMaps(devices, func(s string) any { return s })
	}
	flyteV2Notes(cloud, diags)
	return k8s, byResource
}

// addFlytePools adds, per node pool, its tolerations under each resource
// name it advertises, so tasks requesting nvidia.com/gpu.shared or
// nvidia.com/mig-1g.5gb also tolerate that pool's taints. Flyte has no
// per-resource node selector, so pool labels cannot be selected.
func addFlytePools(byResource map[string][]corev1.Toleration, cloud clouds.Named, pools []spec.PoolPolicy, diags *gpudiag.Diagnostics) {
	for i, p := range pools {
		path := gpudiag.At(Block, "node_pools", i)
		if p.Cloud != "" && p.Cloud != string(cloud.Name()) {
			diags.AddError(chartkit.With(path, "cloud"), "Node pool on another cloud",
				"The pool is on "+strconv.Quote(p.Cloud)+" but cloud is "+strconv.Quote(string(cloud.Name()))+". Allowed: pools of this cluster's cloud only.")
			continue
		}
		r, more := pool.Render(p)
		diags.Append(chartkit.PrefixDiags(path, more))
		if r == nil {
			continue
		}
		names := r.ResourceNames
		if p.UsesDRA() {
			// Task pods have no resourceClaims: they ask the extended
			// resource the pool's DeviceClass answers to, where the
			// cluster's version maps it to a claim.
			name, more, ok := chartkit.DRAPoolResource(p, "Flyte", path)
			diags.Append(more)
			if !ok {
				continue
			}
			names = []string{string(name)}
		}
		for _, name := range names {
			byResource[name] = clouds.NormalizeTolerations(append(byResource[name], r.Tolerations...))
		}
		if len(p.Labels) > 0 {
			diags.AddWarning(chartkit.With(path, "labels"), "Flyte cannot select node pool labels",
				"Flyte adds node selectors per accelerator device, not per pool, so tasks do not select this pool's extra labels "+
					"and may land on other pools with the same GPUs. Allowed: keep the labels, or tell pools apart by taints.")
		}
	}
}

// checkFlyteVersion returns whether v2 keys are wanted.
func checkFlyteVersion(target string, in Values, diags *gpudiag.Diagnostics) bool {
	switch in.FlyteVersion {
	case 0, 1:
		return false
	case 2:
		if target == TargetCore {
			diags.AddError(gpudiag.At(Block, "flyte_version"), "flyte-core has no Flyte v2",
				"Flyte v2 ships only the flyte-binary chart (flyte-core was removed on Flyte's main branch). Allowed: "+
					"flyte_version = 1 with flyte-core, or target = \""+TargetBinary+"\".")
		}
		return true
	}
	diags.AddError(gpudiag.At(Block, "flyte_version"), "Unknown Flyte version",
		strconv.FormatInt(in.FlyteVersion, 10)+" is not a Flyte major version. Allowed values: 1, 2.")
	return false
}

// prefixFlyteGPUPaths: workload.ResolveAccelerators reports at gpu.accelerators[i];
// the flyte block holds accelerators directly.
func prefixFlyteGPUPaths(diags gpudiag.Diagnostics) gpudiag.Diagnostics {
	for i, d := range diags {
		if len(d.Path) > 0 && d.Path[0] == "gpu" {
			diags[i].Path = append(gpudiag.At(Block), d.Path[1:]...)
		}
	}
	return diags
}

func checkFlyteEnv(env map[string]string, v2 bool, diags *gpudiag.Diagnostics) {
	for _, name := range validate.SortedKeys(env) {
		validate.EnvVarName(diags, name, gpudiag.At(Block, "default_env_vars", gpudiag.MapKey(name)))
	}
	if len(env) > 0 && v2 {
		diags.AddError(gpudiag.At(Block, "default_env_vars"), "default_env_vars replaces Flyte v2's",
			"Flyte v2's chart sets plugins.k8s.default-env-vars (_U_EP_OVERRIDE, _U_INSECURE, _U_USE_ACTIONS) and a list "+
				"in configuration.inline replaces it, breaking task pods. Allowed: remove default_env_vars, or use flyte_version = 1.")
	}
}

// checkNoTemplates: Flyte's charts render these values through tpl, so a
// user string containing "{{" would be evaluated (or fail the install).
func checkNoTemplates(in Values, diags *gpudiag.Diagnostics) {
	bad := func(path []any, s string) {
		if strings.Contains(s, "{{") {
			diags.AddError(path, "Template braces in a Flyte value",
				strconv.Quote(s)+" contains \"{{\", which the Flyte chart would evaluate as a Helm template (tpl). "+
					"Allowed: a value without \"{{\".")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(in.DefaultEnvVars)) {
		bad(gpudiag.At(Block, "default_env_vars", gpudiag.MapKey(k)), k+in.DefaultEnvVars[k])
	}
	for _, k := range slices.Sorted(maps.Keys(in.DefaultNodeSelector)) {
		bad(gpudiag.At(Block, "default_node_selector", gpudiag.MapKey(k)), k+in.DefaultNodeSelector[k])
	}
	for i, t := range in.DefaultTolerations {
		bad(gpudiag.At(Block, "default_tolerations", i), t.Key+t.Value)
	}
}

// flyteDeviceClass is the NVIDIA device class settings, derived from the
// cloud's placement: the accelerator label, and on GKE the partition label
// with the "unpartitioned" rule whole-GPU workloads use (absentLabels).
// deviceCloud is what a device class reads of the cloud: the node label
// its placement selects each offered model by, and its partition label.
type deviceCloud interface {
	clouds.ModelPlacer
	PartitionLabel() string
}

type flyteClass struct {
	resourceName, deviceLabel, partitionLabel string
	unpartitioned                             *corev1.NodeSelectorRequirement
}

func flyteDeviceClass(cloud deviceCloud, resourceName string, whole clouds.Placement) flyteClass {
	class := flyteClass{resourceName: resourceName}
	for _, a := range cloud.Models() {
		if key, _, ok := chartkit.AcceleratorLabel(cloud, a); ok {
			class.deviceLabel = key
			break
		}
	}
	if key := cloud.PartitionLabel(); key != "" {
		class.partitionLabel = key
		if slices.Contains(whole.AbsentLabels, key) {
			// The valid form of the docs' example (docs/design/flyte.md#how-propeller-places-a-gpu-task):
			// operator DoesNotExist, no values.
			class.unpartitioned = &corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpDoesNotExist}
		}
	}
	return class
}

func flyteV1Keys(c flyteClass) map[string]any {
	out := map[string]any{KeyGPUResourceName: c.resourceName}
	if c.deviceLabel != "" {
		out[KeyGPUDeviceNodeLabel] = c.deviceLabel
	}
	if c.partitionLabel != "" {
		out[KeyGPUPartitionSizeLabel] = c.partitionLabel
	}
	if c.unpartitioned != nil {
		out[KeyGPUUnpartitionedReq] = chartkit.PlainOrNil(c.unpartitioned)
	}
	return out
}

// classValues is the v2 AcceleratorDeviceClassConfig of the class.
func classValues(c flyteClass) map[string]any {
	out := map[string]any{"resource-name": c.resourceName}
	if c.deviceLabel != "" {
		out["device-node-label"] = c.deviceLabel
	}
	if c.partitionLabel != "" {
		out["partition-size-node-label"] = c.partitionLabel
	}
	if c.unpartitioned != nil {
		out["unpartitioned-node-selector-requirement"] = chartkit.PlainOrNil(c.unpartitioned)
	}
	return out
}

// flyteV2Devices maps each Flyte v2 accelerator name of the requested
// models to the cloud's label value, so "T4" means "t4" on EKS Auto Mode.
func flyteV2Devices(cloud clouds.Placer, accelerators []*catalog.Accelerator, diags *gpudiag.Diagnostics) map[string]string {
	devices := map[string]string{}
	for i, a := range accelerators {
		names := V2AcceleratorNames[a.Name]
		_, values, ok := chartkit.AcceleratorLabel(cloud, a)
		if !ok || len(values) == 0 {
			continue
		}
		if len(names) == 0 {
			diags.AddWarning(gpudiag.At(Block, "accelerators", i), "No Flyte v2 name for "+a.Name,
				"Flyte v2 has no accelerator name for "+a.DisplayName+", so tasks cannot request it by name. Allowed: "+
					"remove it, or request it by device "+strconv.Quote(values[0])+".")
			continue
		}
		for _, n := range names {
			if prev, dup := devices[n]; dup && prev != values[0] {
				diags.AddWarning(gpudiag.At(Block, "accelerators", i), "Flyte v2 name "+strconv.Quote(n)+" is ambiguous",
					"Flyte v2 calls both models "+strconv.Quote(n)+"; it keeps device "+strconv.Quote(prev)+". Allowed: list one of them.")
				continue
			}
			devices[n] = values[0]
		}
		warnSeveralValues(cloud, a, values, i, diags)
	}
	return devices
}

// flyteDeviceNotes tells v1 users which device string selects each model
// where it is not flytekit's constant.
func flyteDeviceNotes(cloud clouds.Placer, accelerators []*catalog.Accelerator, diags *gpudiag.Diagnostics) {
	for i, a := range accelerators {
		key, values, ok := chartkit.AcceleratorLabel(cloud, a)
		if !ok || len(values) == 0 {
			continue
		}
		if device := Device(a.Name); !slices.Contains(values, device) {
			diags.AddWarning(gpudiag.At(Block, "accelerators", i), "Flyte device for "+a.Name+" on "+string(cloud.Name()),
				"On "+string(cloud.Name())+" Flyte selects GPUs by "+key+", so tasks must use GPUAccelerator("+strconv.Quote(values[0])+
					") for "+a.DisplayName+", not flytekit's constant "+strconv.Quote(device)+".")
		}
		warnSeveralValues(cloud, a, values, i, diags)
	}
}

func warnSeveralValues(cloud clouds.Named, a *catalog.Accelerator, values []string, i int, diags *gpudiag.Diagnostics) {
	if len(values) > 1 {
		diags.AddWarning(gpudiag.At(Block, "accelerators", i), a.Name+" has several node label values on "+string(cloud.Name()),
			"Flyte selects exactly one label value per task, but "+a.DisplayName+" nodes carry any of "+gpudiag.QuoteList(values)+
				" on "+string(cloud.Name())+". A task pinned to one lands only on nodes with that value. Allowed: pick the value "+
				"your node pools have.")
	}
}

// flyteEnv is the user's env over the cloud's driver environment.
func flyteEnv(user, cloudEnv map[string]string) map[string]string {
	env := maps.Clone(cloudEnv)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, user)
	return env
}

func addFlyteDefaults(k8s map[string]any, in Values) {
	if len(in.DefaultTolerations) > 0 {
		k8s[flyteKeyDefaultTolerations] = chartkit.PlainOrNil(clouds.NormalizeTolerations(in.DefaultTolerations))
	}
	if len(in.DefaultNodeSelector) > 0 {
		k8s[flyteKeyDefaultNodeSelector] = chartkit.SingleKeyMaps(in.DefaultNodeSelector, func(s string) any { return s })
	}
}

// addFlyteInterruptible derives the spot rules from the cloud profile: the
// labels and tolerations spot placement adds over on-demand placement.
func addFlyteInterruptible(k8s map[string]any, cloud clouds.Placer, interruptible bool, diags *gpudiag.Diagnostics) {
	if !interruptible {
		return
	}
	onDemand, _ := chartkit.CloudGPUPlacement(cloud, clouds.GPUIntent{Count: 1})
	spot, _ := chartkit.CloudGPUPlacement(cloud, clouds.GPUIntent{Count: 1, Spot: true})
	var added []string
	for k, v := range spot.NodeSelector {
		if onDemand.NodeSelector[k] != v {
			added = append(added, k)
		}
	}
	if len(added) != 1 {
		diags.AddWarning(gpudiag.At(Block, "interruptible"), "interruptible has no effect on "+string(cloud.Name()),
			string(cloud.Name())+" has no standard spot node label, so interruptible tasks cannot be routed. Allowed: remove "+
				"interruptible, or set default_node_selector yourself.")
		return
	}
	key := added[0]
	value := spot.NodeSelector[key]
	k8s[flyteKeyInterruptibleReq] = chartkit.PlainOrNil(corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}})
	// NotIn also matches nodes without the label: everything but spot.
	k8s[flyteKeyNonInterruptibleReq] = chartkit.PlainOrNil(corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpNotIn, Values: []string{value}})
	var extra []corev1.Toleration
	for _, t := range spot.Tolerations {
		if !slices.Contains(onDemand.Tolerations, t) {
			extra = append(extra, t)
		}
	}
	if len(extra) > 0 {
		k8s[flyteKeyInterruptibleTolerations] = chartkit.PlainOrNil(clouds.NormalizeTolerations(extra))
	}
}

// ContainsTemplate reports whether any string in v contains "{{".
func ContainsTemplate(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.Contains(t, "{{")
	case map[string]any:
		for k, e := range t {
			if strings.Contains(k, "{{") || ContainsTemplate(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if ContainsTemplate(e) {
				return true
			}
		}
	}
	return false
}
