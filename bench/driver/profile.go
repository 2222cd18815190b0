package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// profileDirEnv is the provider's switch for a CPU profile per process
// (profile.go at the repository root).
const profileDirEnv = "GPU_PROVIDER_CPU_PROFILE_DIR"

// How many functions of a profile the report shows: the large cluster's
// read is a short chain; a workload refresh plan goes through more of the
// plugin framework.
const (
	scaleProfileLines    = 14
	workloadProfileLines = 30
)

// profileEnv makes the providers of one terraform command write their CPU
// profiles into dir.
func profileEnv(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return []string{profileDirEnv + "=" + dir}, nil
}

// profileTop is `go tool pprof -top` of the largest profile in dir (the
// provider process that did the step's work; terraform also starts one for
// validation), by cumulative time, or a line saying why there is none.
func profileTop(ctx context.Context, providerBin, dir string, lines int) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "(no profile: " + err.Error() + ")"
	}
	var largest string
	var size int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".pprof") && info.Size() > size {
			largest, size = filepath.Join(dir, e.Name()), info.Size()
		}
	}
	if largest == "" {
		return "(no profile was written)"
	}
	out, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", "-cum",
		fmt.Sprintf("-nodecount=%d", lines), providerBin, largest).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(go tool pprof failed: %v)\n%s", err, out)
	}
	// The binary's path, build id and the profile's time say nothing here.
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(line, "File:") && !strings.HasPrefix(line, "Build ID:") && !strings.HasPrefix(line, "Time:") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// profiledSteps are the steps -profile profiles, untimed, after a
// subject's timed steps of the first run: the two that issue #32's goal
// compares.
var profiledSteps = []string{stepPlan, stepApply}

// profileSteps runs an untimed plan and apply of the workspace (whose
// state the timed destroy emptied) with the providers writing CPU
// profiles, keeps the top of each in m.Profiles, and destroys again. The
// profiles stay in the workspace (BENCH_KEEP=1 keeps it) for
// `go tool pprof -diff_base`.
func (b *bench) profileSteps(ctx context.Context, ws *workspace, m *measurement) error {
	m.Profiles = map[string]string{}
	for _, step := range profiledSteps {
		env, err := profileEnv(filepath.Join(ws.dir, "profile-"+step))
		if err != nil {
			return err
		}
		if _, err := ws.run(ctx, step, runOpts{log: step + "-profiled.log", env: env}); err != nil {
			return fmt.Errorf("profiled %s: %w", step, err)
		}
		m.Profiles[step] = profileTop(ctx, b.cfg.provider, filepath.Join(ws.dir, "profile-"+step), workloadProfileLines)
	}
	if _, err := ws.run(ctx, stepDestroy, runOpts{log: "destroy-profiled.log"}); err != nil {
		return fmt.Errorf("destroy after the profiled apply: %w", err)
	}
	return nil
}
