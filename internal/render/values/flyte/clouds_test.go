package flyte

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// TestFlyteCloudNotes: the notes moved from the GKE profile warn exactly
// where Flyte cannot express the placement: shared GPUs on GKE (Standard
// and Autopilot), Autopilot's accelerator selection, and GKE Standard's
// driver path on Flyte v2. Other clouds need none.
func TestFlyteCloudNotes(t *testing.T) {
	for _, cloud := range clouds.All() {
		var placement, v2 gpudiag.Diagnostics
		flyteCloudNotes(cloud, spec.SharingTimeSlicing, &placement)
		flyteV2Notes(cloud, &v2)
		switch cloud.Name() {
		case spec.CloudGKE:
			rendertest.RequireDiag(t, placement, gpudiag.SeverityWarning, "flyte.sharing", clouds.GKELabelSharingStrategy)
			rendertest.RequireDiag(t, v2, gpudiag.SeverityWarning, "flyte.flyte_version", clouds.GKENvidiaLibraryPath)
		case spec.CloudGKEAutopilot:
			rendertest.RequireDiag(t, placement, gpudiag.SeverityWarning, "flyte", clouds.GKELabelAcceleratorCount)
			rendertest.RequireDiag(t, placement, gpudiag.SeverityWarning, "flyte.sharing", clouds.GKELabelSharingStrategy)
			if len(v2) != 0 {
				t.Errorf("gke-autopilot: unexpected v2 notes:\n%s", rendertest.FormatDiags(v2))
			}
		default:
			if len(placement)+len(v2) != 0 {
				t.Errorf("%s: unexpected notes:\n%s", cloud.Name(), rendertest.FormatDiags(append(placement, v2...)))
			}
		}
	}
	var unshared gpudiag.Diagnostics
	flyteCloudNotes(clouds.Lookup(spec.CloudGKE), "", &unshared)
	if len(unshared) != 0 {
		t.Errorf("gke without sharing: unexpected notes:\n%s", rendertest.FormatDiags(unshared))
	}
}

// TestFlytekitDevices: every device belongs to a catalog model and is
// flytekit's "nvidia-" form; models without a constant get "".
func TestFlytekitDevices(t *testing.T) {
	for model, device := range flytekitDevices {
		a := catalog.Find(model)
		if a == nil {
			t.Errorf("%s: not a catalog model", model)
			continue
		}
		if Device(model) != device {
			t.Errorf("Device(%q) = %q, want %q", model, Device(model), device)
		}
		if !strings.HasPrefix(device, "nvidia-") {
			t.Errorf("%s: device %q is not flytekit's nvidia-<name> form", model, device)
		}
	}
	if Device("a30") != "" {
		t.Errorf(`Device("a30") = %q, want "" (flytekit has no A30 constant)`, Device("a30"))
	}
}

// TestPartitionLabelFromProfile: the partition label Flyte selects by is
// the one the cloud's profile names, only where the cloud labels partitions.
func TestPartitionLabelFromProfile(t *testing.T) {
	for _, cloud := range clouds.All() {
		values := mustGenerate(t, TargetCore, cloud.Name(), Values{})
		k8s, _ := values["configmap"].(map[string]any)["k8s"].(map[string]any)["plugins"].(map[string]any)["k8s"].(map[string]any)
		got, _ := k8s[KeyGPUPartitionSizeLabel].(string)
		if want := cloud.PartitionLabel(); got != want {
			t.Errorf("%s: %s = %q, want %q", cloud.Name(), KeyGPUPartitionSizeLabel, got, want)
		}
	}
}

// TestFlyteDeviceNotesOnGKE: GKE labels H100 and H200 nodes with values
// that are not flytekit's constants (docs/design/flyte.md), so a v1 task
// must name GKE's value and the values say which; where the constant is
// GKE's value (L4) nothing is said.
func TestFlyteDeviceNotesOnGKE(t *testing.T) {
	gke := clouds.Lookup(spec.CloudGKE)
	for model, want := range map[string]string{"h100-80gb": `"nvidia-h100-80gb"`, "h200": `"nvidia-h200-141gb"`} {
		var diags gpudiag.Diagnostics
		flyteDeviceNotes(gke, []*catalog.Accelerator{catalog.Find(model)}, &diags)
		rendertest.RequireDiag(t, diags, gpudiag.SeverityWarning, "flyte.accelerators[0]", "GPUAccelerator("+want+")")
	}
	var l4 gpudiag.Diagnostics
	flyteDeviceNotes(gke, []*catalog.Accelerator{catalog.Find("l4")}, &l4)
	if len(l4) != 0 {
		t.Errorf("l4 on gke: unexpected notes:\n%s", rendertest.FormatDiags(l4))
	}
}
