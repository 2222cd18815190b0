package testcharts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skip and Fatal instead of ending the
// goroutine, so the tests can look at what Dir did.
type recorder struct {
	testing.TB
	skipped, failed string
}

type stop struct{}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestSomethingWithCharts" }
func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	panic(stop{})
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	panic(stop{})
}

func run(f func()) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stop); !ok {
				panic(v)
			}
		}
	}()
	f()
}

func TestMissingChartsSkipAndAreLogged(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips.log")
	t.Setenv(EnvDir, filepath.Join(t.TempDir(), "absent"))
	t.Setenv(EnvRequire, "")
	t.Setenv(EnvSkipLog, log)
	r := &recorder{TB: t}
	run(func() { Dir(r) })
	if !strings.HasPrefix(r.skipped, SkipMarker+" TestSomethingWithCharts") || !strings.Contains(r.skipped, EnvDir) {
		t.Fatalf("want one skip line naming the test and %s, got skipped=%q failed=%q", EnvDir, r.skipped, r.failed)
	}
	logged, err := os.ReadFile(log)
	if err != nil || strings.TrimSpace(string(logged)) != r.skipped {
		t.Fatalf("the skip line must be appended to %s: %q, %v", EnvSkipLog, logged, err)
	}
}

func TestMissingChartsFailWhenRequired(t *testing.T) {
	t.Setenv(EnvDir, filepath.Join(t.TempDir(), "absent"))
	t.Setenv(EnvRequire, "1")
	t.Setenv(EnvSkipLog, "")
	r := &recorder{TB: t}
	run(func() { Dir(r) })
	if r.skipped != "" || !strings.Contains(r.failed, EnvRequire+"=1 forbids skipping") {
		t.Fatalf("want a failure, got skipped=%q failed=%q", r.skipped, r.failed)
	}
}

func TestPresentChartsAreFound(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src", "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"demo.values.yaml": "a: 1\n", "src/demo/Chart.yaml": "name: demo\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvDir, dir)
	if got := string(File(t, "demo.values.yaml")); got != "a: 1\n" {
		t.Fatalf("File: %q", got)
	}
	if got := Chart(t, "demo"); got != filepath.Join(dir, "src", "demo") {
		t.Fatalf("Chart: %q", got)
	}
}

func TestDefaultIsBesideTheRepository(t *testing.T) {
	t.Setenv(EnvDir, "")
	dir, explicit := location()
	if explicit || filepath.Base(dir) != "charts" || filepath.Base(filepath.Dir(dir)) != "shared" {
		t.Fatalf("default must be ../shared/charts beside the repository, got %q", dir)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(dir)), filepath.Base(repoRoot()), "go.mod")); err != nil {
		t.Fatalf("%q is not beside the repository root %q: %v", dir, repoRoot(), err)
	}
}
