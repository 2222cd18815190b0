package gpuraycluster

import (
	"context"
	_ "embed"
	"math"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuintent"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/topologyblock"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/ray"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// description is gpu_ray_cluster's description, which opens its docs page.
//
//go:embed gpu_ray_cluster.md
var description string

// Schema describes gpu_ray_cluster. Attribute names are render's field
// names (spec.RayCluster, spec.RayGroup, spec.RayJobControls), which the
// decoder matches by name.
func (r *rayClusterResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: tfconv.MarkdownFile(description),
		Attributes:          clusterAttributes(),
		Blocks: map[string]schema.Block{
			"autoscaling":  autoscalingBlock(),
			"head":         headBlock(),
			"worker_group": workerGroupBlock(),
			"job":          jobBlock(),
			"serve":        serveBlock(),
			"timeouts":     resourcekit.TimeoutsBlock(ctx),
		},
	}
}

func clusterAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"id": resourcekit.NamespacedIDAttribute(),
		"name": schema.StringAttribute{
			MarkdownDescription: "Name of the RayCluster, RayJob or RayService (a DNS-1035 label: at most 53 characters " +
				"for a RayCluster, 47 for a RayJob or RayService, whose cluster KubeRay names after it with a suffix). " +
				"Changing it re-creates the cluster.",
			Required:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"namespace": resourcekit.NamespaceAttribute("cluster"),
		"cloud": resourcekit.CloudAttribute(clouds.Names(), "Cloud whose GPU node conventions apply to groups without a "+
			"`node_pool`: one of ", ". Defaults to the provider's `default_cloud`; a group with a `node_pool` takes the pool's."),
		"image": schema.StringAttribute{
			MarkdownDescription: "Ray image of every group that does not set its own, e.g. `rayproject/ray:2.52.0-gpu`.",
			Required:            true,
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"ray_version": schema.StringAttribute{
			MarkdownDescription: "Ray version of the image (`spec.rayVersion`), which KubeRay's autoscaler reads, e.g. `2.52.0`.",
			Optional:            true,
		},
		"labels":               stringMap("Labels on the RayCluster, RayJob or RayService."),
		"annotations":          stringMap("Annotations on the RayCluster, RayJob or RayService."),
		"service_account_name": optionalString("ServiceAccount every Ray pod runs as."),
		"image_pull_secrets": schema.ListAttribute{
			MarkdownDescription: "Secrets in the cluster's namespace with registry credentials for the images.",
			Optional:            true,
			ElementType:         types.StringType,
		},
		"priority_class_name": optionalString("PriorityClass of every Ray pod: preemption order, and Kueue's priority."),
		"queue": schema.DynamicAttribute{
			MarkdownDescription: "Kueue queue the cluster waits in: the `ref` of a `gpu_queue`, e.g. `gpu_queue.team_a.ref` " +
				"(then each group is checked against the queue's flavors and quota at plan time, as its own pod set), or the " +
				"name of a LocalQueue managed elsewhere. Kueue suspends the object until it admits every group together " +
				"and adds the flavors' selectors; none of that is drift. Kueue refuses `autoscaling` and more than " +
				"worker groups than its release admits (7 in v0.17, 9 in v0.18, 17 in v0.19) in a queue.",
			Optional: true,
		},
		"apply": resourcekit.ApplyAttribute(),
		"wait_for": tfconv.OneOf(waitModeNames(), "What apply waits for: one of ", ". Defaults to `"+waitReady+"`: "+
			"a RayCluster whose every pod is ready (KubeRay's `RayClusterProvisioned`), a RayJob whose job was "+
			"submitted (`jobDeploymentStatus` Running) or finished, a RayService that serves (its `Ready` "+
			"condition). `complete` waits for a RayJob to finish, `scheduled` for every pod to run, `admitted` for "+
			"Kueue's admission. A wait that ends while Kueue keeps the cluster queued is a warning with Kueue's "+
			"reason, and the cluster stays in the state; a pod the scheduler refuses is reported with its reason."),
		"unschedulable_timeout": resourcekit.UnschedulableTimeoutAttribute("a Ray pod"),
		"force_conflicts":       resourcekit.ForceConflictsAttribute(),
	}
	for name, a := range computedAttributes() {
		attrs[name] = a
	}
	return attrs
}

func computedAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"uid": resourcekit.UIDAttribute("RayCluster, RayJob or RayService"),
		"kind": schema.StringAttribute{
			MarkdownDescription: "The Ray object: `RayCluster`, `RayJob` (with `job`) or `RayService` (with `serve`).",
			Computed:            true,
		},
		"state": schema.StringAttribute{
			MarkdownDescription: "KubeRay's status after the apply or the last refresh: a RayCluster's `state` (`ready`, " +
				"`suspended` while Kueue holds it), a RayJob's `jobDeploymentStatus` (`Running`, `Complete`, `Suspended`, " +
				"`Failed`, ...) or a RayService's `Ready`/`NotReady`; empty before KubeRay reported one or with `apply = false`.",
			Computed: true,
		},
		"num_gpus": schema.MapAttribute{
			MarkdownDescription: "GPUs Ray is told each group has (`num-gpus` of its `rayStartParams`), by group: `head` " +
				"and each worker group's name. Whole GPUs, MIG instances, shared slots or DRA devices alike; 0 for a " +
				"group without a `gpu` block, which cannot see a node's GPUs.",
			Computed:    true,
			ElementType: types.Int64Type,
		},
		"manifests": resourcekit.ManifestsAttribute("The rendered objects as canonical YAML, one document per object (the " +
			"groups' DRA claim templates, then the Ray object), known at plan time. After apply they reflect what the " +
			"cluster holds for the fields this resource manages, so drift shows as a line diff; what KubeRay, its " +
			"autoscaler and Kueue own (status, `suspend`, autoscaled replicas, Kueue's flavor selectors) is left out."),
	}
}

func autoscalingBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Turn on KubeRay's in-tree autoscaler (`enableInTreeAutoscaling`): each worker group then " +
			"runs between its `min_replicas` and `max_replicas` (required) and the autoscaler owns its replicas, which " +
			"are not drift. The block's presence enables it. Not allowed with a Kueue `queue`.",
		Attributes: map[string]schema.Attribute{
			"idle_timeout_seconds": schema.Int64Attribute{
				MarkdownDescription: "Seconds a worker stays idle before the autoscaler removes it (KubeRay's default: 60).",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(0, math.MaxInt32)},
			},
		},
	}
}

// groupAttributes are the attributes the head and every worker group
// share: one pod's, as gpu_workload has them.
func groupAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"node_pool": refs.PoolAttribute("The node pool the group's pods run on: they take cloud, accelerator, partition, "+
			"sharing, selectors and tolerations from it. Without it a group without GPUs runs on any node without a GPU taint.", false),
		"image": optionalString("Image of this group, instead of the cluster's `image`."),
		"spot":  schema.BoolAttribute{Optional: true, MarkdownDescription: "Run on spot/preemptible GPU nodes."},
		"size": tfconv.OneOf(workload.SizeNames(), "CPU and memory per GPU preset: one of ", ". `cpu`/`memory` override it. "+
			"A group without GPUs defaults to "+ray.DefaultCPU+" CPUs and "+ray.DefaultMemory+"."),
		"cpu":      optionalString("CPU request of the Ray container (a Kubernetes quantity, e.g. `8`)."),
		"memory":   optionalString("Memory request and limit of the Ray container (a Kubernetes quantity, e.g. `64Gi`)."),
		"shm_size": optionalString("Size of `/dev/shm`, where Ray's object store lives; defaults to half the memory."),
		"env":      stringMap("Environment variables of the Ray container."),
		"secret_env": schema.MapNestedAttribute{
			MarkdownDescription: "Environment variables read from Secrets when the pod starts, e.g. " +
				"`{ HF_TOKEN = { name = \"hf\", key = \"token\" } }`; only the reference is in the manifest.",
			Optional: true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{Required: true, MarkdownDescription: "Secret in the cluster's namespace."},
				"key":  schema.StringAttribute{Required: true, MarkdownDescription: "Key in the Secret."},
			}},
		},
		"pod_labels":      stringMap("Extra labels on the group's pods."),
		"pod_annotations": stringMap("Annotations on the group's pods."),
		"patch": optionalString("A strategic merge patch (YAML or JSON) of the group's KubeRay spec (`headGroupSpec`, or " +
			"this group's `workerGroupSpecs` entry), applied while planning as `kubectl patch` applies one, for any field no " +
			"attribute covers: volumes, sidecars (containers merge by name; the Ray container is `" + ray.HeadContainer +
			"` or `" + ray.WorkerContainer + "`), security contexts, `idleTimeoutSeconds`, `scaleStrategy`, more " +
			"`rayStartParams`. `manifests` shows the result. It cannot undo the GPU rules or Ray's view of the GPUs: a " +
			"patch that changes the GPU request, gives another container GPUs, changes the placement's node selector, " +
			"drops a toleration it needs, widens its node affinity, changes `num-gpus` or the accelerator type, shows a " +
			"node's GPUs to a group without GPUs, or changes a field an attribute owns (`groupName`, `replicas`, " +
			"`minReplicas`, `maxReplicas`, `numOfHosts`) fails the plan, saying which field."),
		"ray_start_params": stringMap("Parameters of `ray start` (`rayStartParams`), e.g. `{ dashboard-host = \"0.0.0.0\" }`. " +
			"The provider writes `" + ray.ParamNumGPUs + "` as the GPUs the pod gets; a different value is a plan error, " +
			"and `labels` is refused (KubeRay v1.5 does)."),
	}
}

func headBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "The head pod (Ray's GCS, dashboard and drivers). Without a `gpu` block it is a CPU head, " +
			"which cannot see a node's GPUs (`NVIDIA_VISIBLE_DEVICES=void`, `num-gpus` 0). Optional: an absent block " +
			"is a CPU head of " + ray.DefaultCPU + " CPUs and " + ray.DefaultMemory + ".",
		Attributes: groupAttributes(),
		Blocks:     map[string]schema.Block{"gpu": groupGPUBlock("head")},
	}
}

func workerGroupBlock() schema.ListNestedBlock {
	attrs := groupAttributes()
	attrs["name"] = schema.StringAttribute{
		MarkdownDescription: "Group name (`groupName`, the pods' `ray.io/group` label and Kueue's pod set): a DNS-1123 " +
			"label, unique, and neither `head` nor `headgroup`.",
		Required: true,
	}
	replicas := func(description string) schema.Int64Attribute {
		return schema.Int64Attribute{MarkdownDescription: description, Optional: true,
			Validators: []validator.Int64{int64validator.Between(0, math.MaxInt32)}}
	}
	attrs["replicas"] = replicas("Pods of the group (default `min_replicas`, else 1). Without `autoscaling` the group " +
		"runs exactly this many; with it, the starting count, within `[min_replicas, max_replicas]`.")
	attrs["min_replicas"] = replicas("Fewest pods the autoscaler keeps (with `autoscaling`).")
	attrs["max_replicas"] = replicas("Most pods the autoscaler starts; required with `autoscaling`.")
	return schema.ListNestedBlock{
		MarkdownDescription: "A group of identical Ray worker pods on one node pool. Repeat the block for each group " +
			"(a `dynamic` block works too).",
		NestedObject: schema.NestedBlockObject{
			Attributes: attrs,
			Blocks: map[string]schema.Block{
				"gpu": groupGPUBlock("worker group"),
				"topology": topologyblock.Block("the group's pods", "In a queue Kueue admits each group as a pod set "+
					"of its own, so the request holds per group: two groups may land in different domains."),
			},
		},
		Validators: []validator.List{listvalidator.SizeAtMost(1000)},
	}
}

func groupGPUBlock(what string) schema.SingleNestedBlock {
	return gpuintent.OptionalBlock("What each pod of the " + what + " needs from GPUs, as `gpu_workload`'s `gpu` block. " +
		"Without it the pods get no GPU and Ray is told `num-gpus` 0.")
}

func jobBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Run one Ray job: the object becomes a RayJob (`submissionMode: K8sJobMode`) whose cluster " +
			"KubeRay creates and, by default, deletes when the job ends. Adding or removing the block (or switching " +
			"to `serve`) re-creates the object.",
		Attributes: map[string]schema.Attribute{
			"entrypoint": schema.StringAttribute{
				MarkdownDescription: "Command the submitter runs on the cluster, e.g. `python train.py`. Required in the block.",
				Optional:            true,
			},
			"runtime_env_yaml": optionalString("Ray's runtime environment as YAML (a mapping), e.g. `pip: [torch]`."),
			"shutdown_after_job_finishes": schema.BoolAttribute{
				MarkdownDescription: "Delete the cluster when the job ends (default `true`: a GPU cluster left running " +
					"holds its GPUs). Must be `true` in a Kueue queue.",
				Optional: true,
			},
			"ttl_seconds_after_finished": int32Attribute("Seconds KubeRay waits after the job before deleting the "+
				"cluster; needs `shutdown_after_job_finishes`.", 0),
			"active_deadline_seconds": int32Attribute("Wall-clock limit of the job, in seconds.", 1),
			"backoff_limit":           int32Attribute("Retries of a failed job.", 0),
		},
	}
}

func serveBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Serve a Ray Serve application: the object becomes a RayService. Adding or removing the " +
			"block (or switching to `job`) re-creates the object.",
		Attributes: map[string]schema.Attribute{
			"config_yaml": schema.StringAttribute{
				MarkdownDescription: "Ray Serve's config (`serveConfigV2`) as YAML: the applications to deploy. Required in the block.",
				Optional:            true,
			},
		},
	}
}

func int32Attribute(description string, least int64) schema.Int64Attribute {
	return schema.Int64Attribute{MarkdownDescription: description, Optional: true,
		Validators: []validator.Int64{int64validator.Between(least, math.MaxInt32)}}
}

func stringMap(description string) schema.MapAttribute {
	return schema.MapAttribute{MarkdownDescription: description, Optional: true, ElementType: types.StringType}
}

func optionalString(description string) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: description, Optional: true}
}
