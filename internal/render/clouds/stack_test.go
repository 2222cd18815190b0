package clouds_test

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// TestPartitionLabel: only GKE (Standard and Autopilot) names a node's MIG
// partition in a label of its own; the chart values select on it.
func TestPartitionLabel(t *testing.T) {
	for _, name := range clouds.Names() {
		want := ""
		if c := spec.Cloud(name); c == spec.CloudGKE || c == spec.CloudGKEAutopilot {
			want = clouds.GKELabelPartitionSize
		}
		if got := clouds.Lookup(spec.Cloud(name)).PartitionLabel(); got != want {
			t.Errorf("%s: PartitionLabel() = %q, want %q", name, got, want)
		}
	}
}

// TestGKEMPSHostIPC pins the one wording of the MPS rule that FiftyOne,
// Numaflow and workload patches share.
func TestGKEMPSHostIPC(t *testing.T) {
	for cannotSet, want := range map[string]string{
		"":                  "GKE's MPS daemon needs hostIPC: true on the pod. ",
		"a Numaflow vertex": "GKE's MPS daemon serves clients over host IPC, and a Numaflow vertex cannot set hostIPC on its pods. ",
	} {
		if got := clouds.GKEMPSHostIPC(cannotSet); got != want {
			t.Errorf("GKEMPSHostIPC(%q) = %q, want %q", cannotSet, got, want)
		}
	}
}
