package nvidia

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// migPartedConfig is mig-parted's config file (NVIDIA mig-parted
// "version: v1" format), the "config.yaml" key of the mig-manager ConfigMap.
type migPartedConfig struct {
	Version    string                      `json:"version"`
	MIGConfigs map[string][]migPartedEntry `json:"mig-configs"`
}

type migPartedEntry struct {
	Devices    string           `json:"devices"`
	MIGEnabled bool             `json:"mig-enabled"`
	MIGDevices map[string]int64 `json:"mig-devices,omitempty"`
}

// layoutCloud is what a custom MIG layout asks of the cloud: whether
// mig-manager runs there at all.
type layoutCloud interface {
	clouds.Named
	RejectsMIGLayouts() bool
}

// migManagerConfig validates the custom layouts and, when there are any,
// returns the mig-parted config holding them. A custom config replaces the
// operator's default one entirely, so it also carries "all-disabled" (the
// default layout) and every layout a node pool selects.
func migManagerConfig(cloud layoutCloud, block []any, layouts []MIGLayout, strategy string, pools nvidiaPools, diags *gpudiag.Diagnostics) string {
	if len(layouts) == 0 {
		return ""
	}
	if cloud.RejectsMIGLayouts() {
		diags.AddError(chartkit.With(block, "mig_layout"), "MIG layouts are not configurable on "+string(cloud.Name()),
			string(cloud.Name())+" partitions GPUs itself (GKE through the node pool's gpu_partition_size; EKS Auto Mode not at "+
				"all), so the GPU Operator's mig-manager does not run there. Allowed: remove mig_layout.")
		return ""
	}
	config := migPartedConfig{Version: "v1", MIGConfigs: map[string][]migPartedEntry{
		spec.MIGConfigDisabled: {{Devices: "all", MIGEnabled: false}},
	}}
	for _, name := range slices.Sorted(maps.Keys(pools.layouts)) {
		if slices.Contains(pools.layoutConflicts, name) {
			diags.AddError(chartkit.With(block, "mig_layout"), "Node pools disagree on MIG layout "+strconv.Quote(name),
				"A custom mig-parted config replaces the GPU Operator's, which names one layout per GPU model; two node "+
					"pools with different models use "+strconv.Quote(name)+", and one config cannot cut both. Allowed: "+
					"remove mig_layout (the operator's built-in config serves both pools).")
			continue
		}
		config.MIGConfigs[name] = []migPartedEntry{{Devices: "all", MIGEnabled: true, MIGDevices: pools.layouts[name]}}
	}
	for i, l := range layouts {
		path := chartkit.With(block, "mig_layout", i)
		devices, ok := checkMIGLayout(path, l, strategy, diags)
		if !ok {
			continue
		}
		if _, dup := config.MIGConfigs[l.Name]; dup {
			diags.AddError(chartkit.With(path, "name"), "Duplicate MIG layout",
				strconv.Quote(l.Name)+" is already defined (by another layout, a node pool, or as mig-manager's "+
					"\""+spec.MIGConfigDisabled+"\"). Allowed: a unique name.")
			continue
		}
		config.MIGConfigs[l.Name] = []migPartedEntry{{Devices: "all", MIGEnabled: true, MIGDevices: devices}}
	}
	out, err := yaml.Marshal(config)
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\n")
}

// checkMIGLayout checks one layout against its model's MIG profiles: each
// profile exists, fits as often as asked, and together they fit one GPU
// (catalog.MIGLayoutMisfit).
func checkMIGLayout(path []any, l MIGLayout, strategy string, diags *gpudiag.Diagnostics) (map[string]int64, bool) {
	ok := true
	if msgs := validation.IsValidLabelValue(l.Name); l.Name == "" || len(msgs) > 0 {
		diags.AddError(chartkit.With(path, "name"), "Invalid MIG layout name",
			strconv.Quote(l.Name)+" cannot be a value of the "+spec.LabelMIGConfig+" node label. Allowed: letters, digits, "+
				"'-', '_' or '.', at most 63, e.g. \"two-3g-one-1g\".")
		ok = false
	}
	a := catalog.Find(l.Accelerator)
	if a == nil || !a.OffersMIG() {
		diags.AddError(chartkit.With(path, "accelerator"), "Accelerator without MIG",
			strconv.Quote(l.Accelerator)+" is not a MIG-capable model. Allowed values: "+gpudiag.QuoteList(catalog.MIGAcceleratorNames())+".")
		return nil, false
	}
	if len(l.Devices) == 0 {
		diags.AddError(chartkit.With(path, "devices"), "Empty MIG layout",
			"A layout lists the MIG profiles of one GPU. Allowed: e.g. {\""+a.MIGProfiles[0].Name+"\" = 1}.")
		return nil, false
	}
	for _, name := range slices.Sorted(maps.Keys(l.Devices)) {
		count := l.Devices[name]
		p, known := a.LookupMIGProfile(name)
		switch {
		case !known:
			diags.AddError(chartkit.With(path, "devices", gpudiag.MapKey(name)), "Unknown MIG profile",
				strconv.Quote(name)+" is not a MIG profile of "+a.DisplayName+". Allowed values: "+gpudiag.QuoteList(a.MIGProfileNames())+".")
			ok = false
		case count < 1 || count > int64(p.InstancesPerGPU):
			diags.AddError(chartkit.With(path, "devices", gpudiag.MapKey(name)), "Invalid instance count",
				strconv.FormatInt(count, 10)+" instances of "+name+" per GPU. Allowed: 1 to "+strconv.Itoa(p.InstancesPerGPU)+".")
			ok = false
		}
	}
	if misfit := catalog.MIGLayoutMisfit(a, l.Devices); ok && misfit != "" {
		diags.AddError(chartkit.With(path, "devices"), "MIG layout does not fit", misfit+
			" Allowed: a combination from the MIG user guide's supported combinations for "+a.DisplayName+".")
		ok = false
	}
	if ok && len(l.Devices) > 1 && strategy == spec.MIGStrategySingle {
		diags.AddError(chartkit.With(path, "devices"), "Mixed layout under the single strategy",
			"Under mig_strategy \"single\" the device plugin requires every MIG device of a node to have the same profile. "+
				"Allowed: one profile per layout, or mig_strategy = \""+spec.MIGStrategyMixed+"\".")
		ok = false
	}
	return maps.Clone(l.Devices), ok
}

// poolLayoutDevices is what one GPU of a pool is cut into, in mig-parted's
// mig-devices form.
func poolLayoutDevices(p spec.PoolPolicy) map[string]int64 {
	_, cut, ok := pool.ResolvePoolPartition(p.Partition, catalog.Find(p.Accelerator))
	if !ok {
		return nil
	}
	out := map[string]int64{}
	for _, s := range cut {
		out[s.Profile.Name] = s.PerGPU
	}
	return out
}
