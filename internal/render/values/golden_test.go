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
	seen := map[string]bool{}
	for _, c := range valuesCases() {
		path := c.path()
		if seen[path] {
			t.Fatalf("duplicate values case %s", path)
		}
		seen[path] = true
		t.Run(c.target+"/"+c.name, func(t *testing.T) {
			rendertest.Golden(t, path, valuesGoldenText(t, c))
		})
	}
	t.Run("no stale files", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join("testdata", "values", "*", "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !seen[f] {
				t.Errorf("%s has no values case; delete it or add the case", f)
			}
		}
	})
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
