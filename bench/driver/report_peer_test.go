package main

import (
	"strings"
	"testing"
)

// The share table subtracts the provider's CPU from terraform's and divides
// the state file by the resources it holds, per subject, medians over runs.
func TestTerraformShare(t *testing.T) {
	gw := func(run int, cpu, provider float64, state int64) measurement {
		return measurement{Run: run, N: 100, Subject: subjectGPU, StateBytes: state,
			CPUSeconds:         map[string]float64{stepApply: cpu, stepDestroy: cpu + 1},
			ProviderCPUSeconds: map[string]float64{stepApply: provider, stepDestroy: provider}}
	}
	results := []measurement{
		gw(1, 4.5, 1.5, 690_000),
		gw(2, 5.5, 1.5, 710_000),
		{Run: 1, N: 100, Subject: subjectData, StateBytes: 20_000,
			CPUSeconds: map[string]float64{stepApply: 0.8, stepDestroy: 1.2}},
	}
	var b strings.Builder
	terraformShare(&b, []int{100}, results)
	got := b.String()
	for _, want := range []string{
		"| 100 | state per resource | 7.0 KB | – | 0.2 KB |",
		"| 100 | apply, Terraform's own CPU | 3.50 s | – | 0.80 s |",
		"| 100 | destroy, Terraform's own CPU | 4.50 s | – | 1.20 s |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
