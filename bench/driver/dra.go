package main

// The DRA subject (issue #32): N gpu_workload Deployments asking for their
// GPU through Dynamic Resource Allocation (`gpu { accelerator, dra {} }`:
// the provider derives a ResourceClaimTemplate per workload and the pod
// references it), on the run's DRA nodes (dra_nodes.go), measured with the
// same four steps as the device-plugin gpu_workload and in the same run,
// so their ratio is the goal's: plan and apply within 1.2×.

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

const (
	// subjectDRA is the DRA subject's measurements' subject.
	subjectDRA = "gpu_workload DRA"
	// draGoal is issue #32's: plan and apply of the DRA Deployments in at
	// most 1.2× the device-plugin ones' wall time, same run.
	draGoal = 1.2
	// draGoalN is the N the goal is stated for.
	draGoalN = 100
)

// draPatch is the bench's own placement on top of the one the provider
// derives: the run's node label and taint, as node_pool gives the
// device-plugin subject. DRA and node_pool exclude each other, and without
// it the pods could take the devices of the local cluster's dra-h100
// fixture nodes, which acceptance tests running beside the bench
// allocate. The patch keeps the derived tolerations (a strategic merge
// patch replaces the list) and only adds a selector entry, which the
// provider's patch rules allow.
func draPatch(id string, derived []corev1.Toleration) (string, error) {
	tolerations := append(append([]corev1.Toleration{}, derived...),
		corev1.Toleration{Key: spec.LabelKey, Operator: corev1.TolerationOpEqual, Value: id, Effect: corev1.TaintEffectNoSchedule})
	patch := map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"nodeSelector": map[string]string{spec.LabelKey: id},
		"tolerations":  tolerations,
	}}}}
	data, err := json.Marshal(patch)
	return string(data), err
}

// gpuWorkloadDRAHCL is N gpu_workload resources asking through DRA, with
// the same name, namespace, replicas and image as gpuWorkloadHCL's.
func gpuWorkloadDRAHCL(kubeconfig, namespace, patch string, n int) string {
	return providerHCL(kubeconfig) + fmt.Sprintf(`
locals {
  # The run's node label and taint (bench/driver/dra.go, draPatch).
  patch = %q
}

resource "gpu_workload" "bench" {
  count     = %d
  name      = format(%q, count.index)
  namespace = %q
  cloud     = %q
  replicas  = %d
  image     = %q
  patch     = local.patch

  gpu {
    count       = %d
    accelerator = %q
    dra {}
  }
}
`, patch, n, spec.NameFormat, namespace, spec.Cloud, spec.Replicas, spec.Image, spec.GPUCount, spec.Accelerator)
}

// setupDRA creates the DRA nodes (as many as the device-plugin subject
// gets, so both have the same room) and the patch the workloads carry.
func (b *bench) setupDRA(ctx context.Context, nodes int) error {
	version, err := serverVersion(b.cs)
	if err != nil {
		return err
	}
	rendered, err := spec.RenderDRA(spec.Name(0), "default", version)
	if err != nil {
		return err
	}
	if b.draPatch, err = draPatch(b.cfg.id, rendered.Deployment.Spec.Template.Spec.Tolerations); err != nil {
		return err
	}
	logf("== creating %d kwok DRA nodes bench-%s-dra-* with %d devices each, cloned from %s\n", nodes, b.cfg.id,
		spec.GPUsPerNode, draFixtureFile)
	return createDRANodes(ctx, b.cs, b.cfg.id, b.cfg.fixtures, nodes)
}

// gpuWorkloadDRA measures the DRA subject: gpuWorkload's steps, without the
// refresh plan's request counts and profile (those are the device-plugin
// subject's; the refresh reads the same informers).
func (b *bench) gpuWorkloadDRA(ctx context.Context, m *measurement) error {
	ns := b.namespace(m, "dra")
	return b.workloadSteps(ctx, m, ns, gpuWorkloadDRAHCL(b.cfg.kubeconfig, ns, b.draPatch, m.N), false)
}
