package spec

import "github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"

// RayCluster is a Ray cluster's intent (gpu_ray_cluster): a head and worker
// groups, each a pod on its own node pool with its own GPU block, run by
// KubeRay as a RayCluster, or as the cluster of a RayJob (Job) or a
// RayService (Serve) (docs/design/ray.md). Zero values mean "unset OR
// unknown", as in Workload.
type RayCluster struct {
	Name      string `json:"Name"`      // name
	Namespace string `json:"Namespace"` // namespace; "default" when empty
	// Cloud is the default cloud of groups without a node pool.
	Cloud string `json:"Cloud"` // cloud
	// RayVersion is spec.rayVersion, which KubeRay's autoscaler reads.
	RayVersion string `json:"RayVersion,omitempty"` // ray_version
	// Image is every group's image unless the group names its own.
	Image string `json:"Image"` // image

	Labels      map[string]string `json:"Labels,omitempty"`      // labels, on every object
	Annotations map[string]string `json:"Annotations,omitempty"` // annotations, on every object

	ServiceAccountName string   `json:"ServiceAccountName,omitempty"` // service_account_name
	ImagePullSecrets   []string `json:"ImagePullSecrets,omitempty"`   // image_pull_secrets
	PriorityClassName  string   `json:"PriorityClassName,omitempty"`  // priority_class_name

	// Queue is the Kueue LocalQueue the cluster (or its RayJob) waits in.
	Queue string `json:"Queue,omitempty"` // queue
	// Kueue is the release a queued cluster is judged by; never in the
	// spec annotation (Workload.Kueue).
	Kueue *kueuever.Known `json:"-"`

	// Autoscaling turns on KubeRay's in-tree autoscaler: each worker group
	// then runs between min_replicas and max_replicas pods and the
	// autoscaler owns replicas.
	Autoscaling *RayAutoscaling `json:"Autoscaling,omitempty"` // autoscaling

	Head         RayGroup   `json:"Head"`         // head
	WorkerGroups []RayGroup `json:"WorkerGroups"` // worker_group

	// Job makes the cluster a RayJob's; Serve makes it a RayService's. At
	// most one of them.
	Job   *RayJobControls   `json:"Job,omitempty"`   // job
	Serve *RayServeControls `json:"Serve,omitempty"` // serve
}

// RayAutoscaling is the autoscaling block.
type RayAutoscaling struct {
	// IdleTimeoutSeconds is how long a worker stays idle before the
	// autoscaler removes it; nil leaves KubeRay's default (60).
	IdleTimeoutSeconds *int32 `json:"IdleTimeoutSeconds,omitempty"` // idle_timeout_seconds
}

// RayGroup is the head block or one worker_group block: one kind of Ray
// pod. The head has no Name and no replicas.
type RayGroup struct {
	// Name is the worker group's groupName (unused for the head).
	Name string `json:"Name,omitempty"` // name
	// NodePool is the group's pool (its ref decoded); nil places the pod
	// by the cluster's cloud alone (a CPU head: no selector at all). Not
	// part of the spec annotation: the ref is.
	NodePool *PoolPolicy `json:"-"` // node_pool
	// Image overrides the cluster's image.
	Image string `json:"Image,omitempty"` // image
	// GPU nil is a pod without GPUs, which Ray is told has none
	// (num-gpus 0) and which cannot see a node's GPUs.
	GPU  *GPU `json:"GPU,omitempty"`  // gpu
	Spot bool `json:"Spot,omitempty"` // spot

	Size    string `json:"Size,omitempty"`    // size
	CPU     string `json:"CPU,omitempty"`     // cpu
	Memory  string `json:"Memory,omitempty"`  // memory
	ShmSize string `json:"ShmSize,omitempty"` // shm_size

	Env       map[string]string       `json:"Env,omitempty"`       // env
	SecretEnv map[string]SecretKeyRef `json:"SecretEnv,omitempty"` // secret_env

	PodLabels      map[string]string `json:"PodLabels,omitempty"`      // pod_labels
	PodAnnotations map[string]string `json:"PodAnnotations,omitempty"` // pod_annotations

	// RayStartParams are passed to `ray start`; num-gpus must agree with
	// the GPUs the pod gets (the provider sets it).
	RayStartParams map[string]string `json:"RayStartParams,omitempty"` // ray_start_params

	// Replicas, MinReplicas and MaxReplicas are a worker group's; nil
	// Replicas is MinReplicas (or 1).
	Replicas    *int32 `json:"Replicas,omitempty"`    // replicas
	MinReplicas *int32 `json:"MinReplicas,omitempty"` // min_replicas
	MaxReplicas *int32 `json:"MaxReplicas,omitempty"` // max_replicas

	// Topology keeps the group's pods in one domain (Kueue's pod-set
	// annotations in a queue, pod affinity otherwise).
	Topology *WorkloadTopology `json:"Topology,omitempty"` // topology

	// Patch is a strategic merge patch (YAML or JSON) of the group's
	// KubeRay spec (headGroupSpec or its workerGroupSpecs entry), held to
	// the GPU rules and to Ray's view of the GPUs.
	Patch string `json:"Patch,omitempty"` // patch
}

// RayJobControls is the job block: the cluster runs one Ray job.
type RayJobControls struct {
	// Entrypoint is the command the submitter runs (`python train.py`).
	Entrypoint string `json:"Entrypoint"` // entrypoint
	// RuntimeEnvYAML is Ray's runtime environment as YAML.
	RuntimeEnvYAML string `json:"RuntimeEnvYAML,omitempty"` // runtime_env_yaml
	// ShutdownAfterJobFinishes deletes the cluster when the job ends; nil
	// is true (a GPU cluster left running holds its GPUs for nothing).
	ShutdownAfterJobFinishes *bool `json:"ShutdownAfterJobFinishes,omitempty"` // shutdown_after_job_finishes
	// TTLSecondsAfterFinished delays that deletion.
	TTLSecondsAfterFinished *int32 `json:"TTLSecondsAfterFinished,omitempty"` // ttl_seconds_after_finished
	ActiveDeadlineSeconds   *int32 `json:"ActiveDeadlineSeconds,omitempty"`   // active_deadline_seconds
	BackoffLimit            *int32 `json:"BackoffLimit,omitempty"`            // backoff_limit
}

// RayServeControls is the serve block: the cluster serves a Ray Serve
// application.
type RayServeControls struct {
	// ConfigYAML is Ray Serve's config (serveConfigV2), YAML.
	ConfigYAML string `json:"ConfigYAML"` // config_yaml
}
