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
}

// BenchmarkName-2   75184   15956 ns/op   13410 B/op   158 allocs/op.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+(\d+) B/op\s+(\d+) allocs/op`)

// runGoBenchmarks runs the render package's benchmarks, echoing their
// output, and parses the results.
func runGoBenchmarks(ctx context.Context, root, benchtime string) ([]goBenchmark, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", ".", "-benchmem",
		"-benchtime", benchtime, "./internal/render/...")
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
		return nil, fmt.Errorf("go test -bench: %w", err)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("go test -bench printed no benchmark results")
	}
	return results, nil
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
