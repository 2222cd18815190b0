package ray

import (
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/validate"
)

func quote(s string) string { return strconv.Quote(s) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Ray start parameters the provider owns or KubeRay refuses
// (controllers/ray/utils/validation.go validateRayGroupLabels): labels go
// through the group's labels field, which KubeRay turns into --labels.
const (
	ParamNumGPUs = "num-gpus"
	paramLabels  = "labels"
)

// checkReplicas: KubeRay clamps replicas into [min_replicas,
// max_replicas] without a word (utils.GetWorkerGroupDesiredReplicas) while
// Kueue counts the pod set by replicas unclamped, so a value outside the
// range is refused here instead.
func checkReplicas(g spec.RayGroup, i int, autoscaling bool, diags *gpudiag.Diagnostics) {
	for _, f := range []struct {
		attr string
		v    *int32
	}{{"replicas", g.Replicas}, {"min_replicas", g.MinReplicas}, {"max_replicas", g.MaxReplicas}} {
		validate.Min32(diags, f.v, 0, workerPath(i, f.attr))
	}
	lo, hi := g.MinReplicas, g.MaxReplicas
	if lo != nil && hi != nil && *lo > *hi {
		diags.AddError(workerPath(i, "min_replicas"), "min_replicas above max_replicas", "min_replicas is "+
			itoa(int64(*lo))+" and max_replicas "+itoa(int64(*hi))+"; KubeRay would run max_replicas pods and ignore the rest. "+
			"Allowed: min_replicas at most max_replicas.")
		return
	}
	if r := g.Replicas; r != nil && ((lo != nil && *r < *lo) || (hi != nil && *r > *hi)) {
		diags.AddError(workerPath(i, "replicas"), "replicas outside [min_replicas, max_replicas]", "replicas is "+
			itoa(int64(*r))+", outside "+bounds(lo, hi)+": KubeRay would silently run a number of pods inside the range while "+
			"Kueue counts "+itoa(int64(*r))+". Allowed: replicas within the range.")
	}
	if !autoscaling && (lo != nil || hi != nil) && g.Replicas == nil {
		diags.AddWarning(workerPath(i, "min_replicas"), "min_replicas and max_replicas need autoscaling", "Without an "+
			"autoscaling block nothing scales the group: it runs min_replicas pods. Allowed: replicas alone, or an "+
			"autoscaling block.")
	}
	if autoscaling && hi == nil {
		diags.AddFinalError(workerPath(i, "max_replicas"), "Autoscaled group without max_replicas", "With autoscaling "+
			"the Ray autoscaler adds workers up to max_replicas, which KubeRay otherwise leaves at 2147483647: every GPU "+
			"of the pool. Allowed: max_replicas, the most pods the group may run.")
	}
}

func bounds(lo, hi *int32) string {
	l, h := "0", "unbounded"
	if lo != nil {
		l = itoa(int64(*lo))
	}
	if hi != nil {
		h = itoa(int64(*hi))
	}
	return "[" + l + ", " + h + "]"
}

// checkStartParams: num-gpus must be the GPUs the pod gets (else Ray
// schedules GPU tasks on GPUs the pod does not have, or never uses those
// it has); labels are the group's labels field's.
func checkStartParams(g group, diags *gpudiag.Diagnostics) {
	for _, key := range validate.SortedKeys(g.RayStartParams) {
		path := g.path("ray_start_params", gpudiag.MapKey(key))
		value := g.RayStartParams[key]
		switch key {
		case paramLabels:
			diags.AddError(path, "Ray labels in ray_start_params", "KubeRay v1.5 refuses rayStartParams[\"labels\"]; "+
				"the provider sets the group's Ray labels (the accelerator type) through the labels field. Allowed: remove it.")
		case ParamNumGPUs:
			checkNumGPUs(g, value, path, diags)
		}
	}
}

// checkNumGPUs compares a num-gpus the user gave with the GPUs the pod's
// limits (or claim) give it.
func checkNumGPUs(g group, value string, path []any, diags *gpudiag.Diagnostics) {
	want, known := groupGPUs(g)
	if !known {
		return
	}
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err == nil && n == want {
		return
	}
	diags.AddError(path, "num-gpus contradicts the GPUs the pod gets", numGPUsDetail(g.label(), value, want))
}

func numGPUsDetail(label, value string, want int64) string {
	detail := "The " + label + " tells Ray num-gpus = " + quote(value) + ", but its pod gets " + itoa(want) + " GPUs"
	if want == 0 {
		detail += " (no gpu block: the pod cannot see the node's GPUs)"
	}
	return detail + ". Ray would schedule tasks on GPUs the pod does not have, or leave GPUs it has unused. Allowed: " +
		"remove num-gpus (the provider sets it to " + itoa(want) + "), or change the gpu block."
}

// groupGPUs is how many GPUs the group's pod gets, as Ray should count
// them: whole GPUs, MIG instances, shared slots or DRA devices alike.
// false while the count is unknown.
func groupGPUs(g group) (int64, bool) {
	if g.GPU == nil {
		return 0, true
	}
	return g.GPU.Count, g.GPU.Count > 0
}

// checkKueue: Kueue refuses a queued RayCluster or RayJob with
// enableInTreeAutoscaling unless it is an elastic job
// (pkg/controller/jobs/raycluster ValidateCreate, v0.17.0 to v0.19.2),
// which the provider does not render; and it admits as many worker groups
// as its release allows (kueuever.MaxRayWorkerGroups), judged only once
// the provider knows which release that is (c.Kueue, at plan).
func checkKueue(c spec.RayCluster, diags *gpudiag.Diagnostics) {
	if c.Queue == "" {
		return
	}
	if c.Autoscaling != nil {
		diags.AddError(gpudiag.At("autoscaling"), "Autoscaling in a Kueue queue", "Kueue admits a Ray cluster with a fixed "+
			"number of pods per group and refuses enableInTreeAutoscaling (its webhook: \"a kueue managed job can use "+
			"autoscaling only when ... the job is an elastic job\"). Allowed: remove the autoscaling block and set each "+
			"group's replicas, or remove queue.")
	}
	if c.Kueue == nil {
		return
	}
	if n, most := len(c.WorkerGroups), kueuever.MaxRayWorkerGroups(c.Kueue.Effective()); n > most {
		diags.AddFinalError(gpudiag.At("worker_group"), "Too many worker groups for Kueue", itoa(int64(n))+" worker groups, "+
			"and "+c.Kueue.Name()+"'s webhook refuses a Ray cluster of more than "+itoa(int64(most))+" (each group is "+
			"a pod set of its Workload, and the head one more). "+c.Kueue.Describe()+" Allowed: at most "+
			itoa(int64(most))+" worker groups, or no queue.")
	}
}

// checkJob: the job block's rules, KubeRay v1.5.0's ValidateRayJobSpec
// and Kueue's RayJob webhook.
func checkJob(c spec.RayCluster, strict bool, diags *gpudiag.Diagnostics) {
	j := c.Job
	if j == nil {
		return
	}
	if c.Serve != nil {
		diags.AddError(gpudiag.At("serve"), "job and serve together", "A cluster runs one Ray job (a RayJob) or serves "+
			"an application (a RayService), not both. Allowed: one of the two blocks.")
	}
	if strict && strings.TrimSpace(j.Entrypoint) == "" {
		diags.AddFinalError(gpudiag.At("job", "entrypoint"), "Job without an entrypoint", "The job block runs "+
			"entrypoint on the cluster once it is ready. Allowed: a command such as \"python train.py\".")
	}
	shutdown := j.ShutdownAfterJobFinishes == nil || *j.ShutdownAfterJobFinishes
	if !shutdown && j.TTLSecondsAfterFinished != nil && *j.TTLSecondsAfterFinished > 0 {
		diags.AddError(gpudiag.At("job", "ttl_seconds_after_finished"), "TTL without shutdown", "KubeRay refuses a RayJob "+
			"with ttlSecondsAfterFinished whose shutdownAfterJobFinishes is false: the TTL is how long it waits before "+
			"deleting the cluster, which it then never deletes. Allowed: shutdown_after_job_finishes = true, or no TTL.")
	}
	if !shutdown && c.Queue != "" {
		diags.AddError(gpudiag.At("job", "shutdown_after_job_finishes"), "A queued job must release its cluster",
			"Kueue refuses a RayJob that keeps its cluster after the job (\"a kueue managed job should delete the "+
				"cluster after finishing\"): the cluster would hold the queue's quota. Allowed: true, or no queue.")
	}
	validate.Min32(diags, j.TTLSecondsAfterFinished, 0, gpudiag.At("job", "ttl_seconds_after_finished"))
	validate.Min32(diags, j.ActiveDeadlineSeconds, 1, gpudiag.At("job", "active_deadline_seconds"))
	validate.Min32(diags, j.BackoffLimit, 0, gpudiag.At("job", "backoff_limit"))
	checkYAML(j.RuntimeEnvYAML, gpudiag.At("job", "runtime_env_yaml"), "runtime environment", diags)
}

// checkServe: the serve config is YAML KubeRay sends to Ray Serve.
func checkServe(c spec.RayCluster, strict bool, diags *gpudiag.Diagnostics) {
	s := c.Serve
	if s == nil {
		return
	}
	if strict && strings.TrimSpace(s.ConfigYAML) == "" {
		diags.AddFinalError(gpudiag.At("serve", "config_yaml"), "Serve without a config", "A RayService deploys "+
			"its Serve config (serveConfigV2) on the cluster. Allowed: the applications to serve, as YAML.")
	}
	checkYAML(s.ConfigYAML, gpudiag.At("serve", "config_yaml"), "Serve config", diags)
}

func checkYAML(text string, path []any, what string, diags *gpudiag.Diagnostics) {
	if text == "" {
		return
	}
	var v map[string]any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		diags.AddError(path, "Invalid "+what, "The "+what+" is not a YAML mapping: "+err.Error()+". Allowed: YAML such as "+
			"\"pip: [torch]\".")
	}
}
