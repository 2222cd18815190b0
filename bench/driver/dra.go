package main

// The DRA subject (issue #32): N gpu_workload Deployments on a DRA pool
// (gpu_allocation = "dra": the provider renders a ResourceClaimTemplate per
// workload asking for the pool's DeviceClass, and the pod references it),
// on the run's DRA nodes (dra_nodes.go), measured with the
// same four steps as the device-plugin gpu_workload and in the same run,
// so their ratio is the goal's: plan and apply within 1.2×.

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

const (
	// subjectDRA is the DRA subject's measurements' subject.
	subjectDRA = "gpu_workload DRA"
	// subjectDRAFloor is the API floor on the DRA pool: what the control
	// plane alone takes for the DRA subject's objects (apifloor -dra).
	subjectDRAFloor = "API floor DRA"
	// draGoal is issue #32's: plan and apply of the DRA Deployments in at
	// most 1.2× the device-plugin ones' wall time, same run.
	draGoal = 1.2
	// draGoalN is the N the goal is stated for.
	draGoalN = 100
)

// gpuWorkloadDRAHCL is N gpu_workload resources on the run's DRA pool, the
// same as gpuWorkloadHCL's but for node_pool: each claims count devices of
// the pool's DeviceClass, as a workload on a DRA pool does.
func gpuWorkloadDRAHCL(kubeconfig, namespace, poolRef string, n int) string {
	return providerHCL(kubeconfig) + fmt.Sprintf(`
resource "gpu_workload" "bench" {
  count     = %d
  name      = format(%q, count.index)
  namespace = %q
  cloud     = %q
  replicas  = %d
  image     = %q
  node_pool = jsondecode(%q)

  gpu {
    count = %d
  }
}
`, n, spec.NameFormat, namespace, spec.Cloud, spec.Replicas, spec.Image, poolRef, spec.GPUCount)
}

// setupDRA creates the run's DRA pool's DeviceClass (what the pool's
// gpu_node_pool_policy would apply) and its nodes, as many as the
// device-plugin subject gets, so both have the same room.
func (b *bench) setupDRA(ctx context.Context, nodes int) error {
	rendered, err := spec.RenderDRAPool(b.cfg.id)
	if err != nil {
		return err
	}
	class := rendered.DeviceClassObject.DeepCopy()
	if class.Labels == nil {
		class.Labels = map[string]string{}
	}
	class.Labels[spec.LabelKey] = b.cfg.id
	if _, err := b.cs.ResourceV1().DeviceClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the DRA pool's DeviceClass: %w", err)
	}
	logf("== creating %d kwok DRA nodes bench-%s-dra-* with %d devices each, cloned from %s, for DeviceClass %s\n",
		nodes, b.cfg.id, spec.GPUsPerNode, draFixtureFile, class.Name)
	return createDRANodes(ctx, b.cs, b.cfg.id, b.cfg.fixtures, nodes)
}

// gpuWorkloadDRA measures the DRA subject: gpuWorkload's steps, without the
// refresh plan's request counts and profile (those are the device-plugin
// subject's; the refresh reads the same informers).
func (b *bench) gpuWorkloadDRA(ctx context.Context, m *measurement) error {
	ns := b.namespace(m, "dra")
	return b.workloadSteps(ctx, m, ns, gpuWorkloadDRAHCL(b.cfg.kubeconfig, ns, spec.DRAPoolRef(b.cfg.id), m.N), false)
}
