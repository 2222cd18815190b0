package spec

import "github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"

// Workload is the user's intent: one container that needs GPUs, run as a
// Deployment or a Job. Field names map 1:1 to the Terraform attributes (in
// snake_case) that gpudiag.Diagnostic paths use.
//
// Zero values mean "unset OR unknown": at plan time the provider passes
// Terraform-unknown values as ""/0/nil. Validate therefore skips every rule
// that needs a zero-valued field, and never reports a required field as
// missing; Render, which runs once everything is known, does.
//
// The JSON names are the spec annotation's format (version 1, written by the
// first release with the Go field names): they are fixed, whatever the Go
// fields are called later. The provider's format fixtures check them.
type Workload struct {
	Name      string `json:"Name"`      // name
	Namespace string `json:"Namespace"` // namespace; Render uses "default" when empty
	Kind      string `json:"Kind"`      // kind: one of kinds.Names()
	Cloud     string `json:"Cloud"`     // cloud: one of CloudNames()

	// Replicas applies to deployments and statefulsets; nil leaves
	// spec.replicas to the server (1) or to an autoscaler.
	Replicas *int32 `json:"Replicas"` // replicas
	// UpdateStrategy is a deployment's update strategy, one of
	// UpdateStrategyNames(); empty derives it from Replicas (Recreate for
	// one, one pod at a time for several). omitempty keeps the spec
	// annotation of workloads without it what earlier releases wrote.
	UpdateStrategy string `json:"UpdateStrategy,omitempty"` // update_strategy

	Labels         map[string]string `json:"Labels"`         // labels, on every object
	Annotations    map[string]string `json:"Annotations"`    // annotations, on every object
	PodLabels      map[string]string `json:"PodLabels"`      // pod_labels, on the pod template
	PodAnnotations map[string]string `json:"PodAnnotations"` // pod_annotations, on the pod template
	// SelectorLabels select the workload's pods; empty means the name and
	// instance labels set to Name. Set when adopting a workload whose
	// immutable selector uses other labels. omitempty keeps the spec
	// annotation of other workloads byte-for-byte what earlier releases wrote.
	SelectorLabels map[string]string `json:"SelectorLabels,omitempty"` // selector_labels

	// ContainerName names the GPU container; empty means Name.
	ContainerName string `json:"ContainerName,omitempty"` // container_name

	Image   string   `json:"Image"`   // image
	Command []string `json:"Command"` // command
	Args    []string `json:"Args"`    // args
	// Env is rendered sorted by name; it wins over cloud defaults such as
	// GKE's LD_LIBRARY_PATH.
	Env map[string]string `json:"Env"` // env
	// SecretEnv are variables read from Secrets when the pod starts: only
	// the reference is in the manifest (and in Terraform state), never the
	// secret value.
	SecretEnv          map[string]SecretKeyRef `json:"SecretEnv"`          // secret_env
	Ports              []int32                 `json:"Ports"`              // ports (TCP container ports)
	ServiceAccountName string                  `json:"ServiceAccountName"` // service_account_name
	// ImagePullSecrets name Secrets of the namespace holding registry
	// credentials (NGC images need one). omitempty keeps earlier spec
	// annotations byte-for-byte.
	ImagePullSecrets []string `json:"ImagePullSecrets,omitempty"` // image_pull_secrets
	// PriorityClassName orders the pod in preemption and in queueing
	// systems (Kueue, Volcano, KAI).
	PriorityClassName string `json:"PriorityClassName,omitempty"` // priority_class_name

	GPU GPU `json:"GPU"` // gpu

	// Queue is the queue the workload waits in: a Kueue LocalQueue of its
	// namespace, or a KAI Scheduler or Volcano queue (QueueScheduler, ""
	// meaning Kueue). omitempty keeps the spec annotation of workloads
	// without a queue byte-for-byte what earlier releases wrote.
	Queue          string `json:"Queue,omitempty"`          // queue
	QueueScheduler string `json:"QueueScheduler,omitempty"` // queue_scheduler
	// Kueue is the Kueue release a queued workload is judged by (the
	// provider's kueue_version, the cluster's, or the oldest when neither
	// is known). nil where the provider's configuration is not at hand
	// (validating the configuration alone): the release-dependent rules
	// then wait for the plan. Not an attribute of the workload, and never
	// written into its spec annotation.
	Kueue *kueuever.Known `json:"-"`

	// Size is a sizing preset (SizeNames()); CPU and Memory override it. Both
	// are totals for the container, not per GPU.
	Size   string `json:"Size"`   // size
	CPU    string `json:"CPU"`    // cpu
	Memory string `json:"Memory"` // memory
	// ShmSize sizes a memory-backed /dev/shm (PyTorch DataLoader workers and
	// NCCL need more than the container runtime's 64 MiB default).
	ShmSize string `json:"ShmSize"` // shm_size

	ModelCache *ModelCache `json:"ModelCache"` // model_cache

	StartupProbe   *Probe `json:"StartupProbe"`   // startup_probe
	LivenessProbe  *Probe `json:"LivenessProbe"`  // liveness_probe
	ReadinessProbe *Probe `json:"ReadinessProbe"` // readiness_probe

	// IPCLock adds the IPC_LOCK capability (pinned host memory for RDMA /
	// GPUDirect and some inference servers).
	IPCLock bool `json:"IPCLock"` // ipc_lock
	Spot    bool `json:"Spot"`    // spot

	// Job applies to jobs, and to the jobs a cronjob starts.
	Job *JobControls `json:"Job"` // job
	// CronJob applies to cronjobs only. omitempty keeps the spec annotation
	// of other kinds byte-for-byte what earlier releases wrote.
	CronJob *CronJobControls `json:"CronJob,omitempty"` // cronjob
	// Distributed applies to distributed jobs only: how many pods form the
	// job and how their launcher finds its peers. omitempty keeps the spec
	// annotation of other kinds byte-for-byte what earlier releases wrote.
	Distributed *DistributedControls `json:"Distributed,omitempty"` // distributed

	// Patch is a strategic merge patch (YAML or JSON) of the rendered
	// Deployment or Job, for fields no attribute covers; it may not undo
	// the GPU placement. omitempty keeps the spec annotation of workloads
	// without a patch byte-for-byte what earlier releases wrote.
	Patch string `json:"Patch,omitempty"` // patch

	// Topology keeps the workload's pods in one domain of the pool's
	// network topology (topology block). omitempty keeps the spec
	// annotation of workloads without it byte-for-byte.
	Topology *WorkloadTopology `json:"Topology,omitempty"` // topology
}

// WorkloadTopology is a topology request in the user's words: every pod in
// one domain of Level (a level name of the pool's topology, or its node
// label), Required or only preferred; and, with SliceSize, every SliceSize
// consecutive pods in one domain of SliceLevel.
type WorkloadTopology struct {
	Level      string `json:"Level,omitempty"`      // level
	Mode       string `json:"Mode,omitempty"`       // mode: TopologyModeNames(); "" is required
	SliceSize  int64  `json:"SliceSize,omitempty"`  // slice_size
	SliceLevel string `json:"SliceLevel,omitempty"` // slice_level
	// NVLinkDomain: the pods share one NVLink domain across nodes through a
	// ComputeDomain of NVIDIA's DRA driver (NVL72 pools only).
	NVLinkDomain bool `json:"NVLinkDomain,omitempty"` // nvlink_domain
}

// How strictly a workload's pods share a topology domain.
const (
	// TopologyRequired: all pods in one domain, or none runs (Kueue keeps
	// the workload queued; the default scheduler leaves later pods Pending).
	TopologyRequired = "required"
	// TopologyPreferred: one domain when one has room, else spread.
	TopologyPreferred = "preferred"
)

// TopologyModeNames lists the accepted topology.mode values, the default first.
func TopologyModeNames() []string { return []string{TopologyRequired, TopologyPreferred} }

// SecretKeyRef names one key of a Secret in the workload's namespace.
type SecretKeyRef struct {
	Name string `json:"name"` // name: the Secret
	Key  string `json:"key"`  // key: the key in the Secret
}

// GPU is the accelerator request.
type GPU struct {
	// Count is whole GPUs, or MIG instances with Partition, or shared slots
	// with Sharing.
	Count int64 `json:"Count"` // count
	// Requests exists because users copy "requests" from examples; it must
	// equal Count. The rendered request always equals the limit.
	Requests *int64 `json:"Requests"` // requests

	// Accelerator is one model; Accelerators a preference list (first is
	// preferred). They are mutually exclusive.
	Accelerator  string   `json:"Accelerator"`  // accelerator
	Accelerators []string `json:"Accelerators"` // accelerators

	// Partition is a MIG profile of Accelerator, e.g. "2g.10gb".
	Partition string `json:"Partition"` // partition
	// MIGStrategy is how the cluster's device plugin exposes MIG:
	// MIGStrategyNames(); "" means single.
	MIGStrategy string `json:"MIGStrategy"` // mig_strategy

	// Sharing is SharingNames(); MaxSharedClients selects nodes configured
	// for that many clients per GPU.
	Sharing          string `json:"Sharing"`          // sharing
	MaxSharedClients int64  `json:"MaxSharedClients"` // max_shared_clients

	DRA *DRA `json:"DRA"` // dra
}

// DRA asks for the GPU through Dynamic Resource Allocation instead of the
// nvidia.com/gpu extended resource.
type DRA struct {
	// DeviceClass defaults to DefaultDeviceClass.
	DeviceClass string `json:"DeviceClass"` // device_class
	// Selectors are CEL expressions over device attributes, ANDed: the
	// escape hatch. Without them the claim selects the accelerator,
	// accelerators (in order) and partition itself
	// (docs/design/dra.md#6-claims-from-intent).
	Selectors []string `json:"Selectors"` // selectors

	// MinMemory is the least memory each device must have, a Kubernetes
	// quantity such as "40Gi", checked against the memory the driver
	// publishes. omitempty (here and below) keeps the spec annotation of
	// workloads without it byte-for-byte what earlier releases wrote.
	MinMemory string `json:"MinMemory,omitempty"` // min_memory
	// Same puts every device of the claim on one PCIe root or one NUMA node
	// (DRASameNames()), through the claim's matchAttribute constraint.
	Same string `json:"Same,omitempty"` // same
}

// What gpu.dra.same can ask all devices of a claim to share.
const (
	// DRASamePCIeRoot: one PCIe root complex (resource.kubernetes.io/pcieRoot).
	DRASamePCIeRoot = "pcie-root"
	// DRASameNUMANode: one NUMA node (resource.kubernetes.io/numaNode).
	DRASameNUMANode = "numa-node"
)

// DRASameNames lists the accepted gpu.dra.same values.
func DRASameNames() []string { return []string{DRASamePCIeRoot, DRASameNUMANode} }

// ModelCache mounts a PersistentVolumeClaim for model weights: either an
// existing claim (ClaimName) or one Render creates (Size, StorageClass,
// AccessMode).
type ModelCache struct {
	ClaimName    string `json:"ClaimName"`    // claim_name
	Size         string `json:"Size"`         // size
	StorageClass string `json:"StorageClass"` // storage_class; "" uses the cluster default
	MountPath    string `json:"MountPath"`    // mount_path; default DefaultModelCacheMountPath
	ReadOnly     bool   `json:"ReadOnly"`     // read_only
	AccessMode   string `json:"AccessMode"`   // access_mode: AccessModeNames(); default ReadWriteOnce
}

// Probe configures one container probe. Exactly one target: HTTPPath (with
// Port, or the first of Workload.Ports), Exec, or TCPPort. Timing fields
// default per probe kind (workload/probes.go).
type Probe struct {
	HTTPPath            string   `json:"HTTPPath"`            // http_path
	Port                int32    `json:"Port"`                // port
	Exec                []string `json:"Exec"`                // exec
	TCPPort             int32    `json:"TCPPort"`             // tcp_port
	InitialDelaySeconds *int32   `json:"InitialDelaySeconds"` // initial_delay_seconds
	PeriodSeconds       *int32   `json:"PeriodSeconds"`       // period_seconds
	TimeoutSeconds      *int32   `json:"TimeoutSeconds"`      // timeout_seconds
	FailureThreshold    *int32   `json:"FailureThreshold"`    // failure_threshold
}

// JobControls are batch/v1 Job settings; nil fields use Kubernetes defaults.
type JobControls struct {
	BackoffLimit            *int32 `json:"BackoffLimit"`            // backoff_limit
	ActiveDeadlineSeconds   *int64 `json:"ActiveDeadlineSeconds"`   // active_deadline_seconds
	TTLSecondsAfterFinished *int32 `json:"TTLSecondsAfterFinished"` // ttl_seconds_after_finished
	Completions             *int32 `json:"Completions"`             // completions
	Parallelism             *int32 `json:"Parallelism"`             // parallelism
}

// CronJobControls is the cronjob block: when the Job runs and how runs
// overlap and are kept.
type CronJobControls struct {
	Schedule                   string `json:"Schedule"`                             // schedule: cron syntax
	TimeZone                   string `json:"TimeZone,omitempty"`                   // time_zone: IANA name
	ConcurrencyPolicy          string `json:"ConcurrencyPolicy,omitempty"`          // concurrency_policy
	SuccessfulJobsHistoryLimit *int32 `json:"SuccessfulJobsHistoryLimit,omitempty"` // successful_jobs_history_limit
	FailedJobsHistoryLimit     *int32 `json:"FailedJobsHistoryLimit,omitempty"`     // failed_jobs_history_limit
	StartingDeadlineSeconds    *int64 `json:"StartingDeadlineSeconds,omitempty"`    // starting_deadline_seconds
	Suspend                    bool   `json:"Suspend,omitempty"`                    // suspend
}

// DistributedControls is the distributed block: an Indexed Job of Nodes
// pods that find each other under a headless Service.
type DistributedControls struct {
	// Nodes is how many pods (one per node's worth of GPUs) form the job;
	// nil when unset or unknown.
	Nodes *int64 `json:"Nodes,omitempty"` // nodes
	// Launcher is whose settings the pods get: LauncherNames(); "" is
	// torchrun.
	Launcher string `json:"Launcher,omitempty"` // launcher
	// Port is the rendezvous port on pod 0; nil is DefaultDistributedPort.
	Port *int64 `json:"Port,omitempty"` // port
}

// Launchers of a distributed job.
const (
	// LauncherTorchrun: PyTorch's torchrun reads its settings from the PET_*
	// variables the pods get.
	LauncherTorchrun = "torchrun"
	// LauncherNone: no launcher variables, only the stable names.
	LauncherNone = "none"
)

// DefaultDistributedPort is torchrun's default master port.
const DefaultDistributedPort = 29500

// ConcurrencyPolicyNames lists the accepted cronjob.concurrency_policy
// values (batch/v1 CronJob).
func ConcurrencyPolicyNames() []string { return []string{"Allow", "Forbid", "Replace"} }

// Names of the workload kinds, for the kind packages that define them and
// for callers that build a workload of a given kind. What a kind is, and
// which kinds exist, is the registry's (internal/render/kinds).
const (
	KindDeployment = "deployment"
	// KindStatefulSet gives each replica a stable name and, with a created
	// model cache, a volume of its own (volume claim templates).
	KindStatefulSet = "statefulset"
	KindJob         = "job"
	// KindCronJob runs the Job on a schedule.
	KindCronJob = "cronjob"
	// KindDistributedJob is an Indexed Job whose pods form one job under a
	// headless Service (stable names, ranks, the launcher's rendezvous).
	KindDistributedJob = "distributed_job"
)

// Deployment update strategies (update_strategy).
const (
	// UpdateRecreate stops every old pod before a new one starts: no spare
	// GPU is needed, and the workload is down until the new pods are ready.
	UpdateRecreate = "recreate"
	// UpdateRolling replaces one pod at a time inside the GPUs already held
	// (RollingUpdate, maxSurge 0, maxUnavailable 1).
	UpdateRolling = "rolling"
	// UpdateSurge starts a new pod before an old one stops (RollingUpdate,
	// maxSurge 1, maxUnavailable 0): no downtime, but the pool needs a spare
	// pod's worth of GPUs during the update.
	UpdateSurge = "surge"
)

// UpdateStrategyNames lists the accepted update_strategy values.
func UpdateStrategyNames() []string { return []string{UpdateRecreate, UpdateRolling, UpdateSurge} }

// MIG strategies of the NVIDIA device plugin / GPU Operator.
const (
	// MIGStrategySingle: every GPU on the node has the same profile and each
	// instance is advertised as nvidia.com/gpu.
	MIGStrategySingle = "single"
	// MIGStrategyMixed: each profile is its own resource, nvidia.com/mig-<profile>.
	MIGStrategyMixed = "mixed"
)

// MIGStrategyNames lists the accepted mig_strategy values.
func MIGStrategyNames() []string { return []string{MIGStrategySingle, MIGStrategyMixed} }

// GPU sharing modes.
const (
	// SharingTimeSlicing: CUDA time-slicing, no memory isolation. GKE calls it
	// "time-sharing"; the provider translates.
	SharingTimeSlicing = "time-slicing"
	// SharingMPS: NVIDIA Multi-Process Service.
	SharingMPS = "mps"
)

// SharingNames lists the accepted sharing values.
func SharingNames() []string { return []string{SharingTimeSlicing, SharingMPS} }

// Defaults applied by Render.
const (
	DefaultNamespace = "default"
	// DefaultDeviceClass is NVIDIA's DRA class for whole GPUs
	// (docs/design/kubernetes.md#resourceclaimtemplate-shapes).
	DefaultDeviceClass         = "gpu.nvidia.com"
	DefaultModelCacheMountPath = "/models"
	DefaultFieldManager        = "terraform-provider-gpu"
)

// Limits that validation enforces.
const (
	// MaxGPUsPerPod is the most GPUs one machine carries (GKE a2-megagpu-16g
	// has 16 A100s; every other shape in the catalog has at most 8). A pod
	// cannot span machines, so more can never schedule.
	MaxGPUsPerPod = 16
	// MaxDRASelectors is resource.k8s.io's DeviceSelectorsMaxSize.
	MaxDRASelectors = 32
	// MaxDRAPreferences is resource.k8s.io's
	// FirstAvailableDeviceRequestMaxSize: a DRA claim lists at most this
	// many accelerators in order of preference.
	MaxDRAPreferences = 8
)

// AccessModeNames lists the accepted model_cache.access_mode values.
func AccessModeNames() []string {
	return []string{"ReadWriteOnce", "ReadWriteOncePod", "ReadWriteMany", "ReadOnlyMany"}
}
