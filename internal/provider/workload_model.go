package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// workloadModel is gpu_workload's Terraform data.
type workloadModel struct {
	ID                 types.String   `tfsdk:"id"`
	Name               types.String   `tfsdk:"name"`
	Namespace          types.String   `tfsdk:"namespace"`
	Kind               types.String   `tfsdk:"kind"`
	Cloud              types.String   `tfsdk:"cloud"`
	Replicas           types.Int64    `tfsdk:"replicas"`
	Image              types.String   `tfsdk:"image"`
	Command            types.List     `tfsdk:"command"`
	Args               types.List     `tfsdk:"args"`
	Env                types.Map      `tfsdk:"env"`
	SecretEnv          types.Map      `tfsdk:"secret_env"`
	Ports              types.List     `tfsdk:"ports"`
	ServiceAccountName types.String   `tfsdk:"service_account_name"`
	Labels             types.Map      `tfsdk:"labels"`
	Annotations        types.Map      `tfsdk:"annotations"`
	PodLabels          types.Map      `tfsdk:"pod_labels"`
	PodAnnotations     types.Map      `tfsdk:"pod_annotations"`
	SelectorLabels     types.Map      `tfsdk:"selector_labels"`
	ImagePullSecrets   types.List     `tfsdk:"image_pull_secrets"`
	PriorityClassName  types.String   `tfsdk:"priority_class_name"`
	Queue              types.String   `tfsdk:"queue"`
	QueueScheduler     types.String   `tfsdk:"queue_scheduler"`
	ContainerName      types.String   `tfsdk:"container_name"`
	GPU                types.Object   `tfsdk:"gpu"`
	Size               types.String   `tfsdk:"size"`
	CPU                types.String   `tfsdk:"cpu"`
	Memory             types.String   `tfsdk:"memory"`
	ShmSize            types.String   `tfsdk:"shm_size"`
	IPCLock            types.Bool     `tfsdk:"ipc_lock"`
	Spot               types.Bool     `tfsdk:"spot"`
	Patch              types.String   `tfsdk:"patch"`
	ModelCache         types.Object   `tfsdk:"model_cache"`
	StartupProbe       types.Object   `tfsdk:"startup_probe"`
	LivenessProbe      types.Object   `tfsdk:"liveness_probe"`
	ReadinessProbe     types.Object   `tfsdk:"readiness_probe"`
	Job                types.Object   `tfsdk:"job"`
	CronJob            types.Object   `tfsdk:"cronjob"`
	Apply              types.Bool     `tfsdk:"apply"`
	WaitFor            types.String   `tfsdk:"wait_for"`
	UnschedulableLimit types.String   `tfsdk:"unschedulable_timeout"`
	ForceConflicts     types.Bool     `tfsdk:"force_conflicts"`
	NodePool           types.String   `tfsdk:"node_pool"`
	Adopt              types.Bool     `tfsdk:"adopt"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
	UID                types.String   `tfsdk:"uid"`
	// Manifest is the rendered objects as one YAML stream, for the code that
	// compares or parses them; it is not an attribute. Manifests holds the
	// same split into one document per object, the one copy the state keeps
	// (a second would double what Terraform encodes after every resource,
	// bench/README.md). getWorkload joins it, every write splits it.
	Manifest       types.String `tfsdk:"-"`
	Manifests      types.List   `tfsdk:"manifests"`
	ResourceName   types.String `tfsdk:"resource_name"`
	NodeSelector   types.Map    `tfsdk:"node_selector"`
	Tolerations    types.List   `tfsdk:"tolerations"`
	ScheduledNodes types.List   `tfsdk:"scheduled_nodes"`
}

type gpuModel struct {
	Count            types.Int64  `tfsdk:"count"`
	Requests         types.Int64  `tfsdk:"requests"`
	Accelerator      types.String `tfsdk:"accelerator"`
	Accelerators     types.List   `tfsdk:"accelerators"`
	Partition        types.String `tfsdk:"partition"`
	MIGStrategy      types.String `tfsdk:"mig_strategy"`
	Sharing          types.String `tfsdk:"sharing"`
	MaxSharedClients types.Int64  `tfsdk:"max_shared_clients"`
	DRA              types.Object `tfsdk:"dra"`
}

type draModel struct {
	DeviceClass types.String `tfsdk:"device_class"`
	Selectors   types.List   `tfsdk:"selectors"`
}

type modelCacheModel struct {
	ClaimName    types.String `tfsdk:"claim_name"`
	Size         types.String `tfsdk:"size"`
	StorageClass types.String `tfsdk:"storage_class"`
	AccessMode   types.String `tfsdk:"access_mode"`
	MountPath    types.String `tfsdk:"mount_path"`
	ReadOnly     types.Bool   `tfsdk:"read_only"`
}

type probeModel struct {
	HTTPPath            types.String `tfsdk:"http_path"`
	Port                types.Int64  `tfsdk:"port"`
	TCPPort             types.Int64  `tfsdk:"tcp_port"`
	Exec                types.List   `tfsdk:"exec"`
	InitialDelaySeconds types.Int64  `tfsdk:"initial_delay_seconds"`
	PeriodSeconds       types.Int64  `tfsdk:"period_seconds"`
	TimeoutSeconds      types.Int64  `tfsdk:"timeout_seconds"`
	FailureThreshold    types.Int64  `tfsdk:"failure_threshold"`
}

type jobModel struct {
	BackoffLimit            types.Int64 `tfsdk:"backoff_limit"`
	ActiveDeadlineSeconds   types.Int64 `tfsdk:"active_deadline_seconds"`
	TTLSecondsAfterFinished types.Int64 `tfsdk:"ttl_seconds_after_finished"`
	Completions             types.Int64 `tfsdk:"completions"`
	Parallelism             types.Int64 `tfsdk:"parallelism"`
}

var tolerationAttrTypes = map[string]attr.Type{
	"key": types.StringType, "operator": types.StringType, "value": types.StringType, "effect": types.StringType,
}

// converter turns Terraform values into render inputs, collecting
// diagnostics. Unknown values become zero values: render skips rules that
// need them, and the manifest stays unknown until they are known.
type converter struct {
	ctx     context.Context
	diags   diag.Diagnostics
	unknown bool
}

func (c *converter) str(v types.String) string {
	if v.IsUnknown() {
		c.unknown = true
	}
	return v.ValueString()
}

func (c *converter) boolean(v types.Bool) bool {
	if v.IsUnknown() {
		c.unknown = true
	}
	return v.ValueBool()
}

func (c *converter) int64(v types.Int64) int64 {
	if v.IsUnknown() {
		c.unknown = true
	}
	return v.ValueInt64()
}

func (c *converter) optInt32(v types.Int64) *int32 {
	if v.IsNull() || v.IsUnknown() {
		c.unknown = c.unknown || v.IsUnknown()
		return nil
	}
	n := int32(v.ValueInt64())
	return &n
}

func (c *converter) optInt64(v types.Int64) *int64 {
	if v.IsNull() || v.IsUnknown() {
		c.unknown = c.unknown || v.IsUnknown()
		return nil
	}
	n := v.ValueInt64()
	return &n
}

// strings converts a list element by element: an unknown element (a value
// from another resource) makes the whole list unknown rather than failing
// the conversion, so plans stay possible.
func (c *converter) strings(v types.List) []string {
	return convertList(c, v, func(s types.String) string { return s.ValueString() })
}

func (c *converter) int32s(v types.List) []int32 {
	return convertList(c, v, func(n types.Int64) int32 { return int32(n.ValueInt64()) })
}

func (c *converter) stringMap(v types.Map) map[string]string {
	if c.unknownOrNull(v) {
		return nil
	}
	out := make(map[string]string, len(v.Elements()))
	for k, e := range v.Elements() {
		s, ok := known[types.String](c, e)
		if !ok {
			return nil
		}
		out[k] = s.ValueString()
	}
	return out
}

// convertList converts a list's elements with convert; an unknown list or
// element marks the conversion unknown and gives nil.
func convertList[E attr.Value, T any](c *converter, v types.List, convert func(E) T) []T {
	if c.unknownOrNull(v) {
		return nil
	}
	out := make([]T, 0, len(v.Elements()))
	for _, e := range v.Elements() {
		typed, ok := known[E](c, e)
		if !ok {
			return nil
		}
		out = append(out, convert(typed))
	}
	return out
}

// unknownOrNull: a null collection converts to nil; an unknown one too, and
// marks the conversion unknown.
func (c *converter) unknownOrNull(v attr.Value) bool {
	if v.IsUnknown() {
		c.unknown = true
	}
	return v.IsUnknown() || v.IsNull()
}

// known is an element as its value type; false (and the conversion marked
// unknown) for an unknown element or one of another type.
func known[E attr.Value](c *converter, e attr.Value) (E, bool) {
	typed, ok := e.(E)
	if !ok || typed.IsUnknown() {
		c.unknown = true
		return typed, false
	}
	return typed, true
}

// object decodes a nested object; it reports false when null or unknown.
func (c *converter) object(v types.Object, target any) bool {
	if v.IsUnknown() {
		c.unknown = true
		return false
	}
	if v.IsNull() {
		return false
	}
	c.diags.Append(v.As(c.ctx, target, basetypes.ObjectAsOptions{UnhandledUnknownAsEmpty: true})...)
	return true
}

// toWorkload converts the plan or state into render's input, as
// configured: the cloud is picked later (pickCloud), after the node pool.
func (c *converter) toWorkload(m workloadModel) spec.Workload {
	w := spec.Workload{
		Name:               c.str(m.Name),
		Namespace:          c.str(m.Namespace),
		Kind:               c.str(m.Kind),
		Cloud:              c.str(m.Cloud),
		Replicas:           c.optInt32(m.Replicas),
		Image:              c.str(m.Image),
		Command:            c.strings(m.Command),
		Args:               c.strings(m.Args),
		Env:                c.stringMap(m.Env),
		SecretEnv:          c.secretRefs(m.SecretEnv),
		Ports:              c.int32s(m.Ports),
		ServiceAccountName: c.str(m.ServiceAccountName),
		Labels:             c.stringMap(m.Labels),
		Annotations:        c.stringMap(m.Annotations),
		PodLabels:          c.stringMap(m.PodLabels),
		PodAnnotations:     c.stringMap(m.PodAnnotations),
		SelectorLabels:     c.stringMap(m.SelectorLabels),
		ImagePullSecrets:   c.strings(m.ImagePullSecrets),
		PriorityClassName:  c.str(m.PriorityClassName),
		Queue:              c.str(m.Queue),
		QueueScheduler:     c.str(m.QueueScheduler),
		ContainerName:      c.str(m.ContainerName),
		Size:               c.str(m.Size),
		CPU:                c.str(m.CPU),
		Memory:             c.str(m.Memory),
		ShmSize:            c.str(m.ShmSize),
		IPCLock:            c.boolean(m.IPCLock),
		Spot:               c.boolean(m.Spot),
		Patch:              c.str(m.Patch),
		GPU:                c.gpu(m.GPU),
		ModelCache:         c.modelCache(m.ModelCache),
		StartupProbe:       c.probe(m.StartupProbe),
		LivenessProbe:      c.probe(m.LivenessProbe),
		ReadinessProbe:     c.probe(m.ReadinessProbe),
		Job:                c.job(m.Job),
		CronJob:            c.cronJob(m.CronJob),
	}
	if w.Kind == "" && !m.Kind.IsUnknown() {
		w.Kind = spec.KindDeployment
	}
	return w
}

type secretRefModel struct {
	Name types.String `tfsdk:"name"`
	Key  types.String `tfsdk:"key"`
}

var secretRefAttrTypes = map[string]attr.Type{"name": types.StringType, "key": types.StringType}

func (c *converter) secretRefs(v types.Map) map[string]spec.SecretKeyRef {
	if v.IsUnknown() {
		c.unknown = true
		return nil
	}
	if v.IsNull() {
		return nil
	}
	refs := map[string]secretRefModel{}
	c.diags.Append(v.ElementsAs(c.ctx, &refs, false)...)
	out := make(map[string]spec.SecretKeyRef, len(refs))
	for name, r := range refs {
		out[name] = spec.SecretKeyRef{Name: c.str(r.Name), Key: c.str(r.Key)}
	}
	return out
}

func (c *converter) gpu(v types.Object) spec.GPU {
	var g gpuModel
	if !c.object(v, &g) {
		return spec.GPU{}
	}
	out := spec.GPU{
		Count:            c.int64(g.Count),
		Requests:         c.optInt64(g.Requests),
		Accelerator:      c.str(g.Accelerator),
		Accelerators:     c.strings(g.Accelerators),
		Partition:        c.str(g.Partition),
		MIGStrategy:      c.str(g.MIGStrategy),
		Sharing:          c.str(g.Sharing),
		MaxSharedClients: c.int64(g.MaxSharedClients),
	}
	var d draModel
	if c.object(g.DRA, &d) {
		out.DRA = &spec.DRA{DeviceClass: c.str(d.DeviceClass), Selectors: c.strings(d.Selectors)}
	}
	return out
}

func (c *converter) modelCache(v types.Object) *spec.ModelCache {
	var m modelCacheModel
	if !c.object(v, &m) {
		return nil
	}
	return &spec.ModelCache{
		ClaimName:    c.str(m.ClaimName),
		Size:         c.str(m.Size),
		StorageClass: c.str(m.StorageClass),
		AccessMode:   c.str(m.AccessMode),
		MountPath:    c.str(m.MountPath),
		ReadOnly:     c.boolean(m.ReadOnly),
	}
}

func (c *converter) probe(v types.Object) *spec.Probe {
	var p probeModel
	if !c.object(v, &p) {
		return nil
	}
	return &spec.Probe{
		HTTPPath:            c.str(p.HTTPPath),
		Port:                int32(c.int64(p.Port)),
		TCPPort:             int32(c.int64(p.TCPPort)),
		Exec:                c.strings(p.Exec),
		InitialDelaySeconds: c.optInt32(p.InitialDelaySeconds),
		PeriodSeconds:       c.optInt32(p.PeriodSeconds),
		TimeoutSeconds:      c.optInt32(p.TimeoutSeconds),
		FailureThreshold:    c.optInt32(p.FailureThreshold),
	}
}

func (c *converter) job(v types.Object) *spec.JobControls {
	var j jobModel
	if !c.object(v, &j) {
		return nil
	}
	return &spec.JobControls{
		BackoffLimit:            c.optInt32(j.BackoffLimit),
		ActiveDeadlineSeconds:   c.optInt64(j.ActiveDeadlineSeconds),
		TTLSecondsAfterFinished: c.optInt32(j.TTLSecondsAfterFinished),
		Completions:             c.optInt32(j.Completions),
		Parallelism:             c.optInt32(j.Parallelism),
	}
}

type cronJobModel struct {
	Schedule                   types.String `tfsdk:"schedule"`
	TimeZone                   types.String `tfsdk:"time_zone"`
	ConcurrencyPolicy          types.String `tfsdk:"concurrency_policy"`
	SuccessfulJobsHistoryLimit types.Int64  `tfsdk:"successful_jobs_history_limit"`
	FailedJobsHistoryLimit     types.Int64  `tfsdk:"failed_jobs_history_limit"`
	StartingDeadlineSeconds    types.Int64  `tfsdk:"starting_deadline_seconds"`
	Suspend                    types.Bool   `tfsdk:"suspend"`
}

func (c *converter) cronJob(v types.Object) *spec.CronJobControls {
	var j cronJobModel
	if !c.object(v, &j) {
		return nil
	}
	return &spec.CronJobControls{
		Schedule:                   c.str(j.Schedule),
		TimeZone:                   c.str(j.TimeZone),
		ConcurrencyPolicy:          c.str(j.ConcurrencyPolicy),
		SuccessfulJobsHistoryLimit: c.optInt32(j.SuccessfulJobsHistoryLimit),
		FailedJobsHistoryLimit:     c.optInt32(j.FailedJobsHistoryLimit),
		StartingDeadlineSeconds:    c.optInt64(j.StartingDeadlineSeconds),
		Suspend:                    c.boolean(j.Suspend),
	}
}

// withManifests derives manifests from Manifest (manifestDocs).
// setWorkloadState and setWorkloadPlan call it on every write of the model,
// so the two never disagree and no caller has to remember it.
func (m *workloadModel) withManifests() {
	m.Manifests = manifestDocs(m.Manifest)
}

// setRenderedOutputs copies render's outputs into the computed attributes.
func setRenderedOutputs(ctx context.Context, m *workloadModel, rendered *workload.Rendered) diag.Diagnostics {
	var diags diag.Diagnostics
	manifest, err := workload.ManifestOf(rendered.Objects)
	if err != nil {
		diags.AddError("Cannot encode the rendered workload", err.Error())
		return diags
	}
	m.Manifest = types.StringValue(manifest)
	diags.Append(setPlacementOutputs(ctx, m, rendered)...)
	return diags
}

// setPlacementOutputs copies render's placement (resource name, node
// selector, tolerations) into the computed attributes, without encoding the
// manifest: a refresh writes the manifest the cluster holds instead.
func setPlacementOutputs(ctx context.Context, m *workloadModel, rendered *workload.Rendered) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ResourceName = types.StringValue(rendered.ResourceName)
	selector, d := types.MapValueFrom(ctx, types.StringType, rendered.NodeSelector)
	diags.Append(d...)
	m.NodeSelector = selector
	m.Tolerations = tolerationList(rendered.Tolerations, &diags)
	return diags
}
