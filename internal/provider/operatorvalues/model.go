package operatorvalues

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuintent"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
)

// operatorValuesModel is gpu_operator_values' Terraform data. The target
// blocks mirror render's input structs field for field.
type operatorValuesModel struct {
	ID                 types.String  `tfsdk:"id"`
	Target             types.String  `tfsdk:"target"`
	Cloud              types.String  `tfsdk:"cloud"`
	BaseValuesYAML     types.List    `tfsdk:"base_values_yaml"`
	ChartPath          types.String  `tfsdk:"chart_path"`
	RenderPreview      types.Bool    `tfsdk:"render_preview"`
	FiftyOne           types.Object  `tfsdk:"fiftyone"`
	Flyte              types.Object  `tfsdk:"flyte"`
	GPUOperator        types.Object  `tfsdk:"gpu_operator"`
	NvidiaDevicePlugin types.Object  `tfsdk:"nvidia_device_plugin"`
	Numaflow           types.Object  `tfsdk:"numaflow"`
	ValuesYAML         types.String  `tfsdk:"values_yaml"`
	Values             types.Dynamic `tfsdk:"values"`
	PodFragmentsYAML   types.String  `tfsdk:"pod_fragments_yaml"`
	PreviewManifests   types.Map     `tfsdk:"preview_manifests"`
}

type fiftyOneModel struct {
	Deployment  types.List `tfsdk:"deployment"`
	JobTemplate types.List `tfsdk:"job_template"`
}

type fiftyOneImageModel struct {
	Repository types.String `tfsdk:"repository"`
	Tag        types.String `tfsdk:"tag"`
}

type fiftyOneDeploymentModel struct {
	Key         types.String `tfsdk:"key"`
	Enabled     types.Bool   `tfsdk:"enabled"`
	Replicas    types.Int64  `tfsdk:"replicas"`
	Description types.String `tfsdk:"description"`
	Image       types.Object `tfsdk:"image"`
	Env         types.Map    `tfsdk:"env"`
	GPU         types.Object `tfsdk:"gpu"`
	NodePool    types.String `tfsdk:"node_pool"`
	Spot        types.Bool   `tfsdk:"spot"`
	Size        types.String `tfsdk:"size"`
	CPU         types.String `tfsdk:"cpu"`
	Memory      types.String `tfsdk:"memory"`
}

type fiftyOneJobTemplateModel struct {
	Key                     types.String `tfsdk:"key"`
	Enabled                 types.Bool   `tfsdk:"enabled"`
	Image                   types.Object `tfsdk:"image"`
	Env                     types.Map    `tfsdk:"env"`
	GPU                     types.Object `tfsdk:"gpu"`
	NodePool                types.String `tfsdk:"node_pool"`
	Spot                    types.Bool   `tfsdk:"spot"`
	Size                    types.String `tfsdk:"size"`
	CPU                     types.String `tfsdk:"cpu"`
	Memory                  types.String `tfsdk:"memory"`
	BackoffLimit            types.Int64  `tfsdk:"backoff_limit"`
	ActiveDeadlineSeconds   types.Int64  `tfsdk:"active_deadline_seconds"`
	TTLSecondsAfterFinished types.Int64  `tfsdk:"ttl_seconds_after_finished"`
	Parallelism             types.Int64  `tfsdk:"parallelism"`
}

type flyteModel struct {
	FlyteVersion        types.Int64  `tfsdk:"flyte_version"`
	Accelerators        types.List   `tfsdk:"accelerators"`
	Sharing             types.String `tfsdk:"sharing"`
	Interruptible       types.Bool   `tfsdk:"interruptible"`
	DefaultTolerations  types.List   `tfsdk:"default_tolerations"`
	DefaultNodeSelector types.Map    `tfsdk:"default_node_selector"`
	DefaultEnvVars      types.Map    `tfsdk:"default_env_vars"`
	NodePools           types.List   `tfsdk:"node_pools"`
	GPUResourceName     types.String `tfsdk:"gpu_resource_name"`
	DeviceNodeLabel     types.String `tfsdk:"gpu_device_node_label"`
	PartitionSizeLabel  types.String `tfsdk:"gpu_partition_size_node_label"`
}

type gpuOperatorModel struct {
	NodePools      types.List   `tfsdk:"node_pools"`
	ConfigMapName  types.String `tfsdk:"config_map_name"`
	MIGStrategy    types.String `tfsdk:"mig_strategy"`
	MIGLayout      types.List   `tfsdk:"mig_layout"`
	DCGMExporter   types.Bool   `tfsdk:"dcgm_exporter"`
	ServiceMonitor types.Bool   `tfsdk:"service_monitor"`
	DriverEnabled  types.Bool   `tfsdk:"driver_enabled"`
	ToolkitEnabled types.Bool   `tfsdk:"toolkit_enabled"`
	Tolerations    types.List   `tfsdk:"tolerations"`
}

type migLayoutModel struct {
	Name        types.String `tfsdk:"name"`
	Accelerator types.String `tfsdk:"accelerator"`
	Devices     types.Map    `tfsdk:"devices"`
}

type devicePluginModel struct {
	NodePools   types.List   `tfsdk:"node_pools"`
	MIGStrategy types.String `tfsdk:"mig_strategy"`
	Tolerations types.List   `tfsdk:"tolerations"`
}

type numaflowModel struct {
	Kind        types.String `tfsdk:"kind"`
	Name        types.String `tfsdk:"name"`
	Namespace   types.String `tfsdk:"namespace"`
	VertexName  types.String `tfsdk:"vertex_name"`
	Image       types.String `tfsdk:"image"`
	GPU         types.Object `tfsdk:"gpu"`
	NodePool    types.String `tfsdk:"node_pool"`
	Spot        types.Bool   `tfsdk:"spot"`
	Size        types.String `tfsdk:"size"`
	CPU         types.String `tfsdk:"cpu"`
	Memory      types.String `tfsdk:"memory"`
	Env         types.Map    `tfsdk:"env"`
	Annotations types.Map    `tfsdk:"annotations"`
	Manifest    types.Bool   `tfsdk:"manifest"`
}

type tolerationInputModel struct {
	Key               types.String `tfsdk:"key"`
	Operator          types.String `tfsdk:"operator"`
	Value             types.String `tfsdk:"value"`
	Effect            types.String `tfsdk:"effect"`
	TolerationSeconds types.Int64  `tfsdk:"toleration_seconds"`
}

// valuesConverter builds values.Input from the model. Pool ids that
// do not decode become error findings on the attribute that holds them, so
// they are reported with render's own diagnostics.
type valuesConverter struct {
	*tfconv.Converter
	findings gpudiag.Diagnostics
	// poolUnknown: some pool id is not known yet, so neither is the cloud
	// an unset cloud attribute would follow.
	poolUnknown bool
}

// toValuesInput converts the target blocks; Cloud is left to the caller,
// which decides between configuration, pools and default_cloud.
func (c *valuesConverter) toValuesInput(m operatorValuesModel) values.Input {
	return values.Input{
		FiftyOne:           c.fiftyOne(m.FiftyOne),
		Flyte:              c.flyte(m.Flyte),
		GPUOperator:        c.gpuOperator(m.GPUOperator),
		NvidiaDevicePlugin: c.devicePlugin(m.NvidiaDevicePlugin),
		Numaflow:           c.numaflow(m.Numaflow),
	}
}

// objects decodes a list block into target (a pointer to a slice of
// models); false when the list is null or unknown.
func (c *valuesConverter) objects(v types.List, target any) bool {
	if v.IsUnknown() {
		c.Unknown = true
		return false
	}
	if v.IsNull() {
		return false
	}
	c.Diags.Append(v.ElementsAs(c.Ctx, target, false)...)
	return true
}

func (c *valuesConverter) optBool(v types.Bool) *bool {
	if v.IsNull() || v.IsUnknown() {
		c.Unknown = c.Unknown || v.IsUnknown()
		return nil
	}
	b := v.ValueBool()
	return &b
}

// optGPU is nil without a gpu block (a CPU-only FiftyOne runner).
func (c *valuesConverter) optGPU(v types.Object) *spec.GPU {
	if v.IsNull() || v.IsUnknown() {
		c.Unknown = c.Unknown || v.IsUnknown()
		return nil
	}
	g := gpuintent.FromObject(c.Converter, v)
	return &g
}

// pool decodes one gpu_node_pool_policy id. An unknown id gives an empty
// policy (zero values are "unknown" to render), so rules that depend on a
// pool being present still see one.
func (c *valuesConverter) pool(v types.String, at []any) *spec.PoolPolicy {
	if v.IsUnknown() {
		c.Unknown, c.poolUnknown = true, true
		return &spec.PoolPolicy{}
	}
	if v.IsNull() {
		return nil
	}
	p, err := pool.DecodeID(v.ValueString())
	if err != nil {
		c.findings = append(c.findings, gpudiag.Diagnostic{Severity: gpudiag.SeverityError, Path: at,
			Summary: "Invalid node_pool", Detail: err.Error() + ". Allowed: the id of a gpu_node_pool_policy, e.g. " +
				"gpu_node_pool_policy.a100.id."})
		return nil
	}
	return &p
}

// pools decodes a list of ids, keeping positions so diagnostics name the
// right element: unknown or invalid entries become empty policies.
func (c *valuesConverter) pools(v types.List, at []any) []spec.PoolPolicy {
	if v.IsUnknown() {
		c.Unknown, c.poolUnknown = true, true
		return nil
	}
	if v.IsNull() {
		return nil
	}
	out := make([]spec.PoolPolicy, 0, len(v.Elements()))
	for i, e := range v.Elements() {
		s, ok := e.(types.String)
		if !ok {
			continue
		}
		if p := c.pool(s, append(append([]any{}, at...), i)); p != nil {
			out = append(out, *p)
		} else {
			out = append(out, spec.PoolPolicy{})
		}
	}
	return out
}

func (c *valuesConverter) tolerations(v types.List) []corev1.Toleration {
	var items []tolerationInputModel
	if !c.objects(v, &items) {
		return nil
	}
	out := make([]corev1.Toleration, len(items))
	for i, t := range items {
		out[i] = corev1.Toleration{
			Key:               c.Str(t.Key),
			Operator:          corev1.TolerationOperator(c.Str(t.Operator)),
			Value:             c.Str(t.Value),
			Effect:            corev1.TaintEffect(c.Str(t.Effect)),
			TolerationSeconds: c.OptInt64(t.TolerationSeconds),
		}
	}
	return out
}

func (c *valuesConverter) image(v types.Object) *fiftyone.FiftyOneImage {
	var m fiftyOneImageModel
	if !c.Object(v, &m) {
		return nil
	}
	return &fiftyone.FiftyOneImage{Repository: c.Str(m.Repository), Tag: c.Str(m.Tag)}
}

func (c *valuesConverter) fiftyOne(v types.Object) *fiftyone.Values {
	var m fiftyOneModel
	if !c.Object(v, &m) {
		return nil
	}
	out := &fiftyone.Values{}
	var deployments []fiftyOneDeploymentModel
	c.objects(m.Deployment, &deployments)
	for i, d := range deployments {
		out.Deployments = append(out.Deployments, fiftyone.FiftyOneDeployment{
			Key: c.Str(d.Key), Enabled: c.optBool(d.Enabled), Replicas: c.OptInt32(d.Replicas),
			Description: c.Str(d.Description), Image: c.image(d.Image), Env: c.StringMap(d.Env),
			GPU: c.optGPU(d.GPU), NodePool: c.pool(d.NodePool, []any{"fiftyone", "deployment", i, "node_pool"}),
			Spot: c.Boolean(d.Spot), Size: c.Str(d.Size), CPU: c.Str(d.CPU), Memory: c.Str(d.Memory),
		})
	}
	var jobs []fiftyOneJobTemplateModel
	c.objects(m.JobTemplate, &jobs)
	for i, j := range jobs {
		out.JobTemplates = append(out.JobTemplates, fiftyone.JobTemplate{
			Key: c.Str(j.Key), Enabled: c.optBool(j.Enabled), Image: c.image(j.Image), Env: c.StringMap(j.Env),
			GPU: c.optGPU(j.GPU), NodePool: c.pool(j.NodePool, []any{"fiftyone", "job_template", i, "node_pool"}),
			Spot: c.Boolean(j.Spot), Size: c.Str(j.Size), CPU: c.Str(j.CPU), Memory: c.Str(j.Memory),
			BackoffLimit: c.OptInt32(j.BackoffLimit), ActiveDeadlineSeconds: c.OptInt64(j.ActiveDeadlineSeconds),
			TTLSecondsAfterFinished: c.OptInt32(j.TTLSecondsAfterFinished), Parallelism: c.OptInt32(j.Parallelism),
		})
	}
	return out
}

func (c *valuesConverter) flyte(v types.Object) *flyte.Values {
	var m flyteModel
	if !c.Object(v, &m) {
		return nil
	}
	return &flyte.Values{
		FlyteVersion:           c.Int64(m.FlyteVersion),
		Accelerators:           c.Strings(m.Accelerators),
		Sharing:                c.Str(m.Sharing),
		Interruptible:          c.Boolean(m.Interruptible),
		DefaultTolerations:     c.tolerations(m.DefaultTolerations),
		DefaultNodeSelector:    c.StringMap(m.DefaultNodeSelector),
		DefaultEnvVars:         c.StringMap(m.DefaultEnvVars),
		NodePools:              c.pools(m.NodePools, []any{"flyte", "node_pools"}),
		GPUResourceName:        c.Str(m.GPUResourceName),
		DeviceNodeLabel:        c.Str(m.DeviceNodeLabel),
		PartitionSizeNodeLabel: c.Str(m.PartitionSizeLabel),
	}
}

func (c *valuesConverter) gpuOperator(v types.Object) *nvidia.GPUOperatorValues {
	var m gpuOperatorModel
	if !c.Object(v, &m) {
		return nil
	}
	return &nvidia.GPUOperatorValues{
		NodePools:      c.pools(m.NodePools, []any{"gpu_operator", "node_pools"}),
		ConfigMapName:  c.Str(m.ConfigMapName),
		MIGStrategy:    c.Str(m.MIGStrategy),
		MIGLayouts:     c.migLayouts(m.MIGLayout),
		DCGMExporter:   c.optBool(m.DCGMExporter),
		ServiceMonitor: c.optBool(m.ServiceMonitor),
		DriverEnabled:  c.optBool(m.DriverEnabled),
		ToolkitEnabled: c.optBool(m.ToolkitEnabled),
		Tolerations:    c.tolerations(m.Tolerations),
	}
}

func (c *valuesConverter) migLayouts(v types.List) []nvidia.MIGLayout {
	var items []migLayoutModel
	if !c.objects(v, &items) {
		return nil
	}
	out := make([]nvidia.MIGLayout, len(items))
	for i, l := range items {
		out[i] = nvidia.MIGLayout{Name: c.Str(l.Name), Accelerator: c.Str(l.Accelerator), Devices: c.int64Map(l.Devices)}
	}
	return out
}

func (c *valuesConverter) int64Map(v types.Map) map[string]int64 {
	if v.IsUnknown() {
		c.Unknown = true
		return nil
	}
	if v.IsNull() {
		return nil
	}
	out := map[string]int64{}
	for k, e := range v.Elements() {
		if n, ok := e.(types.Int64); ok {
			out[k] = c.Int64(n)
		}
	}
	return out
}

func (c *valuesConverter) devicePlugin(v types.Object) *nvidia.DevicePluginValues {
	var m devicePluginModel
	if !c.Object(v, &m) {
		return nil
	}
	return &nvidia.DevicePluginValues{
		NodePools:   c.pools(m.NodePools, []any{"nvidia_device_plugin", "node_pools"}),
		MIGStrategy: c.Str(m.MIGStrategy),
		Tolerations: c.tolerations(m.Tolerations),
	}
}

func (c *valuesConverter) numaflow(v types.Object) *numaflow.Values {
	var m numaflowModel
	if !c.Object(v, &m) {
		return nil
	}
	return &numaflow.Values{
		Kind: c.Str(m.Kind), Name: c.Str(m.Name), Namespace: c.Str(m.Namespace), VertexName: c.Str(m.VertexName),
		Image: c.Str(m.Image), GPU: gpuintent.FromObject(c.Converter, m.GPU), NodePool: c.pool(m.NodePool, []any{"numaflow", "node_pool"}),
		Spot: c.Boolean(m.Spot), Size: c.Str(m.Size), CPU: c.Str(m.CPU), Memory: c.Str(m.Memory),
		Env: c.StringMap(m.Env), Annotations: c.StringMap(m.Annotations), Manifest: c.Boolean(m.Manifest),
	}
}

// poolClouds lists the clouds of every pool the input references, in
// order, so an unset cloud can follow the pools as gpu_workload's does.
func poolClouds(in values.Input) []string {
	var pools []spec.PoolPolicy
	add := func(p *spec.PoolPolicy) {
		if p != nil {
			pools = append(pools, *p)
		}
	}
	if f := in.FiftyOne; f != nil {
		for _, d := range f.Deployments {
			add(d.NodePool)
		}
		for _, j := range f.JobTemplates {
			add(j.NodePool)
		}
	}
	if in.Flyte != nil {
		pools = append(pools, in.Flyte.NodePools...)
	}
	if in.GPUOperator != nil {
		pools = append(pools, in.GPUOperator.NodePools...)
	}
	if in.NvidiaDevicePlugin != nil {
		pools = append(pools, in.NvidiaDevicePlugin.NodePools...)
	}
	if in.Numaflow != nil {
		add(in.Numaflow.NodePool)
	}
	var clouds []string
	for _, p := range pools {
		clouds = append(clouds, p.Cloud)
	}
	return clouds
}
