package values

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
	"github.com/gpuform/terraform-provider-gpu/internal/testcharts"
)

// sharedChartFile reads one of the real upstream values files (and
// FiftyOne's schema) from the charts folder testcharts finds; see
// SOURCES.md there. They are read in place, never copied into the
// repository, and a test without them skips (or fails in CI).
func sharedChartFile(t *testing.T, name string) []byte {
	t.Helper()
	return testcharts.File(t, name)
}

func sharedChartValues(t *testing.T, name string) map[string]any {
	t.Helper()
	var values map[string]any
	if err := yaml.Unmarshal(sharedChartFile(t, name), &values); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	plain, err := chartkit.PlainMap(values)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

// chartDirFromShared builds a chart directory in a temp dir from a shared
// values file (and schema): enough for Helm's loader, coalescing and schema
// validation, which need no templates.
func chartDirFromShared(t *testing.T, name, valuesFile, schemaFile string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"Chart.yaml":  []byte("apiVersion: v2\nname: " + name + "\nversion: 0.0.0-test\n"),
		"values.yaml": sharedChartFile(t, valuesFile),
	}
	if schemaFile != "" {
		files["values.schema.json"] = sharedChartFile(t, schemaFile)
	}
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func casesFor(target string) []valuesCase {
	var out []valuesCase
	for _, c := range valuesCases() {
		if c.target == target && !c.wantError {
			out = append(out, c)
		}
	}
	return out
}

// TestFiftyOneValuesMatchSchema validates every generated FiftyOne output
// against the chart's real values.schema.json: alone, merged over the
// chart's defaults, and through a chart directory exactly as helm install
// would (ValidateAgainstChart).
func TestFiftyOneValuesMatchSchema(t *testing.T) {
	schema := sharedChartFile(t, "fiftyone-teams-app.values.schema.json")
	defaults := sharedChartValues(t, "fiftyone-teams-app.values.yaml")
	chartDir := chartDirFromShared(t, "fiftyone-teams-app", "fiftyone-teams-app.values.yaml", "fiftyone-teams-app.values.schema.json")
	for _, c := range casesFor(TargetFiftyOne) {
		values := mustGenerate(t, c.target, c.input)
		if diags := ValidateAgainstSchemaJSON(schema, values); len(diags) > 0 {
			t.Errorf("%s: generated values violate the schema:\n%s", c.name, rendertest.FormatDiags(diags))
		}
		merged, err := chartkit.MergeBaseValues([]map[string]any{defaults}, values)
		if err != nil {
			t.Fatal(err)
		}
		if diags := ValidateAgainstSchemaJSON(schema, merged); len(diags) > 0 {
			t.Errorf("%s: values merged over the defaults violate the schema:\n%s", c.name, rendertest.FormatDiags(diags))
		}
		if diags := ValidateAgainstChart(chartDir, values); len(diags) > 0 {
			t.Errorf("%s: chart validation:\n%s", c.name, rendertest.FormatDiags(diags))
		}
	}
}

// TestSchemaViolationsMapToInputs: a hand-written value of the wrong type
// is reported at its place in the values, and RemapDiagnostics moves
// it to the input attribute.
func TestSchemaViolationsMapToInputs(t *testing.T) {
	chartDir := chartDirFromShared(t, "fiftyone-teams-app", "fiftyone-teams-app.values.yaml", "fiftyone-teams-app.values.schema.json")
	in := fiftyOneInput(spec.CloudEKS,
		fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "gpu", GPU: &spec.GPU{Count: 1}}},
		fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: fiftyone.CPUDefaultKey, CPU: "4"}})
	values := mustGenerate(t, TargetFiftyOne, in)
	bad, _ := chartkit.GetPath(values, "delegatedOperatorDeployments", "deployments", fiftyone.CPUDefaultKey, "resources", "limits")
	asMap(t, bad)["cpu"] = "4" // what a naive generator would write
	chartkit.SetPath(values, int64(0), "delegatedOperatorDeployments", "deployments", "gpu", "replicaCount")

	diags := ValidateAgainstChart(chartDir, values)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "values.delegatedOperatorDeployments.deployments.teamsDoCpuDefault.resources.limits.cpu", "want integer")
	remapped := RemapDiagnostics(TargetFiftyOne, in, diags)
	rendertest.RequireDiag(t, remapped, gpudiag.SeverityError, "fiftyone.deployment[1].cpu", "want integer")

	// The template's replicaCount minimum applies to the template only:
	// deployments.<key> is an open map in the schema.
	if _, found := rendertest.FindDiag(diags, gpudiag.SeverityError, "values.delegatedOperatorDeployments.deployments.gpu.replicaCount", ""); found {
		t.Error("deployments other than teamsDoCpuDefault are not typed by the schema")
	}

	if diags := ValidateAgainstChart(filepath.Join(t.TempDir(), "missing"), values); !diags.HasError() {
		t.Error("a missing chart must be an error")
	}
}

// openMaps are values paths where a chart reads arbitrary keys ("*" is any
// one key), so generated keys below them need not exist in the defaults.
var openMaps = map[string][][]string{
	TargetFiftyOne: {
		{"delegatedOperatorDeployments", "deployments", "*"},
		{"delegatedOperatorJobTemplates", "jobs", "*"},
	},
	TargetFlyteCore:   {{"configmap", "k8s", "plugins", "k8s"}},
	TargetFlyteBinary: {{"configuration", "inline"}},
	TargetGPUOperator: {
		{"devicePlugin", "config", "data"},
		{"migManager", "config", "data"},
	},
	TargetNvidiaDevicePlugin: {{"config", "map"}},
}

var chartDefaultsFile = map[string]string{
	TargetFiftyOne:           "fiftyone-teams-app.values.yaml",
	TargetFlyteCore:          "flyte-core.values.master.yaml",
	TargetFlyteBinary:        "flyte-binary.values.master.yaml",
	TargetGPUOperator:        "gpu-operator.values.main.yaml",
	TargetNvidiaDevicePlugin: "nvidia-device-plugin.values.main.yaml",
}

// flyteDomainKeys are the k8s plugin keys of docs/design/flyte.md#plugin-config-keys (v1 table and
// the v2-only keys).
var flyteDomainKeys = []string{
	"gpu-resource-name", "gpu-device-node-label", "gpu-partition-size-node-label", "gpu-unpartitioned-node-selector-requirement",
	"gpu-unpartitioned-toleration", "resource-tolerations", "add-tolerations-for-extended-resources", "default-tolerations",
	"default-node-selector", "default-affinity", "interruptible-tolerations", "interruptible-node-selector",
	"interruptible-node-selector-requirement", "non-interruptible-node-selector-requirement", "default-annotations",
	"default-labels", "default-env-vars", "default-env-vars-from-env", "default-env-from-configmaps",
	"default-env-from-secrets", "default-cpus", "default-memory", "accelerator-devices", "accelerator-device-classes",
}

// TestValuesKeyPathsExistInChartDefaults: every generated path exists in
// the chart's real default values, except below the charts' open maps;
// there, FiftyOne entries use only keys the template declares (or the
// chart's per-entry extras) and Flyte only keys of docs/design/flyte.md#plugin-config-keys.
func TestValuesKeyPathsExistInChartDefaults(t *testing.T) {
	fiftyOne := sharedChartValues(t, chartDefaultsFile[TargetFiftyOne])
	for target, file := range chartDefaultsFile {
		defaults := sharedChartValues(t, file)
		for _, c := range casesFor(target) {
			values := mustGenerate(t, c.target, c.input)
			checkPathsExist(t, c.target+"/"+c.name, values, defaults, nil, openMaps[target])
			if check := openMapKeyChecks[target]; check != nil {
				check(t, c, values, fiftyOne)
			}
		}
	}
	// Flyte v2's chart has configuration.inline too.
	v2 := sharedChartValues(t, "flyte-binary.values.main-v2.yaml")
	if _, ok := chartkit.GetPath(v2, "configuration", "inline"); !ok {
		t.Error("flyte-binary v2 has no configuration.inline")
	}
}

// openMapKeyChecks check, per target, the keys below the chart's open maps.
var openMapKeyChecks = map[string]func(t *testing.T, c valuesCase, values, fiftyOneDefaults map[string]any){
	TargetFiftyOne: func(t *testing.T, c valuesCase, values, fiftyOneDefaults map[string]any) {
		t.Helper()
		checkFiftyOneEntryKeys(t, c.name, values, fiftyOneDefaults)
	},
	TargetFlyteCore:   checkFlyteCaseKeys,
	TargetFlyteBinary: checkFlyteCaseKeys,
}

func checkFlyteCaseKeys(t *testing.T, c valuesCase, values, _ map[string]any) {
	t.Helper()
	checkFlyteKeys(t, c.target+"/"+c.name, values)
}

func checkPathsExist(t *testing.T, name string, generated, defaults map[string]any, path []string, open [][]string) {
	t.Helper()
	for _, key := range slices.Sorted(maps.Keys(generated)) {
		here := append(slices.Clone(path), key)
		if matchesOpen(here, open) {
			continue
		}
		def, ok := defaults[key]
		if !ok {
			t.Errorf("%s: %s is not a key of the chart's default values", name, strings.Join(here, "."))
			continue
		}
		sub, isMap := generated[key].(map[string]any)
		defMap, defIsMap := def.(map[string]any)
		if isMap && defIsMap && len(defMap) > 0 {
			checkPathsExist(t, name, sub, defMap, here, open)
		}
		// A null, an empty map ({}: nodeSelector, resources) or a list in
		// the defaults takes any value.
	}
}

func matchesOpen(path []string, open [][]string) bool {
	for _, o := range open {
		if len(path) != len(o) {
			continue
		}
		match := true
		for i := range o {
			if o[i] != "*" && o[i] != path[i] {
				match = false
			}
		}
		if match {
			return true
		}
	}
	return false
}

// checkFiftyOneEntryKeys: an entry may only use the template's keys, plus
// what the templates read per entry (enabled; parallelism for jobs).
func checkFiftyOneEntryKeys(t *testing.T, name string, values, defaults map[string]any) {
	t.Helper()
	for _, s := range []struct{ section, list, extra string }{
		{"delegatedOperatorDeployments", "deployments", ""},
		{"delegatedOperatorJobTemplates", "jobs", "parallelism"},
	} {
		template, _ := chartkit.GetPath(defaults, s.section, "template")
		entries, _ := chartkit.GetPath(values, s.section, s.list)
		em, _ := entries.(map[string]any)
		for key, entry := range em {
			for field, v := range asMap(t, entry) {
				if field == "enabled" || field == s.extra {
					continue
				}
				def, ok := chartkit.GetPath(asMap(t, template), field)
				if !ok {
					t.Errorf("%s: %s.%s.%s.%s is not a key of the chart's %s.template", name, s.section, s.list, key, field, s.section)
					continue
				}
				if sub, isMap := v.(map[string]any); isMap {
					if defMap, ok := def.(map[string]any); ok && len(defMap) > 0 {
						checkPathsExist(t, name, sub, defMap, []string{s.section, s.list, key, field}, [][]string{
							{s.section, s.list, key, "resources", "limits"}, {s.section, s.list, key, "resources", "requests"},
							// env is a map of any variables (the template lists defaults).
							{s.section, s.list, key, "env", "*"},
						})
					}
				}
			}
		}
	}
}

func checkFlyteKeys(t *testing.T, name string, values map[string]any) {
	t.Helper()
	target := strings.SplitN(name, "/", 2)[0]
	k8s, ok := chartkit.GetPath(values, flyte.PluginPath(target)...)
	if !ok {
		t.Errorf("%s: no %s", name, strings.Join(flyte.PluginPath(target), "."))
		return
	}
	for key := range asMap(t, k8s) {
		if !slices.Contains(flyteDomainKeys, key) {
			t.Errorf("%s: %s is not a k8s plugin key of docs/design/flyte.md#plugin-config-keys", name, key)
		}
	}
	if flyte.ContainsTemplate(values) {
		t.Errorf("%s: Flyte values contain {{", name)
	}
}

func TestFlyteGPUKeysAreDomainKeys(t *testing.T) {
	for _, k := range flyte.GPUKeys() {
		if !slices.Contains(flyteDomainKeys, k) {
			t.Errorf("%s is not in docs/design/flyte.md#plugin-config-keys", k)
		}
	}
	// The chart paths exist in the real values files.
	if _, ok := chartkit.GetPath(sharedChartValues(t, chartDefaultsFile[TargetFlyteCore]), flyte.PluginPath(TargetFlyteCore)...); !ok {
		t.Error("flyte-core has no configmap.k8s.plugins.k8s")
	}
	if _, ok := chartkit.GetPath(sharedChartValues(t, chartDefaultsFile[TargetFlyteBinary]), "configuration", "inline"); !ok {
		t.Error("flyte-binary has no configuration.inline")
	}
	// gke-starter.yaml, the chart's own GPU example, uses the same labels
	// as our GKE values.
	starter := sharedChartValues(t, "flyte-binary.gke-starter.master.yaml")
	k8s := asMap(t, valueAt(t, starter, flyte.PluginPath(TargetFlyteBinary)...))
	if k8s[flyte.KeyGPUDeviceNodeLabel] != clouds.GKELabelAccelerator || k8s[flyte.KeyGPUPartitionSizeLabel] != clouds.GKELabelPartitionSize {
		t.Errorf("gke-starter labels differ: %v", k8s)
	}
}

// TestNvidiaChartDefaultsUnchanged: the generated lists replace the
// charts' defaults, so the copies kept in front must equal the real ones.
func TestNvidiaChartDefaultsUnchanged(t *testing.T) {
	operator := sharedChartValues(t, chartDefaultsFile[TargetGPUOperator])
	plugin := sharedChartValues(t, chartDefaultsFile[TargetNvidiaDevicePlugin])
	check := func(name string, values map[string]any, path []string, into, want any) {
		t.Helper()
		if err := chartkit.DecodePlain(valueAt(t, values, path...), into); err != nil {
			t.Fatal(err)
		}
		got, _ := chartkit.ToPlain(into)
		wantPlain, _ := chartkit.ToPlain(want)
		a, _ := chartkit.CanonicalYAML(map[string]any{"v": got})
		b, _ := chartkit.CanonicalYAML(map[string]any{"v": wantPlain})
		if a != b {
			t.Errorf("%s %s changed upstream:\n%s\nwe keep:\n%s", name, strings.Join(path, "."), a, b)
		}
	}
	check("gpu-operator", operator, []string{"daemonsets", "tolerations"}, &[]corev1.Toleration{}, nvidia.GPUOperatorDaemonsetTolerations)
	check("gpu-operator", operator, []string{"node-feature-discovery", "worker", "tolerations"}, &[]corev1.Toleration{}, nvidia.GPUOperatorNFDWorkerTolerations)
	check("nvidia-device-plugin", plugin, []string{"tolerations"}, &[]corev1.Toleration{}, nvidia.DevicePluginChartTolerations)
	check("nvidia-device-plugin", plugin, []string{"affinity"}, &corev1.Affinity{}, clouds.RequiredAffinity(nvidia.DevicePluginChartAffinityTerms))
	check("nvidia-device-plugin", plugin, []string{"nfd", "worker", "tolerations"}, &[]corev1.Toleration{}, nvidia.DevicePluginNFDWorkerTolerations)
	if valueAt(t, operator, "mig", "strategy") != spec.MIGStrategySingle {
		t.Error("gpu-operator's default mig.strategy changed")
	}
	if _, ok := chartkit.GetPath(plugin, "config", "map"); !ok {
		t.Error("nvidia-device-plugin has no config.map")
	}
}
