package chartkit

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

type testInput struct{ Name string }

func testChart(block string, targets ...string) Chart[testInput] {
	return Chart[testInput]{
		Targets: targets,
		Block:   block,
		Generate: func(target string, _ clouds.Cloud, in testInput, _ bool) (map[string]any, gpudiag.Diagnostics) {
			return map[string]any{"target": target, "name": in.Name}, nil
		},
		Pods: func(string, map[string]any) ([]corev1.PodSpec, error) { return nil, nil },
	}
}

// withRegistry runs f on an empty registry and restores the one the test
// binary had.
func withRegistry(t *testing.T, f func()) {
	t.Helper()
	saved := registered
	registered = nil
	defer func() { registered = saved }()
	f()
}

func TestRegisterBindsEachTargetToItsBlock(t *testing.T) {
	withRegistry(t, func() {
		Register(testChart("b", "z-target", "a-target"))
		got := Registered()
		if names := []string{got[0].Name, got[1].Name}; !slices.Equal(names, []string{"a-target", "z-target"}) {
			t.Fatalf("Registered() names %q, want sorted", names)
		}
		in := &testInput{Name: "x"}
		if !got[1].IsSet(in) || got[1].IsSet(nil) || got[1].IsSet(&struct{}{}) {
			t.Error("IsSet must hold only for the chart's own non-nil input")
		}
		values, _ := got[1].Generate(in, clouds.Cloud{}, true)
		if values["target"] != "z-target" || values["name"] != "x" {
			t.Errorf("Generate got %v, want the bound target and the block's input", values)
		}
		if got[0].InputPath(in, []string{"k"}) != nil {
			t.Error("a chart without InputPath must map nothing")
		}
	})
}

func TestRegisterRefusesATargetOrBlockTwice(t *testing.T) {
	for name, second := range map[string]Chart[testInput]{
		"same target": testChart("other", "t"),
		"same block":  testChart("b", "u"),
	} {
		withRegistry(t, func() {
			Register(testChart("b", "t"))
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registering twice must panic", name)
				}
			}()
			Register(second)
		})
	}
}
