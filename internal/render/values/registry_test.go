package values

import (
	"slices"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
)

// TestRegistryTargets: the registry answers for every target the provider
// documents, sorted, each name once, and every target has a block and a
// grid case of its own (so a newly registered chart cannot go untested).
func TestRegistryTargets(t *testing.T) {
	want := []string{"fiftyone", "flyte-binary", "flyte-core", "gpu-operator", "numaflow", "nvidia-device-plugin"}
	if got := TargetNames(); !slices.Equal(got, want) {
		t.Fatalf("TargetNames() = %q, want %q", got, want)
	}
	for _, name := range TargetNames() {
		e, ok := lookup(name)
		switch {
		case !ok:
			t.Errorf("%s: not found by lookup", name)
		case e.Block == "":
			t.Errorf("%s: registered without a block", name)
		}
		if _, ok := gridCases[name]; !ok {
			t.Errorf("%s: no grid case in cases_test.go", name)
		}
	}
	if _, ok := lookup("helm"); ok {
		t.Error(`lookup("helm") found a target`)
	}
}

// TestSetBlocksOncePerBlock: flyte-core and flyte-binary share a block,
// which is named once.
func TestSetBlocksOncePerBlock(t *testing.T) {
	in := valuesCases()[0].input
	for _, c := range valuesCases() {
		if c.input.Blocks[flyte.Block] != nil {
			in.Blocks[flyte.Block] = c.input.Blocks[flyte.Block]
			break
		}
	}
	if got := in.setBlocks(); !slices.Equal(got, []string{"fiftyone", "flyte"}) {
		t.Errorf("setBlocks() = %q, want [fiftyone flyte]", got)
	}
}
