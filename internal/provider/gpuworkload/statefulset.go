package gpuworkload

import (
	"context"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// statefulSetImmutableFields are the StatefulSet spec fields Kubernetes
// refuses to change on update (apps/v1 validation allows only replicas,
// template, updateStrategy, retention policy, minReadySeconds and ordinals).
var statefulSetImmutableFields = []string{"volumeClaimTemplates", "serviceName", "podManagementPolicy", "selector"}

// statefulSetImmutableAttributes reach those fields: the model cache becomes
// the claim template, and a patch may set any of them.
var statefulSetImmutableAttributes = path.Paths{path.Root("model_cache"), path.Root("patch")}

// requireStatefulSetReplacement marks the changed attributes that reach an
// immutable field of a StatefulSet as forcing its replacement, so the plan
// says so instead of the apply being refused.
func requireStatefulSetReplacement(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan WorkloadModel) {
	if req.State.Raw.IsNull() || plan.Kind.ValueString() != spec.KindStatefulSet {
		return
	}
	manifest, diags := stateManifest(ctx, req.State)
	resp.Diagnostics.Append(diags...)
	replace, diags := statefulSetReplacement(req, manifest.ValueString(), plan.Manifest)
	resp.RequiresReplace = append(resp.RequiresReplace, replace...)
	resp.Diagnostics.Append(diags...)
}

// statefulSetReplacement: with a known plan, the changed attributes force
// replacement only when the immutable fields really change; with an unknown
// one, every changed attribute that reaches them does.
func statefulSetReplacement(req resource.ModifyPlanRequest, stateManifest string, planManifest types.String) (path.Paths, diag.Diagnostics) {
	var diags diag.Diagnostics
	changed := changedAttributes(req, statefulSetImmutableAttributes)
	if planManifest.IsUnknown() {
		return changed, diags
	}
	before, okBefore := specFields(stateManifest, "StatefulSet", statefulSetImmutableFields)
	after, okAfter := specFields(planManifest.ValueString(), "StatefulSet", statefulSetImmutableFields)
	if !okBefore || !okAfter || reflect.DeepEqual(before, after) {
		return nil, diags
	}
	if len(changed) == 0 {
		diags.AddWarning("This StatefulSet's claim templates would change",
			"The provider now renders this StatefulSet's immutable fields (volume claim templates, service name) "+
				"differently, although no attribute changed. Kubernetes does not allow changing them, so the update "+
				"will be refused. Allowed: replace it (terraform apply -replace=<address>), or leave it as it is.")
	}
	return changed, diags
}

// specFields reads the named spec fields of the document of a kind in a
// manifest.
func specFields(manifest, kind string, fields []string) (map[string]any, bool) {
	for _, doc := range strings.Split(manifest, "---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj["kind"] != kind {
			continue
		}
		s, ok := obj["spec"].(map[string]any)
		if !ok {
			return nil, false
		}
		out := map[string]any{}
		for _, f := range fields {
			out[f] = s[f]
		}
		return out, true
	}
	return nil, false
}
