package main

// The peer (issue #24 item 7): the same N Deployments written as
// hashicorp/terraform-provider-kubernetes kubernetes_deployment_v1
// resources, measured with the same four steps when -peer-kubernetes
// (BENCH_PEER_KUBERNETES) names its binary. The HCL is written from the
// Deployment gpu_workload renders (bench/spec.Render, as the API floor
// applies it), so both providers create the same objects.

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

const (
	// subjectPeer is the peer's measurements' subject.
	subjectPeer = "kubernetes_deployment_v1"
	// peerAddress is the peer's provider address; dev_overrides maps it.
	peerAddress = "hashicorp/kubernetes"
	// peerExe is the name Terraform looks for in the dev_overrides directory.
	peerExe = "terraform-provider-kubernetes"
	// peerGoal is issue #24's goal: every step of gpu_workload in at most
	// half the peer's wall time.
	peerGoal = 0.5
	// peerBuildScript builds the peer binary from its source.
	peerBuildScript = "scripts/bench-peer-build.sh"
)

// peer is the peer provider of a run.
type peer struct {
	binary    string // the binary as given (absolute)
	exe       string // what it resolves to: the executable its processes show
	cliConfig string // CLI configuration with dev_overrides for it
	version   string // for the report
	// deployment is what gpu_workload renders for the first workload; the
	// HCL writes it with count = N in each measurement's namespace.
	deployment *appsv1.Deployment
}

// setupPeer links the peer binary as terraform-provider-kubernetes into a
// directory of the run's work directory (whatever the binary's own name,
// the name dev_overrides wants), writes a CLI configuration that points
// hashicorp/kubernetes at it, and writes the HCL of the rendered
// Deployment.
func setupPeer(cs kubernetes.Interface, work, binary, kubeconfig, poolRef string) (*peer, error) {
	abs, err := filepath.Abs(binary)
	if err != nil {
		return nil, err
	}
	exe, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("BENCH_PEER_KUBERNETES=%s: %w", binary, err)
	}
	if st, err := os.Stat(exe); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("BENCH_PEER_KUBERNETES=%s is not an executable file", binary)
	}
	dir := filepath.Join(work, "peer-provider")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.Symlink(exe, filepath.Join(dir, peerExe)); err != nil {
		return nil, err
	}
	p := &peer{binary: abs, exe: exe, version: peerVersion(abs, exe)}
	p.cliConfig = filepath.Join(work, "terraformrc-peer")
	content := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n", peerAddress, dir)
	if err := os.WriteFile(p.cliConfig, []byte(content), 0o600); err != nil {
		return nil, err
	}
	version, err := serverVersion(cs)
	if err != nil {
		return nil, err
	}
	rendered, err := spec.Render(spec.Name(0), "", poolRef, version)
	if err != nil {
		return nil, err
	}
	p.deployment = spec.DeploymentOf(rendered)
	if _, err := p.hcl(kubeconfig, "", 1); err != nil {
		return nil, err
	}
	return p, nil
}

// hcl is the peer's configuration: n kubernetes_deployment_v1 in namespace.
func (p *peer) hcl(kubeconfig, namespace string, n int) (string, error) {
	d := p.deployment.DeepCopy()
	d.Namespace = namespace
	body, err := deploymentHCL(d, spec.Name(0), n)
	if err != nil {
		return "", fmt.Errorf("writing the rendered Deployment as kubernetes_deployment_v1: %w", err)
	}
	return peerProviderHCL(kubeconfig) + body, nil
}

// peerVersion is what the build script wrote beside the binary
// (<binary>.version) and the plugin libraries it was built with.
func peerVersion(binary, exe string) string {
	version := "version unknown (no " + filepath.Base(binary) + ".version beside the binary)"
	for _, p := range []string{binary + ".version", exe + ".version"} {
		if data, err := os.ReadFile(p); err == nil {
			version = strings.TrimSpace(string(data))
			break
		}
	}
	info, err := buildinfo.ReadFile(exe)
	if err != nil {
		return version
	}
	var libs []string
	for _, d := range info.Deps {
		switch d.Path {
		case "github.com/hashicorp/terraform-plugin-sdk/v2", "github.com/hashicorp/terraform-plugin-framework", "k8s.io/client-go":
			libs = append(libs, fmt.Sprintf("%s %s", strings.TrimPrefix(d.Path, "github.com/hashicorp/"), d.Version))
		}
	}
	return fmt.Sprintf("%s, %s, %s", version, info.GoVersion, strings.Join(libs, ", "))
}

func peerProviderHCL(kubeconfig string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    kubernetes = { source = %q }
  }
}

variable "kubeconfig" {
  type    = string
  default = %q
}

provider "kubernetes" {
  config_path = var.kubeconfig
}
`, peerAddress, kubeconfig)
}

// peerWorkload measures the peer's four steps at m.N in a namespace of its
// own, with the provider's memory and CPU sampled as for gpu_workload.
func (b *bench) peerWorkload(ctx context.Context, m *measurement) error {
	ns := b.namespace(m, "k8s")
	if err := createNamespace(ctx, b.cs, b.cfg.id, ns); err != nil {
		return err
	}
	hcl, err := b.peer.hcl(b.cfg.kubeconfig, ns, m.N)
	if err != nil {
		return err
	}
	ws, err := newWorkspace(filepath.Join(b.work, ns), b.cfg.terraform, b.peer.cliConfig, b.peer.exe, hcl)
	if err != nil {
		return err
	}
	m.ProviderHWMKiB, m.TerraformMaxRSSKiB = map[string]int64{}, map[string]int64{}
	for _, step := range terraformSteps {
		res, err := ws.run(ctx, step, runOpts{sampleMemory: true})
		if err != nil {
			return err
		}
		m.record(step, res)
		m.ProviderHWMKiB[step], m.TerraformMaxRSSKiB[step] = res.ProviderHWMKiB, res.TerraformMaxRSSKiB
	}
	return deleteNamespaceAndWait(ctx, b.cs, ns)
}
