package gpuworkload

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuintent"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// workloadModel is gpu_workload's Terraform data.
type WorkloadModel struct {
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
	Topology           types.Object   `tfsdk:"topology"`
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

// toWorkload converts the plan or state into render's input, as
// configured: the cloud is picked later (pickCloud), after the node pool.
func toWorkload(c *tfconv.Converter, m WorkloadModel) spec.Workload {
	w := spec.Workload{
		Name:               c.Str(m.Name),
		Namespace:          c.Str(m.Namespace),
		Kind:               c.Str(m.Kind),
		Cloud:              c.Str(m.Cloud),
		Replicas:           c.OptInt32(m.Replicas),
		Image:              c.Str(m.Image),
		Command:            c.Strings(m.Command),
		Args:               c.Strings(m.Args),
		Env:                c.StringMap(m.Env),
		SecretEnv:          secretRefs(c, m.SecretEnv),
		Ports:              c.Int32s(m.Ports),
		ServiceAccountName: c.Str(m.ServiceAccountName),
		Labels:             c.StringMap(m.Labels),
		Annotations:        c.StringMap(m.Annotations),
		PodLabels:          c.StringMap(m.PodLabels),
		PodAnnotations:     c.StringMap(m.PodAnnotations),
		SelectorLabels:     c.StringMap(m.SelectorLabels),
		ImagePullSecrets:   c.Strings(m.ImagePullSecrets),
		PriorityClassName:  c.Str(m.PriorityClassName),
		Queue:              c.Str(m.Queue),
		QueueScheduler:     c.Str(m.QueueScheduler),
		ContainerName:      c.Str(m.ContainerName),
		Size:               c.Str(m.Size),
		CPU:                c.Str(m.CPU),
		Memory:             c.Str(m.Memory),
		ShmSize:            c.Str(m.ShmSize),
		IPCLock:            c.Boolean(m.IPCLock),
		Spot:               c.Boolean(m.Spot),
		Patch:              c.Str(m.Patch),
		GPU:                gpuintent.FromObject(c, m.GPU),
		ModelCache:         tfconv.Decode[spec.ModelCache](c, m.ModelCache),
		StartupProbe:       tfconv.Decode[spec.Probe](c, m.StartupProbe),
		LivenessProbe:      tfconv.Decode[spec.Probe](c, m.LivenessProbe),
		ReadinessProbe:     tfconv.Decode[spec.Probe](c, m.ReadinessProbe),
		Job:                tfconv.Decode[spec.JobControls](c, m.Job),
		CronJob:            tfconv.Decode[spec.CronJobControls](c, m.CronJob),
		Topology:           tfconv.Decode[spec.WorkloadTopology](c, m.Topology),
	}
	if w.Kind == "" && !m.Kind.IsUnknown() {
		w.Kind = spec.KindDeployment
	}
	return w
}

var secretRefAttrTypes = map[string]attr.Type{"name": types.StringType, "key": types.StringType}

func secretRefs(c *tfconv.Converter, v types.Map) map[string]spec.SecretKeyRef {
	var out map[string]spec.SecretKeyRef
	tfconv.DecodeInto(c, v, &out)
	return out
}

// withManifests derives manifests from Manifest (manifestDocs).
// setWorkloadState and setWorkloadPlan call it on every write of the model,
// so the two never disagree and no caller has to remember it.
func (m *WorkloadModel) WithManifests() {
	m.Manifests = resourcekit.ManifestDocs(m.Manifest)
}

// setRenderedOutputs copies render's outputs into the computed attributes.
func setRenderedOutputs(ctx context.Context, m *WorkloadModel, rendered *workload.Rendered) diag.Diagnostics {
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
func setPlacementOutputs(ctx context.Context, m *WorkloadModel, rendered *workload.Rendered) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ResourceName = types.StringValue(rendered.ResourceName)
	selector, d := types.MapValueFrom(ctx, types.StringType, rendered.NodeSelector)
	diags.Append(d...)
	m.NodeSelector = selector
	m.Tolerations = tfconv.TolerationList(rendered.Tolerations, &diags)
	return diags
}
