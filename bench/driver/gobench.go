package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// goBenchmark is one line of `go test -bench` output.
type goBenchmark struct {
	Name        string
	NsPerOp     float64
	BytesPerOp  int64
	AllocsPerOp int64
	// Measured is the run's stamp (merge.go); the other fields have no
	// JSON tags, as written before results.json held them.
	Measured stamp `json:"measured"`
}

// BenchmarkName-2   75184   15956 ns/op   13410 B/op   158 allocs/op.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+(\d+) B/op\s+(\d+) allocs/op`)

// goBenchmarkSets are the packages whose benchmarks make bench runs: every
// benchmark of internal/render, and the provider's per-resource plan
// benchmarks (the workload's, and the plugin framework's own cost by schema
// size, which bench/README.md reads).
var goBenchmarkSets = []struct{ pkg, pattern string }{
	{"./internal/render/...", "."},
	{"./internal/provider", "WorkloadPlan|FrameworkPlan"},
}

// runGoBenchmarks runs goBenchmarkSets, echoing their output, and parses
// the results.
func runGoBenchmarks(ctx context.Context, root, benchtime string) ([]goBenchmark, error) {
	var all []goBenchmark
	for _, set := range goBenchmarkSets {
		results, err := runGoBenchmark(ctx, root, benchtime, set.pkg, set.pattern)
		if err != nil {
			return nil, err
		}
		all = append(all, results...)
	}
	return all, nil
}

func runGoBenchmark(ctx context.Context, root, benchtime, pkg, pattern string) ([]goBenchmark, error) {
	cmd := exec.CommandContext(ctx, "go", goBenchArgs(benchtime, pkg, pattern)...)
	cmd.Dir, cmd.Stderr = root, os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	results := parseGoBench(io.TeeReader(stdout, logw))
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("go test -bench %s: %w", pkg, err)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("go test -bench %s printed no benchmark results", pkg)
	}
	return results, nil
}

func goBenchArgs(benchtime, pkg, pattern string) []string {
	return []string{"test", "-run", "^$", "-bench", pattern, "-benchmem", "-benchtime", benchtime, pkg}
}

// goBenchCommands is how the report names the commands it ran.
func goBenchCommands(benchtime string) []string {
	var out []string
	for _, set := range goBenchmarkSets {
		out = append(out, "go "+strings.Join(goBenchArgs(benchtime, set.pkg, "'"+set.pattern+"'"), " "))
	}
	return out
}

func parseGoBench(r io.Reader) []goBenchmark {
	var out []goBenchmark
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[2], 64)
		bytes, _ := strconv.ParseInt(m[3], 10, 64)
		allocs, _ := strconv.ParseInt(m[4], 10, 64)
		out = append(out, goBenchmark{Name: m[1], NsPerOp: ns, BytesPerOp: bytes, AllocsPerOp: allocs})
	}
	return out
}

// renderGoalBenchmarks are the per-workload renders the provider performs
// (render's YAML skipped, as the provider encodes the objects itself); the
// goal of at most 25 µs per workload render (issue #14) applies to them.
var renderGoalBenchmarks = map[string]bool{
	"BenchmarkRenderDeploymentSkipManifest": true,
	"BenchmarkRenderOnPoolID":               true,
}

const renderGoalNs = 25_000
