// Package render is the pure core of terraform-provider-gpu: GPU intent in,
// Kubernetes objects and Helm values out. No Terraform types, no network,
// no cluster access. Its packages, each depending only on those above it:
//
//   - gpudiag: the findings every rule reports, on Terraform attribute paths.
//   - catalog: GPU models, their names everywhere, MIG profiles and fits.
//   - spec: the input and output types (workload, pool policy, capacity).
//   - kinds: the registry of gpu_workload's kinds, one package per kind
//     (deployment, statefulset, job, cronjob): the object each renders, where
//     its pod template is, how it is waited for, queued, replaced and
//     adopted. Every layer asks it instead of switching on the kind.
//   - clouds: every rule of one cloud in one file; nothing else compares
//     clouds.
//   - dra: DRA claims from GPU intent, raw selectors checked with the
//     scheduler's CEL library, a DeviceClass per DRA pool.
//   - workload: gpu_workload resolved once (Resolve: the cloud looked up,
//     the GPU intent parsed, the pool attached, every rule run) and rendered
//     from that value (Render); one GPU container (Container) is what both a
//     workload and a chart's values are checked and placed as.
//   - pool: gpu_node_pool_policy validation, rendering, ids, and placing a
//     workload on a pool.
//   - capacity: live pool capacity and why a pending pod fits no pool.
//   - queue: gpu_queue's Kueue objects derived from the pools, the queue
//     reference a workload carries and the check that Kueue can admit it,
//     and Kueue's status read back (queued, admitted, preempted, usage).
//   - values: Helm values for the charts, placed by the same rules.
//
// The provider (internal/provider) converts Terraform configuration into
// spec types, resolves each workload once per call (workload.Resolve),
// validates pools (pool.Validate) and applies what workload.Render returns.
// A cloud's name becomes its rules in one place, clouds.Lookup, called by
// each resolve step (workload.Resolve, the pool's validation, the values
// front door through chartkit.ResolveCloud); everything after it asks for
// the cloud's role it reads (clouds.Placer, clouds.Offering, ...).
//
// This package itself holds the tests that cross packages without being a
// cloud's (those, the placement matrix among them, sit beside clouds): pool
// properties and fuzzing, the MIG layouts' fit, and the check that
// references to docs/design resolve.
//
// Nothing here panics on any input; see FuzzRender and FuzzRenderPool.
package render
