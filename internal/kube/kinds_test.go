package kube

import (
	"slices"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
)

// TestEveryKindIsServed is the kube layer's registration-driven table:
// every registered kind can be applied and read (a REST resource), is
// served by the watch cache, defaults to a wait mode this layer knows, and
// is judged by its own rule. A kind registered without one fails here.
func TestEveryKindIsServed(t *testing.T) {
	complete := map[string]any{"conditions": []any{map[string]any{"type": "Complete", "status": "True"}}}
	for _, k := range kinds.All() {
		t.Run(k.Name, func(t *testing.T) {
			if got := resources[k.GVK]; got != k.Resource {
				t.Errorf("REST resource of %v = %q, want %q", k.GVK, got, k.Resource)
			}
			if !cachedKinds[k.GVK.Kind] {
				t.Errorf("%s is not served by the watch cache", k.GVK.Kind)
			}
			if !slices.Contains(WaitModes(), k.Wait.Default) {
				t.Errorf("wait_for default %q is not one of %v", k.Wait.Default, WaitModes())
			}
			// An object with a Complete condition and no rollout status: a
			// kind that runs to completion is done, whatever wait_for says;
			// a serving kind is not rolled out by it. (A kind without pods
			// to wait for is never judged.)
			done, _ := judge(workloadIn(map[string]any{}, complete), k.GVK, WaitRollout)
			switch {
			case k.Wait.Completes && !done:
				t.Error("a completed object of a kind that runs to completion is not done")
			case k.Wait.Default == kindkit.WaitRollout && done:
				t.Error("an object without a rollout status is rolled out")
			}
		})
	}
}

// The names the kinds use for wait modes are this layer's.
func TestKindWaitModesAreKubes(t *testing.T) {
	for name, mode := range map[string]WaitMode{kindkit.WaitRollout: WaitRollout, kindkit.WaitComplete: WaitComplete, kindkit.WaitNone: WaitNone} {
		if name != string(mode) {
			t.Errorf("kindkit says %q where kube says %q", name, mode)
		}
	}
}
