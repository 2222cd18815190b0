package distributedjob

import (
	"slices"
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// validate checks the distributed job's own rules. Zero values are unset
// or unknown at plan time; strict is the apply's check, where a missing
// required value is known to be missing.
func validate(w spec.Workload, strict bool, diags *gpudiag.Diagnostics) {
	checkBlock(w, strict, diags)
	checkJobBlock(w, diags)
	checkGPU(w, diags)
	checkLauncherEnv(w, diags)
}

// checkBlock: nodes is required and in range, the launcher known, the
// port a TCP port.
func checkBlock(w spec.Workload, strict bool, diags *gpudiag.Diagnostics) {
	d := w.Distributed
	if d == nil || d.Nodes == nil {
		if strict {
			diags.AddFinalError(gpudiag.At("distributed", "nodes"), "Missing distributed.nodes",
				"A distributed_job needs the number of pods that form it. Allowed: a distributed { nodes = N } block, "+
					"N from 1 to "+strconv.Itoa(MaxNodes)+".")
		}
		return
	}
	if n := *d.Nodes; n < 1 || n > MaxNodes {
		diags.AddError(gpudiag.At("distributed", "nodes"), "Invalid distributed.nodes",
			"nodes is "+strconv.FormatInt(n, 10)+". Allowed: 1 to "+strconv.Itoa(MaxNodes)+" (one pod per index of "+
				"the Indexed Job).")
	}
	if d.Launcher != "" && !slices.Contains(LauncherNames(), d.Launcher) {
		diags.AddError(gpudiag.At("distributed", "launcher"), "Invalid distributed.launcher",
			"launcher is "+strconv.Quote(d.Launcher)+". Allowed: "+gpudiag.QuoteList(LauncherNames())+".")
	}
	if d.Port != nil && (*d.Port < 1 || *d.Port > MaxPort) {
		diags.AddError(gpudiag.At("distributed", "port"), "Invalid distributed.port",
			"port is "+strconv.FormatInt(*d.Port, 10)+". Allowed: 1 to "+strconv.Itoa(MaxPort)+" (default "+
				strconv.Itoa(spec.DefaultDistributedPort)+").")
	}
}

// checkJobBlock: nodes decides completions and parallelism; the job block
// keeps its other settings.
func checkJobBlock(w spec.Workload, diags *gpudiag.Diagnostics) {
	if w.Job == nil {
		return
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"completions", w.Job.Completions != nil}, {"parallelism", w.Job.Parallelism != nil}} {
		if f.set {
			diags.AddError(gpudiag.At("job", f.name), "job."+f.name+" is distributed.nodes here",
				"A distributed_job runs every one of its distributed.nodes pods at once, once each (completions = "+
					"parallelism = nodes). Allowed: remove job."+f.name+" and set distributed.nodes.")
		}
	}
}

// checkGPU: the ranks talk over NCCL, which needs whole GPUs: it does not
// run between MIG instances, and GPUs shared by time-slicing or MPS give
// no rank a device of its own.
func checkGPU(w spec.Workload, diags *gpudiag.Diagnostics) {
	if w.GPU.Partition != "" {
		diags.AddError(gpudiag.At("gpu", "partition"), "A distributed job needs whole GPUs",
			"NCCL, which the ranks of a distributed job talk over, does not run between MIG instances. Allowed: "+
				"remove gpu.partition, or use kind = \"job\" for independent pods on MIG instances.")
	}
	if w.GPU.Sharing != "" {
		diags.AddError(gpudiag.At("gpu", "sharing"), "A distributed job needs whole GPUs",
			"A shared GPU ("+w.GPU.Sharing+") gives no rank a device of its own, and NCCL cannot tell the ranks on "+
				"one GPU apart. Allowed: remove gpu.sharing.")
	}
}

// checkLauncherEnv: the launcher's variables are derived from the block;
// the same name in env or secret_env would be a duplicate the API server
// refuses (or a second source of truth).
func checkLauncherEnv(w spec.Workload, diags *gpudiag.Diagnostics) {
	launcher := Launcher(w)
	for _, name := range LauncherEnvNames(launcher) {
		for _, f := range []struct {
			attribute string
			set       bool
		}{{"env", hasKey(w.Env, name)}, {"secret_env", hasKey(w.SecretEnv, name)}} {
			if attribute := f.attribute; f.set {
				diags.AddError(gpudiag.At(attribute, gpudiag.MapKey(name)), name+" is set by the launcher",
					"launcher "+strconv.Quote(launcher)+" sets "+name+" from the distributed block. Allowed: remove it "+
						"from "+attribute+" (change distributed.nodes or distributed.port instead), or launcher = \"none\" "+
						"to set the launcher's variables yourself.")
			}
		}
	}
}

func hasKey[V any](m map[string]V, key string) bool {
	_, ok := m[key]
	return ok
}
