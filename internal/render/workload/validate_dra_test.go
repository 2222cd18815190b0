package workload

import (
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// draWorkload is a generic-cluster workload with a gpu.dra block.
func draWorkload(g spec.GPU, d spec.DRA) spec.Workload {
	w := rendertest.ValidWorkload()
	w.Cloud = string(spec.CloudGeneric)
	g.DRA = &d
	w.GPU = g
	return w
}

const productH100 = `device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3"`

// TestDRARules: each rule of the gpu.dra block, on the path of the value
// that caused it.
func TestDRARules(t *testing.T) {
	h100 := spec.GPU{Count: 2, Accelerator: "h100-80gb"}
	for _, tc := range []struct {
		name     string
		w        spec.Workload
		severity gpudiag.Severity
		path     string
		detail   string
	}{
		{"selector that does not compile", draWorkload(h100, spec.DRA{Selectors: []string{productH100, "device.attributes["}}),
			gpudiag.SeverityError, "gpu.dra.selectors[1]", "Kubernetes' DRA CEL library refuses the selector"},
		{"removed attribute", draWorkload(h100, spec.DRA{Selectors: []string{`device.attributes["gpu.nvidia.com"].index == 0`}}),
			gpudiag.SeverityError, "gpu.dra.selectors[0]", `"index" (gpu.nvidia.com attribute) was removed in driver v25.8.0`},
		{"selector contradicting the accelerator", draWorkload(h100, spec.DRA{Selectors: []string{`device.attributes["gpu.nvidia.com"].productName == "NVIDIA H200"`}}),
			gpudiag.SeverityError, "gpu.dra.selectors[0]", `false on every device NVIDIA's DRA driver publishes for NVIDIA H100 80GB`},
		{"selector contradicting the partition", draWorkload(spec.GPU{Count: 1, Accelerator: "h100-80gb", Partition: "3g.40gb"},
			spec.DRA{Selectors: []string{`device.attributes["gpu.nvidia.com"].profile == "7g.80gb"`}}),
			gpudiag.SeverityError, "gpu.dra.selectors[0]", `profile = "3g.40gb"`},
		{"whole-GPU class with a partition", draWorkload(spec.GPU{Count: 1, Accelerator: "h100-80gb", Partition: "3g.40gb"}, spec.DRA{DeviceClass: "gpu.nvidia.com"}),
			gpudiag.SeverityError, "gpu.dra.device_class", `set it to "mig.nvidia.com"`},
		{"min_memory not a quantity", draWorkload(h100, spec.DRA{MinMemory: "lots"}),
			gpudiag.SeverityError, "gpu.dra.min_memory", `Allowed: e.g. "40Gi"`},
		{"min_memory above what NVML reports", draWorkload(h100, spec.DRA{MinMemory: "80Gi"}),
			gpudiag.SeverityError, "gpu.dra.min_memory", `more than NVIDIA H100 80GB (81559Mi) has`},
		{"min_memory above the nominal size", draWorkload(spec.GPU{Count: 1, Accelerator: "l4"}, spec.DRA{MinMemory: "25Gi"}),
			gpudiag.SeverityError, "gpu.dra.min_memory", `NVIDIA L4 (24Gi)`},
		{"min_memory rules out one preference", draWorkload(spec.GPU{Count: 1, Accelerators: []string{"h200", "h100-80gb"}}, spec.DRA{MinMemory: "100Gi"}),
			gpudiag.SeverityWarning, "gpu.dra.min_memory", "never takes it"},
		{"unknown same", draWorkload(h100, spec.DRA{Same: "socket"}),
			gpudiag.SeverityError, "gpu.dra.same", `Allowed values: "pcie-root", "numa-node"`},
		{"NUMA node not published by driver v0.4.x", draWorkload(h100, spec.DRA{Same: "numa-node"}),
			gpudiag.SeverityWarning, "gpu.dra.same", "publishes from v0.5.0 on"},
		{"model without a recorded product name", draWorkload(spec.GPU{Count: 1, Accelerator: "l4"}, spec.DRA{}),
			gpudiag.SeverityWarning, "gpu.accelerator", `"h100-80gb", "h200"`},
		{"variants without a recorded name on a generic cluster", draWorkload(h100, spec.DRA{}),
			gpudiag.SeverityWarning, "gpu.accelerator", `"NVIDIA-H100-PCIe"`},
		{"preference without a recorded name", draWorkload(spec.GPU{Count: 1, Accelerators: []string{"h200", "l4"}}, spec.DRA{}),
			gpudiag.SeverityError, "gpu.accelerators[1]", "its entry would take any GPU"},
		{"Kueue refuses selectors", func() spec.Workload {
			w := draWorkload(h100, spec.DRA{})
			w.Queue = "team-a"
			w.Kueue = &kueuever.Known{}
			return w
		}(), gpudiag.SeverityError, "gpu.dra", `"CEL selectors are not supported"`},
		{"too many preferences", draWorkload(spec.GPU{Count: 1, Accelerators: []string{"a10", "a100-40gb", "a100-80gb", "a10g", "a30", "b200", "h100-80gb", "h200", "l4"}}, spec.DRA{}),
			gpudiag.SeverityError, "gpu.accelerators", "at most 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rendertest.RequireDiag(t, Validate(tc.w), tc.severity, tc.path, tc.detail)
		})
	}
}

// TestDRAValidRequestsAreClean: what the derivation covers raises
// nothing, on a cloud whose machines carry the recorded part.
func TestDRAValidRequestsAreClean(t *testing.T) {
	for name, g := range map[string]spec.GPU{
		"accelerator":   {Count: 2, Accelerator: "h100-80gb", DRA: &spec.DRA{MinMemory: "40Gi", Same: "pcie-root"}},
		"partition":     {Count: 3, Accelerator: "h200", Partition: "3g.71gb", DRA: &spec.DRA{}},
		"preferences":   {Count: 1, Accelerators: []string{"h200", "h100-80gb"}, DRA: &spec.DRA{}},
		"raw selectors": {Count: 1, Accelerator: "h100-80gb", DRA: &spec.DRA{Selectors: []string{productH100}}},
		"any GPU":       {Count: 1, DRA: &spec.DRA{}},
	} {
		t.Run(name, func(t *testing.T) {
			w := rendertest.ValidWorkload()
			w.GPU = g
			if diags := Validate(w); len(diags) > 0 {
				t.Fatalf("unexpected diagnostics:\n%s", rendertest.FormatDiags(diags))
			}
		})
	}
}

// TestDRAClassOnlyClaimsAreKueuesShape: a queued workload naming its
// own class gets no Kueue warning (from v0.18, where Kueue's DRA
// integration is on by default: kueue_rules_test.go has v0.17's).
func TestDRAClassOnlyClaimsAreKueuesShape(t *testing.T) {
	w := rendertest.ValidWorkload()
	w.Queue = "team-a"
	k := kueuever.FromSetting("v0.18")
	w.Kueue = &k
	w.GPU = spec.GPU{Count: 1, Accelerator: "l4", DRA: &spec.DRA{DeviceClass: "l4.gpu.gpuform.io"}}
	if diags := Validate(w); len(diags) > 0 {
		t.Fatalf("unexpected diagnostics:\n%s", rendertest.FormatDiags(diags))
	}
}

// TestDRAPreferencesNeedV1: a preference list renders as firstAvailable
// on 1.34 and is refused, on gpu.accelerators, on 1.33.
func TestDRAPreferencesNeedV1(t *testing.T) {
	w := rendertest.ValidWorkload()
	w.GPU = spec.GPU{Count: 1, Accelerators: []string{"h200", "h100-80gb"}, DRA: &spec.DRA{}}
	r, diags := ResolveAndRender(w, Options{ServerVersion: utilversion.MajorMinor(1, 34)})
	rendertest.RequireNoErrors(t, diags)
	if req := r.ResourceClaimTemplateV1.Spec.Spec.Devices.Requests[0]; len(req.FirstAvailable) != 2 || req.FirstAvailable[0].Name != "h200" {
		t.Errorf("want firstAvailable h200, h100-80gb; got %+v", req)
	}
	r, diags = ResolveAndRender(w, Options{ServerVersion: utilversion.MajorMinor(1, 33)})
	if r != nil {
		t.Fatal("a preference list must not render for 1.33")
	}
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu.accelerators", "1.34")
}

// TestDRARequestWithoutDRABlock: a workload on a DRA pool asks for the
// same claim from its GPU intent alone.
func TestDRARequestWithoutDRABlock(t *testing.T) {
	w := rendertest.ValidWorkload()
	w.GPU = spec.GPU{Count: 2, Accelerator: "h100-80gb"}
	resolved := Resolve(w, nil, true)
	template, ok := DRAClaimTemplate(DRARequestOf(w.GPU, resolved.Intent), ObjectMeta(w), DRAAPIVersionV1).(*resourcev1.ResourceClaimTemplate)
	if !ok {
		t.Fatal("v1 renders a resource.k8s.io/v1 ResourceClaimTemplate")
	}
	exact := template.Spec.Spec.Devices.Requests[0].Exactly
	if exact == nil || exact.Count != 2 || len(exact.Selectors) != 1 || exact.Selectors[0].CEL.Expression != productH100 {
		t.Errorf("got %+v", exact)
	}
	if template.Name != "llm-gpu" || !strings.HasPrefix(template.APIVersion, "resource.k8s.io/") {
		t.Errorf("template %s %s", template.APIVersion, template.Name)
	}
}
