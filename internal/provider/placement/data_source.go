package placement

import (
	"context"
	_ "embed"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// NewPodPlacementDataSource returns the gpu_pod_placement data source. It is
// the pod_placement and pod_template functions for Terraform before 1.8, which
// has no provider functions.
func NewPodPlacementDataSource() datasource.DataSource {
	return resourcekit.NewDataSource(resourcekit.DataSourceSpec[podPlacementModel]{
		TypeSuffix: "_pod_placement", Schema: podPlacementSchema, Read: readPodPlacement,
	})
}

type podPlacementModel struct {
	Cloud       types.String  `tfsdk:"cloud"`
	GPU         types.Dynamic `tfsdk:"gpu"`
	Container   types.Dynamic `tfsdk:"container"`
	Placement   types.Dynamic `tfsdk:"placement"`
	PodTemplate types.Dynamic `tfsdk:"pod_template"`
	// K8sV1Affinity is placement.affinity for kubernetes_deployment_v1.
	K8sV1Affinity types.Object `tfsdk:"kubernetes_v1_affinity"`
}

// dataSourceDescription is gpu_pod_placement's description, which opens its
// docs page.
//
//go:embed gpu_pod_placement.md
var dataSourceDescription string

// podPlacementSchema is gpu_pod_placement's schema, read into podPlacementModel.
func podPlacementSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: tfconv.MarkdownFile(dataSourceDescription),
		Attributes: map[string]schema.Attribute{
			"cloud": resourcekit.DataCloudAttribute("Cloud of the cluster: one of ", ". Defaults to the provider's `default_cloud`."),
			"gpu": schema.DynamicAttribute{
				MarkdownDescription: gpuRequestDescription,
				Required:            true,
			},
			"container": schema.DynamicAttribute{
				MarkdownDescription: "The GPU container for `pod_template`: an object with " + tfconv.MarkdownList(containerKeys) +
					" (`image` required). Without it, `pod_template` is null.",
				Optional: true,
			},
			"placement": schema.DynamicAttribute{
				MarkdownDescription: "What `provider::gpu::pod_placement` returns: `nodeSelector`, `affinity`, " +
					"`tolerations` and `hostIPC` for the pod spec, `resources` and `env` for the GPU container, and " +
					"with DRA `resourceClaims` and the `resourceClaimTemplate` to create beside the pod; with `pods` > 1 on a " +
					"pool with a GPU network, `annotations`, `initContainers`, `volumes`, `volumeMounts` and `securityContext` " +
					"carry the network (empty otherwise). Every key but the DRA " +
					"ones is always present.",
				Computed: true,
			},
			"pod_template": schema.DynamicAttribute{
				MarkdownDescription: "What `provider::gpu::pod_template` returns for `container`: a pod template " +
					"(`{ spec = { containers, nodeSelector, affinity, tolerations, ... } }`).",
				Computed: true,
			},
			"kubernetes_v1_affinity": schema.ObjectAttribute{
				MarkdownDescription: tfconv.KubernetesV1AffinityDescription("placement.affinity",
					"`placement.nodeSelector` and `placement.tolerations`"),
				AttributeTypes: tfconv.KubernetesV1AffinityAttrTypes,
				Computed:       true,
			},
		},
	}
}

func readPodPlacement(ctx context.Context, env resourcekit.ReadEnv, m *podPlacementModel, diags *diag.Diagnostics) {
	cloud, _ := resourcekit.PickCloud(m.Cloud, "", env.DefaultCloud)
	request, err := gpuRequestFromValue(m.GPU)
	if err != nil {
		diags.AddAttributeError(path.Root("gpu"), "Invalid GPU request", err.Error())
		return
	}
	placed, findings := placeRequest(cloud, request)
	if addPlacementDiagnostics(findings, diags); diags.HasError() {
		return
	}
	affinityV1, affinityDiags := tfconv.KubernetesV1AffinityFrom(ctx, placed.Affinity)
	if diags.Append(affinityDiags...); diags.HasError() {
		return
	}
	m.K8sV1Affinity = affinityV1
	object, err := placementObject(placed)
	if err == nil {
		m.Placement, err = dynamicObject(object)
	}
	if err != nil {
		diags.AddError("Placement not encodable", err.Error())
		return
	}
	m.PodTemplate = types.DynamicNull()
	if !m.Container.IsNull() {
		container, err := containerFromDynamic(m.Container)
		if err != nil {
			diags.AddAttributeError(path.Root("container"), "Invalid container", err.Error())
			return
		}
		template, err := podTemplateObject(placed, container)
		if err == nil {
			m.PodTemplate, err = dynamicObject(template)
		}
		if err != nil {
			diags.AddError("Pod template not encodable", err.Error())
			return
		}
	}
}

// addPlacementDiagnostics reports findings on the attribute they concern:
// cloud, or the gpu object (with the inner path in the text, since a
// dynamic attribute has no nested schema paths).
func addPlacementDiagnostics(findings gpudiag.Diagnostics, diags *diag.Diagnostics) {
	for _, f := range findings {
		at := path.Root("gpu")
		if len(f.Path) > 0 && f.Path[0] == "cloud" {
			at = path.Root("cloud")
		}
		detail := f.Detail
		if p := f.PathString(); p != "" && p != "cloud" {
			detail = p + ": " + detail
		}
		if f.Severity == gpudiag.SeverityWarning {
			diags.AddAttributeWarning(at, f.Summary, detail)
		} else {
			diags.AddAttributeError(at, f.Summary, detail)
		}
	}
}
