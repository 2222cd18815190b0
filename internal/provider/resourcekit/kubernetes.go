package resourcekit

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
)

// serverVersionTimeout bounds the one /version request a plan makes: a
// cluster that does not answer in time is planned for as if unreachable.
const serverVersionTimeout = 10 * time.Second

// clusterVersion remembers the cluster's answer for the provider run, a
// failure included: a plan of many DRA pools asks once, not once per pool.
type clusterVersion struct {
	mu    sync.Mutex
	asked bool
	known kubever.Version
	err   error
}

// Kubernetes is the version a plan's version-dependent rules are judged
// by (docs/design/dra-versions.md#2-which-version-a-plan-is-judged-by): the
// cluster's when one is configured and answers, else the provider's
// kubernetes_version, else the floor, assumed. Callers ask only where a
// rule depends on it (DRA pools, chart values on them), so other plans
// stay offline. The diagnostics are warnings: a setting the cluster
// contradicts, or a version assumed, each saying what to set.
func (d *Data) Kubernetes(ctx context.Context) (kubever.Version, diag.Diagnostics) {
	var diags diag.Diagnostics
	if d == nil {
		return kubever.Version{}, diags
	}
	setting, settingErr := kubever.ParseMinor(d.KubernetesVersion)
	if d.KubernetesVersion == "" {
		setting, settingErr = nil, nil
	}
	if settingErr != nil { // the schema's validator refuses it first
		diags.AddAttributeError(path.Root("kubernetes_version"), "Invalid kubernetes_version", settingErr.Error()+".")
		return kubever.Version{}, diags
	}
	cluster, err := d.clusterVersion(ctx)
	switch {
	case err == nil && cluster.V != nil:
		if setting != nil && kubever.MinorOf(setting) != kubever.MinorOf(cluster.V) {
			diags.AddAttributeWarning(path.Root("kubernetes_version"), "kubernetes_version differs from the cluster",
				"The provider's kubernetes_version is "+kubever.MinorOf(setting)+" but the cluster runs Kubernetes "+
					kubever.MinorOf(cluster.V)+"; the plan follows the cluster. Allowed: kubernetes_version = \""+
					kubever.MinorOf(cluster.V)+"\", or unset it (it is only for planning without a reachable cluster).")
		}
		return cluster, diags
	case setting != nil:
		return kubever.Version{V: setting, Source: kubever.FromSetting}, diags
	}
	why := "no cluster is configured"
	if err != nil {
		why = "the cluster did not answer (" + err.Error() + ")"
	}
	diags.AddWarning("Kubernetes version assumed: "+kubever.MinorOf(kubever.Floor),
		"Rules that depend on the cluster's Kubernetes version (DRA features) are judged as on "+kubever.MinorOf(kubever.Floor)+
			", the oldest supported and most restrictive minor, because "+why+" and the provider's kubernetes_version is unset. "+
			kubever.HowToSet)
	return kubever.Version{}, diags
}

// clusterVersion asks the configured cluster once per provider run;
// V is nil without a configured cluster.
func (d *Data) clusterVersion(ctx context.Context) (kubever.Version, error) {
	if d.Kube == nil || !d.Kube.Configured() || d.Kube.Check() != nil {
		return kubever.Version{}, nil
	}
	d.cluster.mu.Lock()
	defer d.cluster.mu.Unlock()
	if d.cluster.asked {
		return d.cluster.known, d.cluster.err
	}
	d.cluster.asked = true
	client, err := d.Kube.Client()
	if err != nil {
		d.cluster.err = err
		return kubever.Version{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, serverVersionTimeout)
	defer cancel()
	v, err := client.ServerVersion(ctx)
	if err != nil {
		d.cluster.err = err
		return kubever.Version{}, err
	}
	d.cluster.known = kubever.Version{V: v, Source: kubever.FromCluster}
	return d.cluster.known, nil
}
