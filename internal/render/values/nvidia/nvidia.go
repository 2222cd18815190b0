package nvidia

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// GPUOperatorValues configures the NVIDIA GPU Operator chart
// (NVIDIA/gpu-operator deployments/gpu-operator, docs/design/nvidia.md#gpu-operator-chart-values) for the
// cluster's GPU node pools: one device plugin config per pool that shares or
// partitions its GPUs, the operands' tolerations for the pools' taints, and
// the per-cloud driver and toolkit switches.
type GPUOperatorValues struct {
	// NodePools are the gpu_node_pool_policy pools the operator serves;
	// each pool's device plugin config (pool.Render) becomes an entry of
	// devicePlugin.config.data named after the pool.
	NodePools []spec.PoolPolicy // node_pools
	// ConfigMapName names the device plugin ConfigMap the chart creates;
	// default DefaultDevicePluginConfigMap.
	ConfigMapName string // config_map_name
	// MIGStrategy is the cluster-wide mig.strategy (MIGStrategyNames(),
	// default single); pools override it per node through their config.
	MIGStrategy string // mig_strategy
	// MIGLayouts are custom mig-manager layouts. Only needed for layouts
	// other than the operator's built-in all-<profile> and all-balanced.
	MIGLayouts     []MIGLayout         `tf:"mig_layout"`
	DCGMExporter   *bool               // dcgm_exporter: default true
	ServiceMonitor *bool               // service_monitor: default true with dcgm_exporter
	DriverEnabled  *bool               // driver_enabled: default per cloud
	ToolkitEnabled *bool               // toolkit_enabled: default per cloud
	Tolerations    []corev1.Toleration // tolerations: extra operand tolerations
}

// DevicePluginValues configures the standalone NVIDIA device plugin chart
// (NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin), for
// clusters without the GPU Operator.
type DevicePluginValues struct {
	NodePools []spec.PoolPolicy // node_pools
	// MIGStrategy is the default config's flags.migStrategy: "none" (the
	// plugin's default), "single" or "mixed".
	MIGStrategy string              // mig_strategy
	Tolerations []corev1.Toleration // tolerations: extra DaemonSet tolerations
}

// MIGLayout is one custom mig-parted layout, selected per node with the
// nvidia.com/mig.config label.
type MIGLayout struct {
	Name        string           // name: the nvidia.com/mig.config value
	Accelerator string           // accelerator: catalog id, to check the profiles
	Devices     map[string]int64 // devices: MIG profile → instances per GPU
}

// Defaults of the NVIDIA targets.
const (
	DefaultDevicePluginConfigMap = "gpu-device-plugin-config"
	// DefaultDevicePluginConfigName is the entry nodes without a
	// nvidia.com/device-plugin.config label use.
	DefaultDevicePluginConfigName = "default"
	// CustomMIGConfigMap names the mig-parted ConfigMap created for
	// MIGLayouts; the operator reads its "config.yaml" key.
	CustomMIGConfigMap = "custom-mig-parted-config"
)

// Chart defaults that the generated lists replace (Helm replaces lists), so
// they are kept in front. values_test.go checks them against the real
// values files in shared/charts.
var (
	GPUOperatorDaemonsetTolerations = []corev1.Toleration{clouds.TolerateGPUTaint()}
	GPUOperatorNFDWorkerTolerations = []corev1.Toleration{
		{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpEqual, Value: "", Effect: corev1.TaintEffectNoSchedule},
		clouds.TolerateGPUTaint(),
	}
	DevicePluginChartTolerations = []corev1.Toleration{
		{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists},
		clouds.TolerateGPUTaint(),
	}
	DevicePluginNFDWorkerTolerations = []corev1.Toleration{
		{Key: "node-role.kubernetes.io/master", Operator: corev1.TolerationOpEqual, Value: "", Effect: corev1.TaintEffectNoSchedule},
		clouds.TolerateEqual(string(clouds.ResourceNvidiaGPU), "present"),
	}
	DevicePluginChartAffinityTerms = []corev1.NodeSelectorTerm{
		{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "feature.node.kubernetes.io/pci-10de.present", Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}}},
		{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "feature.node.kubernetes.io/cpu-model.vendor_id", Operator: corev1.NodeSelectorOpIn, Values: []string{"NVIDIA"}}}},
		{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: clouds.LabelGPUPresent, Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}}},
	}
)

// nvidiaPools is what the NVIDIA targets need from the node pools.
type nvidiaPools struct {
	configs     map[string]string // device plugin config name → YAML
	tolerations []corev1.Toleration
	// layouts maps each MIG layout a pool selects to what it cuts one GPU
	// into; layoutConflicts lists layouts two pools cut differently.
	layouts         map[string]map[string]int64
	layoutConflicts []string
	// networks are the kinds of the pools' GPU networks (network.go).
	networks map[string]bool
}

func GenerateGPUOperator(cloud clouds.Cloud, in GPUOperatorValues, strict bool) (map[string]any, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	block := gpudiag.At(BlockGPUOperator)
	checkNvidiaCloud(cloud, block, "the GPU Operator", &diags)
	pools := renderNvidiaPools(cloud, block, in.NodePools, strict, &diags)
	strategy := chartMIGStrategy(block, in.MIGStrategy, spec.MIGStrategySingle, spec.MIGStrategyNames(), "MIG strategy", &diags)
	cmName := in.ConfigMapName
	if cmName == "" {
		cmName = DefaultDevicePluginConfigMap
	} else if msgs := validation.IsDNS1123Subdomain(cmName); len(msgs) > 0 {
		diags.AddError(chartkit.With(block, "config_map_name"), "Invalid ConfigMap name",
			strconv.Quote(cmName)+" is not a valid ConfigMap name. Allowed: a DNS-1123 subdomain such as \""+DefaultDevicePluginConfigMap+"\".")
	}
	migConfig := migManagerConfig(cloud, block, in.MIGLayouts, strategy, pools, &diags)
	chartkit.CheckValuesTolerations(chartkit.With(block, "tolerations"), in.Tolerations, &diags)
	if in.ServiceMonitor != nil && *in.ServiceMonitor && in.DCGMExporter != nil && !*in.DCGMExporter {
		diags.AddError(chartkit.With(block, "service_monitor"), "ServiceMonitor without DCGM exporter",
			"The ServiceMonitor scrapes the DCGM exporter, which dcgm_exporter = false disables. Allowed: enable "+
				"dcgm_exporter, or remove service_monitor.")
	}
	if !strict || diags.HasError() {
		return nil, diags
	}
	values := map[string]any{"mig": map[string]any{"strategy": strategy}}
	addDriverSwitches(values, cloud, in)
	addNetworkSwitches(values, pools.networks)
	if len(pools.configs) > 0 {
		data := withDefaultConfig(pools.configs, "version: v1\nflags:\n  migStrategy: "+strategy+"\n")
		chartkit.SetPath(values, map[string]any{
			"create": true, "name": cmName, "default": DefaultDevicePluginConfigName, "data": chartkit.StringMapValue(data),
		}, "devicePlugin", "config")
	}
	if migConfig != "" {
		chartkit.SetPath(values, map[string]any{
			"create": true, "name": CustomMIGConfigMap, "default": spec.MIGConfigDisabled,
			"data": map[string]any{"config.yaml": migConfig},
		}, "migManager", "config")
	}
	dcgm := in.DCGMExporter == nil || *in.DCGMExporter
	monitor := dcgm && (in.ServiceMonitor == nil || *in.ServiceMonitor)
	values["dcgmExporter"] = map[string]any{"enabled": dcgm, "serviceMonitor": map[string]any{"enabled": monitor}}
	operands := operandTolerations(cloud, pools.tolerations, in.Tolerations)
	chartkit.SetPath(values, chartkit.PlainOrNil(mergeTolerations(GPUOperatorDaemonsetTolerations, operands)), "daemonsets", "tolerations")
	// NFD labels the GPU nodes the operator then targets; a worker that
	// cannot run on a tainted GPU node leaves it unlabelled and unserved.
	chartkit.SetPath(values, chartkit.PlainOrNil(mergeTolerations(GPUOperatorNFDWorkerTolerations, operands)),
		"node-feature-discovery", "worker", "tolerations")
	return values, diags
}

// addDriverSwitches: where the cloud's node image carries the NVIDIA driver
// (its stack rules' DriverPreinstalled, which names the source), the operator
// must not install a second one. Those images also carry the NVIDIA
// container runtime hook, hence toolkit disabled too; no upstream page we found states
// that half, which is why both switches can be overridden. Clouds
// whose node images are the cluster's choice (Karpenter, generic) keep the
// chart defaults: the operator installs both. It asks only the cloud's
// stack rules (StackRules), whose neutral answers on an unknown cloud keep
// the chart defaults too.
func addDriverSwitches(values map[string]any, cloud clouds.StackRules, in GPUOperatorValues) {
	preinstalled := cloud.DriverPreinstalled()
	driver, toolkit := !preinstalled, !preinstalled
	if in.DriverEnabled != nil {
		driver = *in.DriverEnabled
	}
	if in.ToolkitEnabled != nil {
		toolkit = *in.ToolkitEnabled
	}
	values["driver"] = map[string]any{"enabled": driver}
	values["toolkit"] = map[string]any{"enabled": toolkit}
	if dir := cloud.DriverInstallDir(); dir != "" && !driver {
		chartkit.SetPath(values, dir, "hostPaths", "driverInstallDir")
	}
	if cloud.ManagesDevicePlugin() {
		// A second device plugin would advertise every GPU twice.
		chartkit.SetPath(values, false, "devicePlugin", "enabled")
	}
}

func GenerateDevicePlugin(cloud clouds.Cloud, in DevicePluginValues, strict bool) (map[string]any, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	block := gpudiag.At(BlockDevicePlugin)
	checkNvidiaCloud(cloud, block, "the NVIDIA device plugin", &diags)
	pools := renderNvidiaPools(cloud, block, in.NodePools, strict, &diags)
	strategy := chartMIGStrategy(block, in.MIGStrategy, "none", append([]string{"none"}, spec.MIGStrategyNames()...),
		"device plugin MIG strategy", &diags)
	chartkit.CheckValuesTolerations(chartkit.With(block, "tolerations"), in.Tolerations, &diags)
	if !strict || diags.HasError() {
		return nil, diags
	}
	values := map[string]any{}
	if len(pools.configs) > 0 {
		data := withDefaultConfig(pools.configs, "version: v1\nflags:\n  migStrategy: "+strategy+"\n")
		// This chart calls the entries "map" (the GPU Operator says "data").
		values["config"] = map[string]any{"map": chartkit.StringMapValue(data), "default": DefaultDevicePluginConfigName}
	}
	whole, _ := chartkit.CloudGPUPlacement(cloud, clouds.GPUIntent{Count: 1})
	selector := maps.Clone(whole.NodeSelector)
	if len(selector) > 0 {
		values["nodeSelector"] = chartkit.StringMapValue(selector)
	}
	operands := operandTolerations(cloud, pools.tolerations, in.Tolerations)
	if cloud.Mechanism() == clouds.MechanismGPUOperator {
		// Not on GKE or EKS Auto Mode: their own device plugin serves the
		// GPUs and placement there selects no GFD label.
		enableGFD(values, operands)
	}
	values["tolerations"] = chartkit.PlainOrNil(mergeTolerations(DevicePluginChartTolerations, operands))
	values["affinity"] = chartkit.PlainOrNil(devicePluginAffinity(cloud, selector))
	addDevicePluginNetworkSwitches(values, pools.networks)
	return values, diags
}

// chartMIGStrategy is the chart's MIG strategy: raw, or fallback when
// unset. One the chart does not take (allowed; kind is what the chart calls
// it) is reported and passed on, as the user wrote it.
func chartMIGStrategy(block []any, raw, fallback string, allowed []string, kind string, diags *gpudiag.Diagnostics) string {
	if raw == "" {
		return fallback
	}
	if !slices.Contains(allowed, raw) {
		diags.AddError(chartkit.With(block, "mig_strategy"), "Unknown MIG strategy",
			strconv.Quote(raw)+" is not a "+kind+". Allowed values: "+gpudiag.QuoteList(allowed)+".")
	}
	return raw
}

// enableGFD turns on the chart's GPU Feature Discovery (gfd.enabled, off by
// default in chart 0.20.0), which also deploys its Node Feature Discovery
// subchart (dependency condition "nfd.enabled,gfd.enabled"). Placement
// relies on GFD's labels: nvidia.com/gpu.product selects the model on
// generic clusters and the MIG partition under the "single" strategy
// everywhere, and nvidia.com/gpu.sharing-strategy keeps whole-GPU pods off
// shared nodes. NFD's worker must run on tainted GPU nodes: it sets the PCI
// label the plugin's and GFD's node affinity select, and the chart's own
// worker tolerations only tolerate nvidia.com/gpu=present.
func enableGFD(values map[string]any, operands []corev1.Toleration) {
	chartkit.SetPath(values, true, "gfd", "enabled")
	chartkit.SetPath(values, chartkit.PlainOrNil(mergeTolerations(DevicePluginNFDWorkerTolerations, operands)), "nfd", "worker", "tolerations")
}

// devicePluginAffinity keeps the chart's NFD-based node terms (a list, so
// it must be repeated whole) and adds one for the cloud's own GPU node
// label, so the plugin also runs on clusters without Node Feature Discovery.
func devicePluginAffinity(cloud clouds.ModelPlacer, selector map[string]string) *corev1.Affinity {
	terms := slices.Clone(DevicePluginChartAffinityTerms)
	var extra []corev1.NodeSelectorRequirement
	for _, k := range slices.Sorted(maps.Keys(selector)) {
		extra = append(extra, corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{selector[k]}})
	}
	if len(extra) == 0 {
		for _, a := range cloud.Models() {
			if key, _, ok := chartkit.AcceleratorLabel(cloud, a); ok && key != clouds.LabelInstanceType {
				extra = append(extra, corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpExists})
				break
			}
		}
	}
	if len(extra) > 0 {
		terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: extra})
	}
	return clouds.RequiredAffinity(withoutDRANodes(terms))
}

// withoutDRANodes keeps the plugin off nodes that opted out of it (DRA
// nodes, labelled as the GPU Operator's own switch says): terms are ORed,
// so each one gets the exclusion.
func withoutDRANodes(terms []corev1.NodeSelectorTerm) []corev1.NodeSelectorTerm {
	out := make([]corev1.NodeSelectorTerm, len(terms))
	for i, t := range terms {
		out[i] = corev1.NodeSelectorTerm{MatchExpressions: append(slices.Clone(t.MatchExpressions),
			corev1.NodeSelectorRequirement{Key: spec.LabelDeployDevicePlugin, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"false"}})}
	}
	return out
}

// renderNvidiaPools renders every pool and collects its device plugin
// config, the tolerations of its taints and its MIG layout.
func renderNvidiaPools(cloud clouds.Named, block []any, pools []spec.PoolPolicy, strict bool, diags *gpudiag.Diagnostics) nvidiaPools {
	out := nvidiaPools{configs: map[string]string{}, layouts: map[string]map[string]int64{}, networks: map[string]bool{}}
	for i, p := range pools {
		path := chartkit.With(block, "node_pools", i)
		if p.Cloud != "" && cloud.Name() != "" && p.Cloud != string(cloud.Name()) {
			diags.AddError(chartkit.With(path, "cloud"), "Node pool on another cloud",
				"The pool is on "+strconv.Quote(p.Cloud)+" but cloud is "+strconv.Quote(string(cloud.Name()))+
					". Allowed: pools of this cluster's cloud only.")
			continue
		}
		if !strict {
			diags.Append(chartkit.PrefixDiags(path, pool.Validate(p)))
			continue
		}
		r, more := pool.Render(p)
		diags.Append(chartkit.PrefixDiags(path, more))
		if r == nil {
			continue
		}
		if r.DevicePluginConfig != "" {
			if r.DevicePluginConfigName == DefaultDevicePluginConfigName {
				diags.AddError(chartkit.With(path, "name"), "Reserved pool name",
					"\""+DefaultDevicePluginConfigName+"\" names the device plugin config of nodes outside every pool. "+
						"Allowed: any other pool name.")
				continue
			}
			if _, dup := out.configs[r.DevicePluginConfigName]; dup {
				diags.AddError(chartkit.With(path, "name"), "Duplicate node pool name",
					"Two pools are named "+strconv.Quote(r.DevicePluginConfigName)+"; each names its device plugin config. "+
						"Allowed: unique pool names.")
				continue
			}
			out.configs[r.DevicePluginConfigName] = r.DevicePluginConfig
		}
		for _, t := range r.NodeTaints {
			out.tolerations = append(out.tolerations, tolerationFor(t))
		}
		if r.GPUNetwork != nil {
			out.networks[r.GPUNetwork.Kind] = true
		}
		if r.MIGConfig != "" && r.MIGConfig != spec.MIGConfigDisabled {
			devices := poolLayoutDevices(p)
			if prev, seen := out.layouts[r.MIGConfig]; seen && !maps.Equal(prev, devices) {
				out.layoutConflicts = append(out.layoutConflicts, r.MIGConfig)
			}
			out.layouts[r.MIGConfig] = devices
		}
	}
	return out
}

// tolerationFor tolerates exactly one taint.
func tolerationFor(t corev1.Taint) corev1.Toleration {
	if t.Value == "" {
		return corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpExists, Effect: t.Effect}
	}
	return corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect}
}

// operandTolerations is what node DaemonSets need on the cloud's GPU
// nodes: the cloud's GPU and spot taints (from the placement rules), the
// pools' own taints and the user's extras.
func operandTolerations(cloud clouds.Placer, pools, extra []corev1.Toleration) []corev1.Toleration {
	out := chartkit.GPUNodeTolerations(cloud)
	out = append(out, pools...)
	return append(out, extra...)
}

// mergeTolerations is a chart's default list (kept: the generated list
// replaces it) plus more, sorted, without duplicates and without Equal
// tolerations that an Exists toleration of the same key already covers.
func mergeTolerations(chartDefaults, more []corev1.Toleration) []corev1.Toleration {
	all := clouds.NormalizeTolerations(append(slices.Clone(chartDefaults), more...))
	return slices.DeleteFunc(all, func(t corev1.Toleration) bool {
		return t.Operator == corev1.TolerationOpEqual && slices.ContainsFunc(all, func(u corev1.Toleration) bool {
			return u.Operator == corev1.TolerationOpExists && u.Key == t.Key && (u.Effect == "" || u.Effect == t.Effect)
		})
	})
}

// withDefaultConfig adds the entry for nodes outside every pool. Entries
// lose their final newline so they print as YAML "|-" blocks, the form
// NVIDIA's documentation uses.
func withDefaultConfig(configs map[string]string, defaultConfig string) map[string]string {
	out := make(map[string]string, len(configs)+1)
	for k, v := range configs {
		out[k] = strings.TrimRight(v, "\n")
	}
	out[DefaultDevicePluginConfigName] = strings.TrimRight(defaultConfig, "\n")
	return out
}
