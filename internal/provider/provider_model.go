package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// providerModel is the provider block's Terraform values, read by Configure
// (provider_config.go) and ValidateConfig.
type providerModel struct {
	Host                 types.String `tfsdk:"host"`
	Token                types.String `tfsdk:"token"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
	Insecure             types.Bool   `tfsdk:"insecure"`
	ConfigPath           types.String `tfsdk:"config_path"`
	ConfigPaths          types.List   `tfsdk:"config_paths"`
	ConfigContext        types.String `tfsdk:"config_context"`
	// Exec stays a Terraform value: a dynamic exec block over values known
	// only after apply makes it unknown, which a struct pointer cannot hold.
	Exec         types.Object `tfsdk:"exec"`
	DefaultCloud types.String `tfsdk:"default_cloud"`
	FieldManager types.String `tfsdk:"field_manager"`
	// KubernetesVersion is read by resourcekit.Data.Kubernetes.
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
	KueueVersion      types.String `tfsdk:"kueue_version"`
}

// exec decodes the exec block; ok is false when it is absent, and the
// block's attributes are unknown when it is.
func (m providerModel) exec(ctx context.Context) (e execModel, ok bool) {
	if m.Exec.IsNull() {
		return e, false
	}
	if m.Exec.IsUnknown() {
		unknown := types.StringUnknown()
		return execModel{APIVersion: unknown, Command: unknown, Args: types.ListUnknown(types.StringType),
			Env: types.MapUnknown(types.StringType)}, true
	}
	return e, !m.Exec.As(ctx, &e, basetypes.ObjectAsOptions{UnhandledUnknownAsEmpty: true}).HasError()
}

type execModel struct {
	APIVersion types.String `tfsdk:"api_version"`
	Command    types.String `tfsdk:"command"`
	Args       types.List   `tfsdk:"args"`
	Env        types.Map    `tfsdk:"env"`
}

// userAgent names the provider and its version in every request.
func userAgent(version string) string {
	return fmt.Sprintf("terraform-provider-gpu/%s", version)
}
