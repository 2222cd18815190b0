package gpuworkload

import (
	"reflect"
	"testing"
)

func podTemplate(nodeSelector, tolerations any) map[string]any {
	spec := map[string]any{}
	if nodeSelector != nil {
		spec["nodeSelector"] = nodeSelector
	}
	if tolerations != nil {
		spec["tolerations"] = tolerations
	}
	return map[string]any{"spec": map[string]any{"template": map[string]any{"spec": spec}}}
}

// TestWithoutKueueAdditions: what Kueue added at admission leaves the
// projection, the provider's own entries stay, and a rendered side that
// cannot be read hides nothing (it once read as empty, which dropped every
// live entry and so every drift in them).
func TestWithoutKueueAdditions(t *testing.T) {
	ours := map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
	kueues := map[string]any{"key": "spot", "operator": "Exists"}
	live := func() map[string]any {
		return podTemplate(map[string]any{"pool": "a100", "flavor": "on-demand"}, []any{ours, kueues})
	}

	projected := live()
	withoutKueueAdditions(projected, podTemplate(map[string]any{"pool": "a100"}, []any{ours}))
	if want := podTemplate(map[string]any{"pool": "a100"}, []any{ours}); !reflect.DeepEqual(projected, want) {
		t.Errorf("Kueue's additions must leave the projection:\n got %v\nwant %v", projected, want)
	}

	for name, desired := range map[string]map[string]any{
		"nodeSelector not a map":  podTemplate("pool=a100", []any{ours, kueues}),
		"tolerations not a list":  podTemplate(map[string]any{"pool": "a100", "flavor": "on-demand"}, "nvidia.com/gpu"),
		"template spec not a map": {"spec": map[string]any{"template": map[string]any{"spec": "?"}}},
	} {
		projected := live()
		withoutKueueAdditions(projected, desired)
		if !reflect.DeepEqual(projected, live()) {
			t.Errorf("%s: an unreadable rendered side must leave the projection as read:\n got %v\nwant %v", name, projected, live())
		}
	}
}
