// Package testcharts finds the real upstream Helm charts and values files the
// tests check generated values against. They are third-party files and never
// live in this repository: a folder holds them (the values files at its top,
// whole charts under src/), named by GPU_CHARTS_DIR and by default
// ../shared/charts beside the repository, where CI keeps them.
//
// Without the folder, a test that needs it skips with one line starting
// "charts: skipped:" and, when GPU_TEST_SKIP_LOG names a file, records that
// line there so `make test` can list every such skip at the end. With
// GPU_REQUIRE_CHARTS=1 (set by .ci/run) a missing folder fails the test
// instead, so CI can never pass by skipping them.
package testcharts

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

const (
	// EnvDir names the charts folder.
	EnvDir = "GPU_CHARTS_DIR"
	// EnvRequire, when "1", turns a missing charts folder into a failure.
	EnvRequire = "GPU_REQUIRE_CHARTS"
	// EnvSkipLog names a file each skip line is appended to.
	EnvSkipLog = "GPU_TEST_SKIP_LOG"
	// SkipMarker starts every skip line, so logs can be searched for it.
	SkipMarker = "charts: skipped:"
)

// Dir returns the charts folder, or ends the test (skip, or fail under
// GPU_REQUIRE_CHARTS=1) when it is missing.
func Dir(t testing.TB) string {
	t.Helper()
	dir, explicit := location()
	if info, err := os.Stat(dir); err == nil && info.IsDir() {
		return dir
	}
	missing(t, dir, explicit)
	return ""
}

// File reads one file of the charts folder, e.g.
// "fiftyone-teams-app.values.yaml".
func File(t testing.TB, name string) []byte {
	t.Helper()
	path := filepath.Join(Dir(t), name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the charts folder is there but %s is not readable: %v (see %s/SOURCES.md for what it holds)", path, err, Dir(t))
	}
	return data
}

// Chart returns the directory of one whole chart, src/<name>.
func Chart(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(Dir(t), "src", name)
	if info, err := os.Stat(filepath.Join(path, "Chart.yaml")); err != nil || info.IsDir() {
		t.Fatalf("the charts folder is there but has no chart at %s: %v (see SOURCES.md beside it)", path, err)
	}
	return path
}

// location is GPU_CHARTS_DIR, or ../shared/charts beside the repository.
func location() (dir string, explicit bool) {
	if env := os.Getenv(EnvDir); env != "" {
		return env, true
	}
	return filepath.Join(repoRoot(), "..", "shared", "charts"), false
}

// repoRoot is two directories above this file.
func repoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

func missing(t testing.TB, dir string, explicit bool) {
	t.Helper()
	where := "the default " + dir + " does not exist"
	if explicit {
		where = EnvDir + "=" + dir + " does not exist"
	}
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("%s needs the real upstream charts but %s, and %s=1 forbids skipping", t.Name(), where, EnvRequire)
	}
	line := SkipMarker + " " + t.Name() + " (needs the real upstream charts: " + where + "; set " + EnvDir +
		" to a folder with the values files and src/<chart>, see docs/design/charts.md)"
	record(line)
	t.Skip(line)
}

// record appends the skip line to GPU_TEST_SKIP_LOG, if set. A failure to
// write is not the test's failure: the skip itself is still printed.
func record(line string) {
	path := os.Getenv(EnvSkipLog)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(line + "\n")
	_ = f.Close()
}
