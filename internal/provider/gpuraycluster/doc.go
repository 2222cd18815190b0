// Package gpuraycluster is the gpu_ray_cluster resource: a Ray cluster (a
// head and worker groups, each a pod on its own node pool with its own gpu
// block) run by KubeRay as a RayCluster, or as the cluster of a RayJob
// (job block) or a RayService (serve block). docs/design/ray.md is the
// design; internal/render/ray renders it. The resource follows
// gpu_workload's pattern (internal/provider/gpuworkload): plan-time
// rendering and validation from configuration alone, server-side apply with
// the provider's field manager, a refresh that projects the live objects
// onto the fields it manages, waits that explain pods the scheduler refuses
// and work Kueue keeps queued, and import.
package gpuraycluster
