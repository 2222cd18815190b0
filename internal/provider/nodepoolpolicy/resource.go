package nodepoolpolicy

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// NewResource returns the gpu_node_pool_policy resource.
func NewResource() resource.Resource {
	return resourcekit.New[poolPolicyResource]("_node_pool_policy")
}

type poolPolicyResource struct{ resourcekit.Resource }

// ValidateConfig runs every rule that configuration alone decides.
func (r *poolPolicyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := resourcekit.Get[nodePoolPolicyModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	p, _ := policyFromModel(ctx, config, "", &resp.Diagnostics)
	p = withoutSchemaErrors(p)
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(locatable(pool.Validate(p)))...)
	resp.Diagnostics.Append(requireBlockAttributes(ctx, config)...)
}

// ModifyPlan derives every output from configuration: no cluster call.
func (r *poolPolicyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan, ok := resourcekit.Planned[nodePoolPolicyModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	var configuredCloud types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("cloud"), &configuredCloud)...)
	cloudDefaulted := configuredCloud.IsNull()
	if cloudDefaulted {
		if r.DefaultCloud() == "" {
			resp.Diagnostics.AddAttributeError(path.Root("cloud"), "Missing cloud",
				"Set cloud on this resource or default_cloud in the provider \"gpu\" block. Allowed: "+
					tfconv.MarkdownList(clouds.PoolNames())+".")
			return
		}
		plan.Cloud = types.StringValue(r.DefaultCloud())
	}
	p, unknown := policyFromModel(ctx, plan, r.DefaultCloud(), &resp.Diagnostics)
	validation := pool.Validate(p)
	if cloudDefaulted {
		withoutCloud := p
		withoutCloud.Cloud = ""
		added := resourcekit.Subtract(validation, pool.Validate(withoutCloud))
		resp.Diagnostics.Append(resourcekit.RenderDiagnostics(locatable(fromDefaultCloud(added, p.Cloud)))...)
	}
	if resp.Diagnostics.HasError() || validation.HasError() {
		return
	}
	plan.Drift = types.ListValueMust(types.StringType, nil)
	if unknown {
		setPoolOutputsUnknown(&plan)
		plan.ManagedNodes = types.ListUnknown(types.StringType)
		resp.Diagnostics.Append(resourcekit.SetPlan(ctx, &resp.Plan, &plan)...)
		return
	}
	resp.Diagnostics.Append(r.judgeByKubernetes(ctx, &p)...)
	rendered, rdiags := pool.Render(p)
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(locatable(resourcekit.Subtract(rdiags, validation)))...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(setPoolOutputs(ctx, &plan, p, rendered)...)
	r.planDeviceClassYAML(ctx, req, p, &plan)
	resp.Diagnostics.Append(planManagedNodes(ctx, req, &plan)...)
	if !plan.DevicePluginConfig.IsNull() && rendered.DevicePluginConfig == "" {
		resp.Diagnostics.AddAttributeWarning(path.Root("device_plugin_config"), "This pool needs no device plugin config",
			"Only MIG and shared pools outside GKE need a device plugin configuration; nothing will be written.")
	}
	resp.Diagnostics.Append(resourcekit.SetPlan(ctx, &resp.Plan, &plan)...)
}

// planManagedNodes keeps the managed node list when nothing will change and
// leaves it unknown when the apply labels nodes.
func planManagedNodes(ctx context.Context, req resource.ModifyPlanRequest, plan *nodePoolPolicyModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if plan.ManageNodes.IsNull() {
		plan.ManagedNodes = types.ListValueMust(types.StringType, nil)
		return diags
	}
	if req.State.Raw.IsNull() {
		plan.ManagedNodes = types.ListUnknown(types.StringType)
		return diags
	}
	state, _ := resourcekit.Get[nodePoolPolicyModel](ctx, req.State, &diags)
	unchanged := len(state.Drift.Elements()) == 0 && state.Ref.Equal(plan.Ref) &&
		state.ManageNodes.Equal(plan.ManageNodes) && state.DevicePluginConfig.Equal(plan.DevicePluginConfig)
	if unchanged {
		plan.ManagedNodes = state.ManagedNodes
	} else {
		plan.ManagedNodes = types.ListUnknown(types.StringType)
	}
	return diags
}

func (r *poolPolicyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := resourcekit.Get[nodePoolPolicyModel](ctx, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	r.applyPolicy(ctx, &plan, nil, &resp.Diagnostics)
	resp.Diagnostics.Append(resourcekit.SetState(ctx, &resp.State, &plan)...)
}

func (r *poolPolicyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, prior, ok := resourcekit.PlanAndPrior[nodePoolPolicyModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	r.applyPolicy(ctx, &plan, &prior, &resp.Diagnostics)
	resp.Diagnostics.Append(resourcekit.SetState(ctx, &resp.State, &plan)...)
}

// applyPolicy does the optional cluster work. Without manage_nodes and
// device_plugin_config a policy is pure computation and touches nothing.
func (r *poolPolicyResource) applyPolicy(ctx context.Context, plan, prior *nodePoolPolicyModel, diags *diag.Diagnostics) {
	plan.Drift = types.ListValueMust(types.StringType, nil)
	priorManaged := []string{}
	if prior != nil {
		var ok bool
		if priorManaged, ok = managedNodes(ctx, prior.ManagedNodes, diags); !ok {
			return
		}
	}
	if !plan.touchesCluster() && (prior == nil || !prior.touchesCluster()) {
		plan.ManagedNodes = types.ListValueMust(types.StringType, nil)
		return
	}
	client, ok := r.Data.Client("gpu_node_pool_policy needs a cluster for manage_nodes / device_plugin_config", diags)
	if !ok {
		return
	}
	if prior != nil {
		diags.Append(r.releasePrior(ctx, client, *prior, *plan)...)
	}
	rendered, ok := r.renderPlan(ctx, *plan, diags)
	if !ok || !applyDeviceClassYAML(plan, rendered, diags) {
		return
	}
	managed := []string{}
	var nodes manageNodesModel
	if (&tfconv.Converter{Ctx: ctx}).Object(plan.ManageNodes, &nodes) {
		want := newPoolNodeState(client, plan.Name.ValueString(), nodes.Selector.ValueString(), rendered)
		var err error
		if managed, err = applyToNodes(ctx, client, want, priorManaged); err != nil {
			diags.AddError("Cannot label and taint the pool's nodes", err.Error())
		}
	}
	plan.ManagedNodes = tfconv.StringList(managed)
	diags.Append(applyDevicePluginConfig(ctx, client, *plan, rendered)...)
	if plan.appliesDeviceClass() {
		diags.Append(applyDeviceClass(ctx, client, rendered)...)
		diags.Append(extendedResourceClash(ctx, client, rendered)...)
	}
}

// touchesCluster: the policy writes to the cluster (labels and taints,
// the device plugin config, a DRA pool's DeviceClass).
func (m nodePoolPolicyModel) touchesCluster() bool {
	return !m.ManageNodes.IsNull() || !m.DevicePluginConfig.IsNull() || m.appliesDeviceClass()
}

func (r *poolPolicyResource) renderPlan(ctx context.Context, m nodePoolPolicyModel, diags *diag.Diagnostics) (*spec.PoolRendered, bool) {
	p, _ := policyFromModel(ctx, m, r.DefaultCloud(), diags)
	// The version's warnings were the plan's; apply and read only use it.
	_ = r.judgeByKubernetes(ctx, &p)
	rendered, rdiags := pool.Render(p)
	diags.Append(resourcekit.RenderDiagnostics(rdiags)...)
	return rendered, !diags.HasError() && rendered != nil
}

// releasePrior undoes what the prior state did that the plan no longer
// wants: a renamed policy, a dropped manage_nodes, a moved ConfigMap entry.
func (r *poolPolicyResource) releasePrior(ctx context.Context, client *kube.Client, prior, plan nodePoolPolicyModel) diag.Diagnostics {
	var diags diag.Diagnostics
	renamed := !prior.Name.Equal(plan.Name)
	if !prior.ManageNodes.IsNull() && (renamed || plan.ManageNodes.IsNull()) {
		diags.Append(releaseNodes(ctx, client, prior)...)
	}
	if !prior.DevicePluginConfig.IsNull() && (renamed || !prior.DevicePluginConfig.Equal(plan.DevicePluginConfig)) {
		diags.Append(removeDevicePluginConfig(ctx, client, prior)...)
	}
	diags.Append(pruneDeviceClass(ctx, client, prior, plan)...)
	return diags
}

func (r *poolPolicyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := resourcekit.Get[nodePoolPolicyModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	// States written before kubernetes_v1_affinity existed lack it; filled
	// in here from the stored affinity, upgrading the provider plans no change.
	resp.Diagnostics.Append(state.fillK8sV1Affinity(ctx)...)
	resp.Diagnostics.Append(resourcekit.SetState(ctx, &resp.State, &state)...)
	if resp.Diagnostics.HasError() || !state.touchesCluster() {
		return
	}
	client, ok := r.Data.RefreshClient("gpu_node_pool_policy", &resp.Diagnostics)
	if !ok {
		return
	}
	rendered, ok := r.renderPlan(ctx, state, &resp.Diagnostics)
	if !ok {
		return
	}
	var drift []string
	var nodes manageNodesModel
	if (&tfconv.Converter{Ctx: ctx}).Object(state.ManageNodes, &nodes) {
		want := newPoolNodeState(client, state.Name.ValueString(), nodes.Selector.ValueString(), rendered)
		managed, ok := managedNodes(ctx, state.ManagedNodes, &resp.Diagnostics)
		if !ok {
			return
		}
		var err error
		if drift, err = nodeDrift(ctx, client, want, managed); err != nil {
			resp.Diagnostics.AddError("Cannot read the pool's nodes", err.Error())
			return
		}
	}
	cmDrift, diags := devicePluginConfigDrift(ctx, client, state, rendered)
	resp.Diagnostics.Append(diags...)
	var classDrift []string
	if state.appliesDeviceClass() {
		classDrift, diags = deviceClassDrift(ctx, client, rendered)
		resp.Diagnostics.Append(diags...)
		resp.Diagnostics.Append(extendedResourceClash(ctx, client, rendered)...)
	}
	state.Drift = tfconv.StringList(slices.Concat(drift, cmDrift, classDrift))
	resp.Diagnostics.Append(resourcekit.SetState(ctx, &resp.State, &state)...)
}

func (r *poolPolicyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := resourcekit.Get[nodePoolPolicyModel](ctx, req.State, &resp.Diagnostics)
	if !ok || !state.touchesCluster() {
		return
	}
	client, ok := r.Data.Client("Cannot clean up gpu_node_pool_policy", &resp.Diagnostics)
	if !ok {
		return
	}
	if !state.ManageNodes.IsNull() {
		resp.Diagnostics.Append(releaseNodes(ctx, client, state)...)
	}
	if !state.DevicePluginConfig.IsNull() {
		resp.Diagnostics.Append(removeDevicePluginConfig(ctx, client, state)...)
	}
	if state.appliesDeviceClass() {
		resp.Diagnostics.Append(removeDeviceClass(ctx, client, state)...)
	}
}

// releaseNodes removes the policy's labels and the taints it added from
// every node it managed.
func releaseNodes(ctx context.Context, client *kube.Client, m nodePoolPolicyModel) diag.Diagnostics {
	var diags diag.Diagnostics
	policy := m.Name.ValueString()
	manager := kube.PoolFieldManager(client.FieldManager, policy)
	managed, ok := managedNodes(ctx, m.ManagedNodes, &diags)
	if !ok {
		return diags
	}
	_, err := forEachNode(managed, func(node string) (string, error) {
		return node, cleanupNode(ctx, client, policy, manager, node)
	})
	if err != nil {
		diags.AddError("Cannot remove the pool's labels and taints from every node", err.Error())
	}
	return diags
}

func applyDevicePluginConfig(ctx context.Context, client *kube.Client, m nodePoolPolicyModel, rendered *spec.PoolRendered) diag.Diagnostics {
	var diags diag.Diagnostics
	var ref configMapRefModel
	if !(&tfconv.Converter{Ctx: ctx}).Object(m.DevicePluginConfig, &ref) || rendered.DevicePluginConfig == "" {
		return diags
	}
	manager := kube.PoolFieldManager(client.FieldManager, m.Name.ValueString())
	err := client.ApplyConfigMapKey(ctx, ref.Namespace.ValueString(), ref.Name.ValueString(), manager,
		rendered.DevicePluginConfigName, rendered.DevicePluginConfig)
	if err != nil {
		diags.AddError("Cannot write the device plugin config", err.Error())
	}
	return diags
}

func removeDevicePluginConfig(ctx context.Context, client *kube.Client, m nodePoolPolicyModel) diag.Diagnostics {
	var diags diag.Diagnostics
	var ref configMapRefModel
	if !(&tfconv.Converter{Ctx: ctx}).Object(m.DevicePluginConfig, &ref) {
		return diags
	}
	manager := kube.PoolFieldManager(client.FieldManager, m.Name.ValueString())
	if err := client.RemoveConfigMapKeys(ctx, ref.Namespace.ValueString(), ref.Name.ValueString(), manager); err != nil {
		diags.AddError("Cannot remove the device plugin config", err.Error())
	}
	return diags
}

func devicePluginConfigDrift(ctx context.Context, client *kube.Client, m nodePoolPolicyModel, rendered *spec.PoolRendered) ([]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	var ref configMapRefModel
	if !(&tfconv.Converter{Ctx: ctx}).Object(m.DevicePluginConfig, &ref) || rendered.DevicePluginConfig == "" {
		return nil, diags
	}
	ns, name, key := ref.Namespace.ValueString(), ref.Name.ValueString(), rendered.DevicePluginConfigName
	got, found, err := client.ConfigMapKey(ctx, ns, name, key)
	switch {
	case err != nil:
		diags.AddError("Cannot read the device plugin config", err.Error())
		return nil, diags
	case !found:
		return []string{fmt.Sprintf("ConfigMap %s/%s has no key %s", ns, name, key)}, diags
	case got != rendered.DevicePluginConfig:
		return []string{fmt.Sprintf("ConfigMap %s/%s key %s was edited", ns, name, key)}, diags
	}
	return nil, diags
}

// managedNodes reads the computed managed_nodes list. The provider writes
// it, so an element it cannot read means an edited or corrupt state; that
// is an error, not an empty list, which would leave the nodes the policy
// labelled and tainted without a word (on update and on destroy).
func managedNodes(ctx context.Context, l types.List, diags *diag.Diagnostics) ([]string, bool) {
	if l.IsNull() || l.IsUnknown() {
		return nil, true
	}
	var out []string
	if more := l.ElementsAs(ctx, &out, false); more.HasError() {
		detail := ""
		for _, d := range more.Errors() {
			detail += " " + d.Summary() + ": " + d.Detail()
		}
		diags.AddAttributeError(path.Root("managed_nodes"), "Cannot read the managed nodes from state",
			"The state's managed_nodes is not a list of node names:"+detail+
				" Allowed: the list this provider wrote; restore the state, or remove the policy's labels and taints from the nodes by hand.")
		return nil, false
	}
	return out, true
}

// policyFromModel converts the model, reporting what the conversion found; unknown
// says a value is not known until apply.
func policyFromModel(ctx context.Context, m nodePoolPolicyModel, defaultCloud string, diags *diag.Diagnostics) (p spec.PoolPolicy, unknown bool) {
	conv := &tfconv.Converter{Ctx: ctx}
	p = policyFromModelWith(conv, m, defaultCloud)
	diags.Append(conv.Diags...)
	return p, conv.Unknown
}
