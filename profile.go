package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// profileDirEnv names a directory where the provider writes a CPU profile
// of each of its processes (cpu-<pid>.pprof, read with `go tool pprof`):
// how `make bench` shows where a slow step's time goes, and what to attach
// to a performance report. Unset, nothing is profiled.
const profileDirEnv = "GPU_PROVIDER_CPU_PROFILE_DIR"

// startCPUProfile starts the profile when profileDirEnv is set and returns
// what stops it. A profile that cannot be started is reported on stderr
// (Terraform shows it in its log) and the provider runs on unprofiled.
func startCPUProfile() func() {
	dir := os.Getenv(profileDirEnv)
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", os.Getpid())))
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: no CPU profile: %v\n", profileDirEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
