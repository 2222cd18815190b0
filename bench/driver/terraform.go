package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// Terraform steps, in the order they run.
const (
	stepPlan    = "plan"    // terraform plan with no state
	stepApply   = "apply"   // terraform apply -auto-approve (waits for rollout)
	stepRefresh = "refresh" // terraform plan with nothing changed: must be empty
	stepDestroy = "destroy" // terraform destroy -auto-approve
)

var terraformSteps = []string{stepPlan, stepApply, stepRefresh, stepDestroy}

// stepTimeout bounds one terraform command (and one API floor run), so a
// hung step fails the benchmark instead of blocking it.
const stepTimeout = 30 * time.Minute

// workspace is one Terraform configuration and its local state.
type workspace struct {
	dir       string
	terraform string
	env       []string
	provider  string // provider binary, to find its processes
}

// writeCLIConfig writes a CLI configuration with dev_overrides for the
// freshly built provider; the user's ~/.terraformrc is never read.
func writeCLIConfig(dir, providerBin string) (string, error) {
	path := filepath.Join(dir, "terraformrc")
	content := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"gpuform/gpu\" = %q\n  }\n  direct {}\n}\n",
		filepath.Dir(providerBin))
	return path, os.WriteFile(path, []byte(content), 0o600)
}

func newWorkspace(dir, terraform, cliConfig, providerBin, hcl string) (*workspace, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(hcl), 0o600); err != nil {
		return nil, err
	}
	env := append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1")
	return &workspace{dir: dir, terraform: terraform, env: env, provider: providerBin}, nil
}

// providerHCL is the provider requirement and configuration every
// scenario's configuration starts with.
func providerHCL(kubeconfig string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    gpu = { source = "gpuform/gpu" }
  }
}

variable "kubeconfig" {
  type    = string
  default = %q
}

provider "gpu" {
  config_path = var.kubeconfig
}
`, kubeconfig)
}

// gpuWorkloadHCL is N gpu_workload resources. Terraform's parallelism is
// left at its default (10).
func gpuWorkloadHCL(kubeconfig, namespace, poolRef string, n int) string {
	return providerHCL(kubeconfig) + fmt.Sprintf(`
locals {
  node_pool = jsondecode(%q)
}

resource "gpu_workload" "bench" {
  count     = %d
  name      = format(%q, count.index)
  namespace = %q
  cloud     = %q
  replicas  = %d
  image     = %q
  node_pool = local.node_pool

  gpu {
    count = %d
  }
}
`, poolRef, n, spec.NameFormat, namespace, spec.Cloud, spec.Replicas, spec.Image, spec.GPUCount)
}

// terraformDataHCL is the Terraform-core floor: N terraform_data resources
// holding the same attributes as an object.
func terraformDataHCL(namespace, poolRef string, n int) string {
	return fmt.Sprintf(`locals {
  node_pool = jsondecode(%q)
}

resource "terraform_data" "bench" {
  count = %d
  input = %s
}
`, poolRef, n, spec.HCLObject(namespace, "local.node_pool"))
}

// stepResult is one timed terraform command.
type stepResult struct {
	Seconds float64
	// ProviderHWMKiB is the highest VmHWM of any terraform-provider-gpu
	// process terraform started during the step; TerraformMaxRSSKiB is
	// terraform's own peak RSS (from wait4).
	ProviderHWMKiB     int64
	TerraformMaxRSSKiB int64
	// CPUSeconds is the CPU time of terraform and the children it waited
	// for (its providers); ProviderCPUSeconds that of the provider
	// processes alone (last /proc sample); MachineBusy the share of all
	// CPUs the whole machine (cluster included) was busy during the step.
	CPUSeconds         float64
	ProviderCPUSeconds float64
	MachineBusy        float64
	// StateBytes is the size of terraform.tfstate after an apply: Terraform
	// writes the whole file after every resource it creates or destroys,
	// so its own CPU grows with this size (bench/README.md).
	StateBytes int64
}

// runOpts are the options of one terraform command.
type runOpts struct {
	sampleMemory bool
	log          string   // log file name in the workspace; default <step>.log
	extraArgs    []string // e.g. -var kubeconfig=...
	env          []string // added to the workspace's environment
	wantCode     int      // exit code expected of apply or destroy (default 0; 1: must fail)
}

// run times one step. Its output goes to <dir>/<step>.log.
func (w *workspace) run(ctx context.Context, step string, opts runOpts) (stepResult, error) {
	var args []string
	wantCode := 0
	switch step {
	case stepPlan:
		args, wantCode = []string{"plan", "-detailed-exitcode"}, 2 // changes to make
	case stepApply:
		args, wantCode = []string{"apply", "-auto-approve"}, opts.wantCode
	case stepRefresh:
		args = []string{"plan", "-detailed-exitcode"} // 0: no changes
	case stepDestroy:
		args = []string{"destroy", "-auto-approve"}
	default:
		return stepResult{}, fmt.Errorf("unknown step %q", step)
	}
	args = append(append(args, "-input=false", "-no-color"), opts.extraArgs...)
	if opts.log == "" {
		opts.log = step + ".log"
	}
	logPath := filepath.Join(w.dir, opts.log)
	logFile, err := os.Create(logPath)
	if err != nil {
		return stepResult{}, err
	}
	defer func() { _ = logFile.Close() }()

	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.terraform, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = w.dir, append(slices.Clone(w.env), opts.env...), logFile, logFile
	// Its own process group: a Ctrl-C reaches terraform once, from here,
	// as one interrupt (two make it exit without writing state), so it
	// stops its providers and writes its state.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute

	start, busyBefore := time.Now(), readMachineCPU()
	if err := cmd.Start(); err != nil {
		return stepResult{}, err
	}
	var stopSampler func() (int64, float64)
	if opts.sampleMemory {
		stopSampler = sampleChildren(cmd.Process.Pid, filepath.Base(w.provider))
	}
	err = cmd.Wait()
	res := stepResult{Seconds: time.Since(start).Seconds(), MachineBusy: readMachineCPU().busySince(busyBefore)}
	if stopSampler != nil {
		res.ProviderHWMKiB, res.ProviderCPUSeconds = stopSampler()
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.TerraformMaxRSSKiB = ru.Maxrss
	}
	res.CPUSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	code := cmd.ProcessState.ExitCode()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return res, fmt.Errorf("terraform %s: %w (log: %s)", step, err, logPath)
	}
	if code != wantCode {
		return res, fmt.Errorf("terraform %s exited %d, expected %d%s (log: %s)\n%s",
			step, code, wantCode, refreshHint(step, code), logPath, tail(logPath, 40))
	}
	if step == stepApply {
		if fi, err := os.Stat(filepath.Join(w.dir, "terraform.tfstate")); err == nil {
			res.StateBytes = fi.Size()
		}
	}
	return res, nil
}

func refreshHint(step string, code int) string {
	if step == stepRefresh && code == 2 {
		return ": the refresh plan after apply is not empty (drift or a non-idempotent read)"
	}
	return ""
}

func tail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// sampleChildren follows the processes whose parent is pid and whose
// executable is named exe, and keeps the highest VmHWM: the kernel's own
// peak RSS of the process, so only growth in its last poll interval before
// it exits can be missed. Known processes are read every 10 ms; /proc is
// scanned for new ones every 50 ms. The returned function stops and
// returns the peak in KiB.
func sampleChildren(pid int, exe string) func() (int64, float64) {
	stop := make(chan struct{})
	type result struct {
		peak int64
		cpu  float64
	}
	done := make(chan result)
	go func() {
		var peak int64
		known := map[int]bool{} // pid -> is a matching child
		lastCPU := map[int]float64{}
		var tracked []int
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			if i%5 == 0 {
				entries, _ := os.ReadDir("/proc")
				for _, e := range entries {
					child, err := strconv.Atoi(e.Name())
					if _, seen := known[child]; err != nil || seen {
						continue
					}
					known[child] = parentOf(child) == pid && exeName(child) == exe
					if known[child] {
						tracked = append(tracked, child)
					}
				}
			}
			for _, child := range tracked {
				peak = max(peak, vmHWM(child))
				if cpu, ok := processCPU(child); ok {
					lastCPU[child] = cpu
				}
			}
			select {
			case <-stop:
				var cpu float64
				for _, c := range lastCPU {
					cpu += c
				}
				done <- result{peak, cpu}
				return
			case <-tick.C:
			}
		}
	}()
	return func() (int64, float64) {
		close(stop)
		r := <-done
		return r.peak, r.cpu
	}
}

func parentOf(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// pid (comm) state ppid ...; comm may contain spaces and parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return -1
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

func exeName(pid int) string {
	target, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return ""
	}
	return filepath.Base(strings.TrimSuffix(target, " (deleted)"))
}

func vmHWM(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}

func terraformVersion(terraform string) string {
	out, err := exec.Command(terraform, "version").Output()
	if err != nil {
		return "unknown"
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(first)
}
