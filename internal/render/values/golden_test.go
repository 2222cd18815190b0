package values

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
)

// TestValuesGolden compares every target × cloud (and the extra cases) with
// testdata/values/<target>/<name>.yaml. Run with -update to rewrite them,
// then review the diff.
func TestValuesGolden(t *testing.T) {
	var cases []rendertest.GoldenCase
	for _, c := range valuesCases() {
		cases = append(cases, rendertest.GoldenCase{Name: c.target + "/" + c.name, Path: c.path(),
			Text: func(t *testing.T) string { return valuesGoldenText(t, c) }})
	}
	rendertest.GoldenSuite(t, filepath.Join("testdata", "values", "*", "*.yaml"), cases)
}

// TestValuesGridComplete: every target has a golden file for every cloud.
func TestValuesGridComplete(t *testing.T) {
	for _, target := range TargetNames() {
		for _, cloud := range clouds.Names() {
			path := filepath.Join("testdata", "values", target, cloud+".yaml")
			if _, err := os.Stat(path); err != nil && !*rendertest.Update {
				t.Errorf("missing golden file %s", path)
			}
		}
	}
}
