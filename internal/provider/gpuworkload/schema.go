package gpuworkload

import (
	"context"
	_ "embed"
	"fmt"
	"maps"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuintent"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/distributedjob"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// description is gpu_workload's description, which opens its docs page.
//
//go:embed gpu_workload.md
var description string

// Schema describes gpu_workload. Allowed values in descriptions come from
// the same render functions the validators use.
func (r *workloadResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: tfconv.MarkdownFile(description),
		Attributes:          workloadAttributes(),
		Blocks:              workloadBlocks(ctx),
		Version:             2,
	}
}

// UpgradeState reads states written before manifests was the one copy of
// the rendered objects (version 0), and while node_pool and queue held
// legacy ids (versions 0 and 1), which become the refs they carried.
func (r *workloadResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return resourcekit.ManifestsThenRefsUpgraders(upgradeRefs)
}

// upgradeRefs: node_pool's legacy id becomes the pool's ref; queue, now
// dynamic, keeps a queue name as a string and a legacy gpu_queue id
// becomes the queue's ref.
func upgradeRefs(ctx context.Context, attrs map[string]any) error {
	if err := refs.UpgradePoolReference(attrs, "node_pool"); err != nil {
		return err
	}
	name, ok := attrs["queue"].(string)
	if !ok {
		attrs["queue"] = nil
		return nil
	}
	ref, _, err := refs.QueueRefOfLegacyID(name)
	if err != nil {
		return fmt.Errorf("the stored queue: %w", err)
	}
	value, err := refs.DynamicQueue(ref, name)
	if err != nil {
		return err
	}
	attrs["queue"], err = refs.DynamicStateJSON(ctx, value.UnderlyingValue())
	return err
}

// workloadBlocks are the nested settings. They are blocks, not nested
// attributes, because Terraform points a diagnostic at the exact line only
// inside blocks: "gpu.count is 0" then highlights `count = 0`.
func workloadBlocks(ctx context.Context) map[string]schema.Block {
	return map[string]schema.Block{
		"gpu":             gpuintent.Block(),
		"model_cache":     modelCacheBlock(),
		"startup_probe":   probeBlock("Startup probe. Defaults allow 10 minutes for loading a model before liveness applies."),
		"liveness_probe":  probeBlock("Liveness probe."),
		"readiness_probe": probeBlock("Readiness probe."),
		"job":             jobBlock(),
		"cronjob":         cronJobBlock(),
		"distributed":     distributedBlock(),
		"topology":        topologyBlock(),
		"timeouts":        resourcekit.TimeoutsBlock(ctx),
	}
}

func workloadAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"id": resourcekit.NamespacedIDAttribute(),
		"name": schema.StringAttribute{
			MarkdownDescription: "Name of the Deployment, StatefulSet, Job or CronJob (a DNS-1123 label). Changing it re-creates the workload.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"namespace": resourcekit.NamespaceAttribute("workload"),
		"kind": schema.StringAttribute{
			MarkdownDescription: kindDescription(),
			Optional:            true,
			Computed:            true,
			Default:             stringdefault.StaticString(kinds.Default().Name),
			Validators:          []validator.String{stringvalidator.OneOf(kinds.Names()...)},
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"cloud": resourcekit.PlannedCloudAttribute(clouds.Names(), "Cloud whose GPU node conventions apply: one of ",
			". Defaults to the provider's `default_cloud`; one of the two must be set."),
		"replicas": schema.Int64Attribute{
			MarkdownDescription: "Replicas of a `deployment` or `statefulset`. Not allowed for a `job`. Unset, the provider does not manage " +
				"them: Kubernetes starts 1 and a HorizontalPodAutoscaler can scale without being set back on every apply. " +
				"Without `update_strategy`, a `deployment`'s update strategy follows from it and never needs a spare GPU: " +
				"unset or 1, it is `Recreate`, so every change of the pod template (a new `image`, say) stops the old pod " +
				"before the new one starts and the workload is down until the new pod is ready; above 1, it is " +
				"`RollingUpdate` with `maxSurge` 0 and `maxUnavailable` 1, replacing one pod at a time inside the GPUs " +
				"already held.",
			Optional:   true,
			Validators: []validator.Int64{int64validator.Between(0, 10000)},
		},
		"update_strategy": tfconv.OneOf(spec.UpdateStrategyNames(), "How a `deployment` replaces its pods when the pod "+
			"template changes (a new `image`, say): ", ". `recreate` stops every old pod before a new one starts: no spare "+
			"GPU is needed, and the workload is down until the new pods are ready. `rolling` replaces one pod at a time "+
			"inside the GPUs already held (`RollingUpdate`, `maxSurge` 0, `maxUnavailable` 1): with one replica that is "+
			"downtime too. `surge` starts each new pod before an old one stops (`RollingUpdate`, `maxSurge` 1, "+
			"`maxUnavailable` 0): no downtime, but the pool needs one pod's GPUs spare during the update, or the new pod "+
			"cannot schedule and the apply fails as for any pod that cannot. Unset: `recreate` for one replica (or `replicas` unset), "+
			"`rolling` for several. Only for `kind = \"deployment\"`; a `patch` that sets `spec.strategy` wins over it."),
		"image": schema.StringAttribute{
			MarkdownDescription: "Container image, e.g. `registry.example/nvidia/pytorch:24.08-py3`.",
			Required:            true,
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"command": schema.ListAttribute{
			MarkdownDescription: "Container entrypoint (overrides the image's).",
			Optional:            true,
			ElementType:         types.StringType,
		},
		"args": schema.ListAttribute{
			MarkdownDescription: "Container arguments.",
			Optional:            true,
			ElementType:         types.StringType,
		},
		"env": schema.MapAttribute{
			MarkdownDescription: "Environment variables. Cloud-required variables (e.g. GKE's `LD_LIBRARY_PATH`) are " +
				"added unless set here. Setting `CUDA_VISIBLE_DEVICES` produces a warning: the device plugin sets it.",
			Optional:    true,
			ElementType: types.StringType,
		},
		"secret_env": schema.MapNestedAttribute{
			MarkdownDescription: "Environment variables read from Secrets when the pod starts, e.g. " +
				"`{ HF_TOKEN = { name = \"hf\", key = \"token\" } }`. Only the reference is in the manifest and the " +
				"state, never the secret's value.",
			Optional: true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{Required: true, MarkdownDescription: "Secret in the workload's namespace."},
				"key":  schema.StringAttribute{Required: true, MarkdownDescription: "Key in the Secret."},
			}},
		},
		"ports": schema.ListAttribute{
			MarkdownDescription: "Container ports (TCP).",
			Optional:            true,
			ElementType:         types.Int64Type,
			Validators:          []validator.List{listvalidator.ValueInt64sAre(int64validator.Between(1, 65535))},
		},
		"service_account_name": schema.StringAttribute{
			MarkdownDescription: "ServiceAccount the pods run as.",
			Optional:            true,
		},
		"selector_labels": schema.MapAttribute{
			MarkdownDescription: "Labels that select the workload's pods (`spec.selector.matchLabels` of a Deployment or " +
				"StatefulSet, and on every pod). Defaults to `app.kubernetes.io/name` and `app.kubernetes.io/instance` set " +
				"to `name`. Import sets it when it adopts a workload that selects its pods by other labels. Kubernetes " +
				"cannot change a selector, so changing it re-creates the workload.",
			Optional:      true,
			ElementType:   types.StringType,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
		},
		"container_name": schema.StringAttribute{
			MarkdownDescription: "Name of the GPU container (a DNS-1123 label). Defaults to `name`; import sets it when it " +
				"adopts a workload whose GPU container has another name.",
			Optional: true,
		},
		"image_pull_secrets": schema.ListAttribute{
			MarkdownDescription: "Secrets in the workload's namespace with registry credentials for pulling the image " +
				"(`imagePullSecrets`), e.g. an NGC API key as a `kubernetes.io/dockerconfigjson` Secret.",
			Optional:    true,
			ElementType: types.StringType,
		},
		"priority_class_name": schema.StringAttribute{
			MarkdownDescription: "PriorityClass of the pods (`priorityClassName`): preemption order, and the queue " +
				"priority of Kueue, Volcano or KAI.",
			Optional: true,
		},
		"queue": schema.DynamicAttribute{
			MarkdownDescription: "Queue the workload waits in until its GPUs are free: the `ref` of a `gpu_queue`, e.g. " +
				"`gpu_queue.team_a.ref` (then the " +
				"workload's GPUs, namespace and request are checked against the queue's flavors and quota at plan time), " +
				"or the name of a queue managed elsewhere (a Kueue LocalQueue of the workload's namespace, or a KAI Scheduler " +
				"or Volcano queue with `queue_scheduler`). Kueue then owns what it owns: it suspends a Job or gates the pods " +
				"until admission and adds the flavor's node selector and tolerations; none of that is drift. With `wait_for`, " +
				"a queued workload is reported as queued with Kueue's reason, not as unschedulable.",
			Optional: true,
		},
		"queue_scheduler": tfconv.OneOf(spec.QueueSchedulerNames(), "Queue system of `queue`: one of ", ". Defaults to `"+
			spec.QueueSchedulerKueue+"`. `kai` and `volcano` render their queue label or annotation and `schedulerName` "+
			"as their documentation specifies; they are not tested against those controllers.",
			stringvalidator.AlsoRequires(path.MatchRoot("queue"))),
		"labels":          stringMap("Labels on the Deployment, StatefulSet, Job or CronJob."),
		"annotations":     stringMap("Annotations on the Deployment, StatefulSet, Job or CronJob."),
		"pod_labels":      stringMap("Extra labels on the pods."),
		"pod_annotations": stringMap("Annotations on the pods."),
		"size": tfconv.OneOf(workload.SizeNames(), "CPU and memory per GPU preset: one of ",
			". Without it, the accelerator's usual machine shape per GPU is used. `cpu`/`memory` override it."),
		"cpu": schema.StringAttribute{
			MarkdownDescription: "CPU request of the container (a Kubernetes quantity, e.g. `8` or `7500m`). No CPU limit is " +
				"set, so data loaders are not throttled.",
			Optional: true,
		},
		"memory": schema.StringAttribute{
			MarkdownDescription: "Memory request and limit (a Kubernetes quantity, e.g. `64Gi`).",
			Optional:            true,
		},
		"shm_size": schema.StringAttribute{
			MarkdownDescription: "Size of `/dev/shm`, mounted as a memory-backed emptyDir (PyTorch data loaders need more " +
				"than the container runtime's 64 MiB). A quantity such as `16Gi`. A `distributed_job` gets one without " +
				"it, half the container's memory (NCCL's shared memory).",
			Optional: true,
		},
		"ipc_lock": schema.BoolAttribute{
			MarkdownDescription: "Add the `IPC_LOCK` capability (needed by RDMA/NCCL to pin memory).",
			Optional:            true,
		},
		"spot": schema.BoolAttribute{
			MarkdownDescription: "Run on spot/preemptible GPU nodes: adds the cloud's spot selector and toleration.",
			Optional:            true,
		},
		"patch": schema.StringAttribute{
			MarkdownDescription: "A strategic merge patch (YAML or JSON) of the rendered Deployment, StatefulSet, Job or CronJob, applied while " +
				"planning the way `kubectl patch` and kustomize apply one, for any field no attribute covers: security " +
				"contexts, volumes, sidecars and init containers, scheduler, a StatefulSet's update strategy, `podFailurePolicy`, ... " +
				"(docs/design/workloads.md says which fields are typed and why). `manifests` shows the result, and drift detection and server-side apply " +
				"cover the patched fields. The GPU placement cannot be undone through it: a patch that changes or removes " +
				"the GPU request, gives another container GPUs, changes a node selector entry of the placement, drops a " +
				"toleration it needs, widens its required node affinity, or renames the workload fails the plan, saying " +
				"which field. Containers merge by name; the GPU container is named after the workload (or `container_name`).",
			Optional: true,
		},
		"apply": resourcekit.ApplyAttribute(),
		"wait_for": schema.StringAttribute{
			MarkdownDescription: "What apply waits for: one of " + tfconv.MarkdownList(kube.WaitModes()) + ". Defaults to `rollout` " +
				"for a deployment and `complete` for a job. Waits end with the `timeouts` (create and update: 20 minutes). " +
				"A deployment not ready by then is an error. A job still running (or still pending) by then is not: it " +
				"stays in the state as created, untainted, with a warning, so the next plan neither deletes nor re-runs a " +
				"long training run; raise `timeouts { create = \"24h\" }` to wait for it, or set `scheduled` to return " +
				"once its pods run. A job that fails is an error. With a Kueue `queue`, `admitted` returns as soon as Kueue " +
				"admits the workload; whatever the mode, a wait that ends while the workload is still queued (or was " +
				"preempted back into its queue) is a warning with Kueue's reason, and the workload stays in the state, untainted.",
			Optional:   true,
			Validators: []validator.String{stringvalidator.OneOf(kube.WaitModes()...)},
		},
		"unschedulable_timeout": resourcekit.UnschedulableTimeoutAttribute("a pod of the workload"),
		"node_pool": refs.PoolAttribute("The node pool the workload runs on: it takes cloud, accelerator, partition, "+
			"sharing, selectors, tolerations and resource name from the pool. Asking the pool for something it cannot "+
			"give (another accelerator, more GPUs than a node has, several GPUs from a shared pool) fails the plan.", false),
		"adopt": schema.BoolAttribute{
			MarkdownDescription: "Take over a Deployment, StatefulSet, Job or CronJob of the same name that already exists and was not created " +
				"by `gpu_workload`, overwriting its fields with this configuration. Without it, creating over an existing " +
				"object fails, so that destroy never deletes a workload this resource did not create or import. To keep " +
				"what the object has, import it instead.",
			Optional: true,
		},
		"force_conflicts": resourcekit.ForceConflictsAttribute(),
	}
	maps.Copy(attrs, workloadComputedAttributes())
	return attrs
}

func workloadComputedAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"uid": resourcekit.UIDAttribute("Deployment, StatefulSet, Job or CronJob"),
		"manifests": resourcekit.ManifestsAttribute("The rendered objects as canonical YAML, one document per object, known at plan time: " +
			"`[for m in gpu_workload.x.manifests : yamldecode(m)]` gives the objects, and " +
			"`join(\"---\\n\", gpu_workload.x.manifests)` one file of them (for GitOps). After apply they reflect what " +
			"the cluster holds for the fields this resource manages, so drift shows as a line diff."),
		"resource_name": schema.StringAttribute{
			MarkdownDescription: "The extended resource requested, e.g. `nvidia.com/gpu` or `nvidia.com/mig-2g.10gb`.",
			Computed:            true,
		},
		"node_selector": schema.MapAttribute{
			MarkdownDescription: "The effective node selector of the pods.",
			Computed:            true,
			ElementType:         types.StringType,
		},
		"tolerations": tfconv.TolerationsAttribute("The effective tolerations of the pods."),
		"scheduled_nodes": schema.ListAttribute{
			MarkdownDescription: "Nodes the pods ran on after apply.",
			Computed:            true,
			ElementType:         types.StringType,
		},
	}
}

func stringMap(description string) schema.MapAttribute {
	return schema.MapAttribute{MarkdownDescription: description, Optional: true, ElementType: types.StringType}
}

func modelCacheBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "A PersistentVolumeClaim for model weights: reference one with `claim_name`, or have one " +
			"created with `size`.",
		Attributes: map[string]schema.Attribute{
			"claim_name":    schema.StringAttribute{Optional: true, MarkdownDescription: "Existing claim to mount."},
			"size":          schema.StringAttribute{Optional: true, MarkdownDescription: "Size of a claim to create, e.g. `200Gi`."},
			"storage_class": schema.StringAttribute{Optional: true, MarkdownDescription: "Storage class of a created claim."},
			"access_mode": schema.StringAttribute{Optional: true, MarkdownDescription: "Access mode of a created claim " +
				"(default `ReadWriteOnce`)."},
			"mount_path": schema.StringAttribute{Optional: true, MarkdownDescription: "Mount path (default `/models`)."},
			"read_only":  schema.BoolAttribute{Optional: true, MarkdownDescription: "Mount read-only."},
		},
	}
}

func probeBlock(description string) schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: description + " Give one of `http_path` (+ `port`), `tcp_port` or `exec`.",
		Attributes: map[string]schema.Attribute{
			"http_path":             schema.StringAttribute{Optional: true, MarkdownDescription: "HTTP GET path."},
			"port":                  schema.Int64Attribute{Optional: true, MarkdownDescription: "Port of `http_path`."},
			"tcp_port":              schema.Int64Attribute{Optional: true, MarkdownDescription: "TCP port to connect to."},
			"exec":                  schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Command to run."},
			"initial_delay_seconds": schema.Int64Attribute{Optional: true, MarkdownDescription: "Delay before the first probe."},
			"period_seconds":        schema.Int64Attribute{Optional: true, MarkdownDescription: "Seconds between probes."},
			"timeout_seconds":       schema.Int64Attribute{Optional: true, MarkdownDescription: "Probe timeout."},
			"failure_threshold":     schema.Int64Attribute{Optional: true, MarkdownDescription: "Failures before giving up."},
		},
	}
}

func jobBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Job controls; for `kind = \"job\"`, for the Jobs a `cronjob` starts, and for a " +
			"`distributed_job` (whose `distributed.nodes` sets completions and parallelism; `backoff_limit` defaults to 0 there).",
		Attributes: map[string]schema.Attribute{
			"backoff_limit":              schema.Int64Attribute{Optional: true, MarkdownDescription: "Retries before the Job fails."},
			"active_deadline_seconds":    schema.Int64Attribute{Optional: true, MarkdownDescription: "Wall-clock limit of the Job."},
			"ttl_seconds_after_finished": schema.Int64Attribute{Optional: true, MarkdownDescription: "Delete the finished Job after this many seconds."},
			"completions": schema.Int64Attribute{Optional: true, MarkdownDescription: "Successful pods needed. Immutable " +
				"in Kubernetes: a change replaces the Job."},
			"parallelism": schema.Int64Attribute{Optional: true, MarkdownDescription: "Pods running at once."},
		},
	}
}

func cronJobBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Schedule of a `kind = \"cronjob\"` (required for it, refused for other kinds). The `job` " +
			"block shapes every Job it starts. The apply does not wait: nothing runs until the schedule fires.",
		Attributes: map[string]schema.Attribute{
			"schedule": schema.StringAttribute{Optional: true, MarkdownDescription: "Five-field cron schedule, e.g. " +
				"`0 3 * * *`, or a macro such as `@daily`, parsed as the CronJob controller parses it."},
			"time_zone": schema.StringAttribute{Optional: true, MarkdownDescription: "IANA time zone of the schedule, e.g. " +
				"`Europe/Berlin`; default the controller's (usually UTC)."},
			"concurrency_policy": tfconv.OneOf(spec.ConcurrencyPolicyNames(), "What a run does while the previous one "+
				"still runs: one of ", " (default `Allow`). `Forbid` keeps a long training run from doubling its GPU use."),
			"successful_jobs_history_limit": schema.Int64Attribute{Optional: true, MarkdownDescription: "Finished Jobs kept (default 3)."},
			"failed_jobs_history_limit":     schema.Int64Attribute{Optional: true, MarkdownDescription: "Failed Jobs kept (default 1)."},
			"starting_deadline_seconds": schema.Int64Attribute{Optional: true, MarkdownDescription: "A run that could not " +
				"start within this many seconds of its time is skipped."},
			"suspend": schema.BoolAttribute{Optional: true, MarkdownDescription: "Stop starting new runs."},
		},
	}
}

// distributedBlock is what forms a distributed_job. Allowed values and
// ranges come from the kind's package, which renders and validates them.
func distributedBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "How a `kind = \"distributed_job\"` forms (required for it, refused for other kinds): " +
			"`nodes` pods of an Indexed Job, each with `gpu.count` GPUs, that find each other under a headless " +
			"Service of the workload's name (pod `i` is `<name>-i.<name>`). Without a Kueue `queue`, the default " +
			"scheduler does not start the pods together; with one, they are admitted all together. See the " +
			"multi-node guide.",
		Attributes: map[string]schema.Attribute{
			"nodes": schema.Int64Attribute{
				MarkdownDescription: "Pods that form the job, one per node's worth of GPUs: the Indexed Job's " +
					"completions and parallelism (1 to " + strconv.Itoa(distributedjob.MaxNodes) +
					"). Each pod's index is its node rank. A change re-creates the Job.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, distributedjob.MaxNodes)},
			},
			"launcher": tfconv.OneOf(distributedjob.LauncherNames(), "Whose settings the pods get: one of ",
				" (default `"+spec.LauncherTorchrun+"`). `torchrun` sets `PET_NNODES`, `PET_NPROC_PER_NODE` (= `gpu.count`), "+
					"`PET_NODE_RANK` (the completion index), `PET_MASTER_ADDR` (pod 0, `<name>-0.<name>`) and "+
					"`PET_MASTER_PORT`, so the command is plain `torchrun train.py`; `none` sets nothing beyond the "+
					"stable names, for launchers the provider does not know."),
			"port": schema.Int64Attribute{
				MarkdownDescription: "Rendezvous port on pod 0, on the Service and the container (default `" +
					strconv.Itoa(spec.DefaultDistributedPort) + "`, torchrun's).",
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, distributedjob.MaxPort)},
			},
		},
	}
}

// kindDescription is the kind attribute's description, from the registry:
// the values, the default, then what each kind says of itself in
// registration order.
func kindDescription() string {
	text := "Workload kind: one of " + tfconv.MarkdownList(kinds.Names()) + ". Defaults to `" + kinds.Default().Name + "`."
	for _, k := range kinds.All() {
		if k.Doc != "" {
			text += " " + k.Doc
		}
	}
	return text
}
