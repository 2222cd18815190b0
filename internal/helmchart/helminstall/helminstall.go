// Package helminstall installs, upgrades and uninstalls charts in a cluster
// with Helm's own action package: the code `helm upgrade --install` runs.
// It lives apart from helmchart so that the provider, which only renders
// and validates, does not link Helm's release storage and clients.
package helminstall

import (
	"context"
	"errors"
	"fmt"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/storage/driver"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Release is what an install or upgrade left in the cluster.
type Release struct {
	Name      string
	Namespace string
	Revision  int
	// Manifest is every object the release applied, as YAML documents
	// (hooks and CRDs excluded), what `helm get manifest` prints.
	Manifest string
}

// UpgradeInstall does what `helm upgrade --install release chart -n
// namespace -f values` does, with Helm's own action package: a first
// install when the release does not exist, an upgrade otherwise. It does
// not wait for the chart's pods: callers decide what "landed" means.
func UpgradeInstall(ctx context.Context, kubeconfig, chartPath, release, namespace string, values map[string]any) (*Release, error) {
	chart, err := loader.Load(chartPath)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", chartPath, err)
	}
	cfg, err := configuration(kubeconfig, namespace)
	if err != nil {
		return nil, err
	}
	history := action.NewHistory(cfg)
	history.Max = 1
	if _, err := history.Run(release); errors.Is(err, driver.ErrReleaseNotFound) {
		install := action.NewInstall(cfg)
		install.ReleaseName, install.Namespace = release, namespace
		rel, err := install.RunWithContext(ctx, chart, values)
		if err != nil {
			return nil, fmt.Errorf("helm install %s: %w", release, err)
		}
		return &Release{Name: rel.Name, Namespace: rel.Namespace, Revision: rel.Version, Manifest: rel.Manifest}, nil
	} else if err != nil {
		return nil, fmt.Errorf("helm history %s: %w", release, err)
	}
	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace = namespace
	rel, err := upgrade.RunWithContext(ctx, release, chart, values)
	if err != nil {
		return nil, fmt.Errorf("helm upgrade %s: %w", release, err)
	}
	return &Release{Name: rel.Name, Namespace: rel.Namespace, Revision: rel.Version, Manifest: rel.Manifest}, nil
}

// uninstallTimeout bounds how long Uninstall waits for the release's objects
// to be gone.
const uninstallTimeout = 2 * time.Minute

// Uninstall does what `helm uninstall --wait release -n namespace` does; a
// release that does not exist is not an error. It waits until the objects are
// gone because a chart that templates its CRDs (Flyte v2's) leaves them
// terminating for a moment, and an install of the same chart under another
// release name in that moment fails Helm's ownership check.
func Uninstall(kubeconfig, release, namespace string) error {
	cfg, err := configuration(kubeconfig, namespace)
	if err != nil {
		return err
	}
	uninstall := action.NewUninstall(cfg)
	uninstall.Wait, uninstall.Timeout = true, uninstallTimeout
	if _, err := uninstall.Run(release); err != nil && !errors.Is(err, driver.ErrReleaseNotFound) {
		return fmt.Errorf("helm uninstall %s: %w", release, err)
	}
	return nil
}

// configuration is Helm's action configuration for a kubeconfig and
// namespace, with releases stored in Secrets as the helm CLI does.
func configuration(kubeconfig, namespace string) (*action.Configuration, error) {
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &kubeconfig
	flags.Namespace = &namespace
	cfg := new(action.Configuration)
	if err := cfg.Init(flags, namespace, "secret", func(string, ...any) {}); err != nil {
		return nil, fmt.Errorf("helm configuration for %s: %w", kubeconfig, err)
	}
	return cfg, nil
}
