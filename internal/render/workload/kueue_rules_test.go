package workload

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// queuedDRA is a queued generic-cluster workload with a gpu.dra block,
// judged by Kueue release k ("" for unknown).
func queuedDRA(g spec.GPU, d spec.DRA, k string) spec.Workload {
	w := draWorkload(g, d)
	w.Queue = "team-a"
	known := kueuever.Known{From: "no cluster is configured"}
	if k != "" {
		known = kueuever.FromSetting(k)
	}
	w.Kueue = &known
	return w
}

// TestKueueRulesByRelease: each release-dependent rule of a queued DRA
// workload, release by release. want is the diagnostic's path ("" for
// none), and it must name the release it judged by. Sources:
//   - CEL selectors: kueue#9742, pkg/dra/claims.go at v0.17.8 and v0.18.0;
//   - constraints (gpu.dra.same): kueue#12471 (v0.18.2), kueue#12451 (v0.19.0);
//   - firstAvailable: pkg/dra/claims.go refuses it from v0.17.0 to main;
//   - DRA with TAS: Kueue's DRA documentation, v0.17.0 to main;
//   - the DRA gate: pkg/features/kube_features.go at v0.17.0 and v0.18.0 (kueue#10996).
func TestKueueRulesByRelease(t *testing.T) {
	h100 := spec.GPU{Count: 1, Accelerator: "h100-80gb"}
	class := spec.DRA{DeviceClass: "h100.gpu.gpuform.io"}
	topo := func(w spec.Workload) spec.Workload {
		w.Topology = &spec.WorkloadTopology{Level: "node"}
		return w
	}
	for _, tc := range []struct {
		name, kueue string
		w           spec.Workload
		severity    gpudiag.Severity
		path, want  string
	}{
		{"selectors refused", "v0.17", queuedDRA(h100, spec.DRA{Selectors: []string{productH100}}, "v0.17"),
			gpudiag.SeverityError, "gpu.dra", "Kueue v0.17 refuses (\"CEL selectors are not supported\")"},
		{"selectors refused, unknown release", "", queuedDRA(h100, spec.DRA{Selectors: []string{productH100}}, ""),
			gpudiag.SeverityError, "gpu.dra", "assumed because kueue_version is not set"},
		{"selectors accepted", "v0.18", queuedDRA(h100, spec.DRA{Selectors: []string{productH100}}, "v0.18"), 0, "", ""},
		{"derived selectors accepted", "v0.21", queuedDRA(h100, spec.DRA{MinMemory: "40Gi"}, "v0.21"), 0, "", ""},
		{"constraints refused", "v0.18.1", queuedDRA(h100, spec.DRA{DeviceClass: class.DeviceClass, Same: spec.DRASamePCIeRoot}, "v0.18.1"),
			gpudiag.SeverityError, "gpu.dra.same", "Kueue v0.18.1 refuses (\"device constraints"},
		{"constraints refused in v0.18.0", "v0.18", queuedDRA(h100, spec.DRA{DeviceClass: class.DeviceClass, Same: spec.DRASamePCIeRoot}, "v0.18"),
			gpudiag.SeverityError, "gpu.dra.same", "from v0.18.2 in the v0.18 line and v0.19.0 on"},
		{"constraints accepted", "v0.18.2", queuedDRA(h100, spec.DRA{DeviceClass: class.DeviceClass, Same: spec.DRASamePCIeRoot}, "v0.18.2"), 0, "", ""},
		{"constraints accepted in v0.19", "v0.19", queuedDRA(h100, spec.DRA{DeviceClass: class.DeviceClass, Same: spec.DRASamePCIeRoot}, "v0.19"), 0, "", ""},
		{"firstAvailable refused", "v0.21", queuedDRA(spec.GPU{Count: 1, Accelerators: []string{"h200", "h100-80gb"}}, spec.DRA{}, "v0.21"),
			gpudiag.SeverityError, "gpu.accelerators", "in no release up to v0.21"},
		{"DRA with TAS refused", "v0.20", topo(queuedDRA(h100, class, "v0.20")),
			gpudiag.SeverityError, "topology", "Kueue v0.20, from the provider's kueue_version"},
		{"DRA with TAS refused in v0.17", "v0.17", topo(queuedDRA(h100, class, "v0.17")),
			gpudiag.SeverityError, "topology", "No DRA + Topology Aware Scheduling"},
		{"gate off by default", "v0.17", queuedDRA(h100, class, "v0.17"),
			gpudiag.SeverityWarning, "queue", "DynamicResourceAllocation feature gate"},
		{"gate on by default", "v0.18", queuedDRA(h100, class, "v0.18"), 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diags := Validate(tc.w)
			if tc.path == "" {
				for _, d := range diags {
					if strings.Contains(d.Summary+d.Detail, "Kueue") {
						t.Errorf("%s: unexpected diagnostic: %s: %s", tc.kueue, d.Summary, d.Detail)
					}
				}
				return
			}
			rendertest.RequireDiag(t, diags, tc.severity, tc.path, tc.want)
			d, _ := rendertest.FindDiag(diags, tc.severity, tc.path, tc.want)
			name := "Kueue " + tc.kueue
			if tc.kueue == "" {
				name = "Kueue v0.17"
			}
			if !strings.Contains(d.Summary+d.Detail, name) {
				t.Errorf("the diagnostic does not name %s: %s: %s", name, d.Summary, d.Detail)
			}
		})
	}
}

// TestKueueRulesWaitForThePlan: without the provider's configuration
// (validating the configuration alone) the release is not known and no
// release-dependent rule runs; at plan their findings are Final, so the
// plan reports them.
func TestKueueRulesWaitForThePlan(t *testing.T) {
	w := queuedDRA(spec.GPU{Count: 1, Accelerator: "h100-80gb"}, spec.DRA{Selectors: []string{productH100}}, "v0.17")
	for _, d := range Validate(w) {
		if strings.Contains(d.Summary, "Kueue v0.17") && !d.Final {
			t.Errorf("not Final: %s", d.Summary)
		}
	}
	w.Kueue = nil
	for _, d := range Validate(w) {
		if strings.Contains(d.Summary+d.Detail, "Kueue v0.17") {
			t.Errorf("judged without a release: %s", d.Summary)
		}
	}
}

// TestKueueRulesOnlyForKueue: another queue scheduler is judged by none of
// Kueue's rules.
func TestKueueRulesOnlyForKueue(t *testing.T) {
	w := queuedDRA(spec.GPU{Count: 1, Accelerator: "h100-80gb"}, spec.DRA{Selectors: []string{productH100}}, "v0.17")
	w.QueueScheduler = spec.QueueSchedulerVolcano
	for _, d := range Validate(w) {
		if strings.Contains(d.Summary+d.Detail, "Kueue v0.17") {
			t.Errorf("Volcano's workload judged by Kueue: %s", d.Summary)
		}
	}
}
