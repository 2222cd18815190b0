package provider

import (
	"context"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Environment variables honoured by the provider block, named as the
// Kubernetes provider names them so existing pipelines keep working.
const (
	envHost        = "KUBE_HOST"
	envToken       = "KUBE_TOKEN"
	envCACert      = "KUBE_CLUSTER_CA_CERT_DATA"
	envClientCert  = "KUBE_CLIENT_CERT_DATA"
	envClientKey   = "KUBE_CLIENT_KEY_DATA"
	envInsecure    = "KUBE_INSECURE"
	envConfigPath  = "KUBE_CONFIG_PATH"
	envConfigPaths = "KUBE_CONFIG_PATHS"
	envContext     = "KUBE_CTX"
	envKubeconfig  = "KUBECONFIG"
)

// resolveKubeConfig applies environment variables to unset attributes.
// Explicit attributes always win over the environment.
func resolveKubeConfig(ctx context.Context, m providerModel, version string) (kube.Config, diag.Diagnostics) {
	var diags diag.Diagnostics
	cfg := kube.Config{
		FieldManager:  stringOr(m.FieldManager, ""),
		UserAgent:     userAgent(version),
		CacheSelector: spec.LabelManagedBy + "=" + spec.ManagedBy,
	}
	if anyUnknown(ctx, m) {
		cfg.Unknown = true
		return cfg, diags
	}
	cfg.Host = stringOr(m.Host, os.Getenv(envHost))
	cfg.Token = stringOr(m.Token, os.Getenv(envToken))
	cfg.ClusterCACertificate = stringOr(m.ClusterCACertificate, os.Getenv(envCACert))
	cfg.ClientCertificate = stringOr(m.ClientCertificate, os.Getenv(envClientCert))
	cfg.ClientKey = stringOr(m.ClientKey, os.Getenv(envClientKey))
	cfg.ConfigContext = stringOr(m.ConfigContext, os.Getenv(envContext))

	insecure, d := boolOrEnv(m.Insecure, envInsecure)
	diags.Append(d...)
	cfg.Insecure = insecure

	paths, d := configPaths(ctx, m)
	diags.Append(d...)
	cfg.ConfigPaths = paths

	if e, ok := m.exec(ctx); ok {
		exec, d := execConfig(ctx, &e)
		diags.Append(d...)
		cfg.Exec = exec
	}
	return cfg, diags
}

// configPaths picks kubeconfig files: attributes, then KUBE_CONFIG_PATH(S),
// then KUBECONFIG. KUBECONFIG is ignored when the block names a host, so a
// workstation's default cluster never leaks into an explicit configuration.
func configPaths(ctx context.Context, m providerModel) ([]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	if p := m.ConfigPath.ValueString(); p != "" {
		return []string{p}, diags
	}
	if !m.ConfigPaths.IsNull() {
		var paths []string
		diags.Append(m.ConfigPaths.ElementsAs(ctx, &paths, false)...)
		return paths, diags
	}
	if p := os.Getenv(envConfigPath); p != "" {
		return []string{p}, diags
	}
	if p := os.Getenv(envConfigPaths); p != "" {
		return filepath.SplitList(p), diags
	}
	if m.Host.ValueString() != "" || os.Getenv(envHost) != "" {
		return nil, diags
	}
	if p := os.Getenv(envKubeconfig); p != "" {
		return filepath.SplitList(p), diags
	}
	return nil, diags
}

func execConfig(ctx context.Context, e *execModel) (*kube.ExecConfig, diag.Diagnostics) {
	var diags diag.Diagnostics
	if e.Command.ValueString() == "" {
		diags.AddAttributeError(path.Root("exec").AtName("command"), "Missing exec command",
			"The exec block needs command: the credential plugin to run, e.g. \"aws\" or \"gke-gcloud-auth-plugin\".")
		return nil, diags
	}
	out := &kube.ExecConfig{
		APIVersion: e.APIVersion.ValueString(),
		Command:    e.Command.ValueString(),
	}
	if !e.Args.IsNull() {
		diags.Append(e.Args.ElementsAs(ctx, &out.Args, false)...)
	}
	if !e.Env.IsNull() {
		diags.Append(e.Env.ElementsAs(ctx, &out.Env, false)...)
	}
	return out, diags
}

func boolOrEnv(v types.Bool, env string) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	if !v.IsNull() {
		return v.ValueBool(), diags
	}
	raw := os.Getenv(env)
	if raw == "" {
		return false, diags
	}
	b, err := strconv.ParseBool(raw)
	if err != nil {
		diags.AddError("Invalid "+env, env+" must be true or false, got "+strconv.Quote(raw)+".")
	}
	return b, diags
}

func stringOr(v types.String, fallback string) string {
	if v.IsNull() || v.IsUnknown() {
		return fallback
	}
	return v.ValueString()
}

// anyUnknown reports whether any cluster-access attribute is unknown during
// plan, e.g. because it comes from a cluster resource in the same run.
func anyUnknown(ctx context.Context, m providerModel) bool {
	values := []attr.Value{m.Host, m.Token, m.ClusterCACertificate, m.ClientCertificate, m.ClientKey,
		m.Insecure, m.ConfigPath, m.ConfigPaths, m.ConfigContext, m.Exec}
	if e, ok := m.exec(ctx); ok {
		values = append(values, e.APIVersion, e.Command, e.Args, e.Env)
	}
	for _, v := range values {
		if v.IsUnknown() {
			return true
		}
	}
	return false
}
