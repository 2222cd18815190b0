package values

import (
	"slices"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
)

// TestRegistryTargets: the registry answers for every target the provider
// documents, in that order, each name once, and every target has a block,
// the callbacks the front door dispatches to, and a grid case of its own
// (so a newly registered chart cannot go untested).
func TestRegistryTargets(t *testing.T) {
	want := []string{"fiftyone", "flyte-core", "flyte-binary", "gpu-operator", "nvidia-device-plugin", "numaflow"}
	if got := TargetNames(); !slices.Equal(got, want) {
		t.Fatalf("TargetNames() = %q, want %q", got, want)
	}
	for _, name := range TargetNames() {
		e, ok := lookup(name)
		switch {
		case !ok:
			t.Errorf("%s: not found by lookup", name)
		case e.block == "" || e.isSet == nil || e.generate == nil || e.pods == nil || e.inputPath == nil:
			t.Errorf("%s: incomplete registration %+v", name, e)
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
