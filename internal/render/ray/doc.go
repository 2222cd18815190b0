// Package ray renders a Ray cluster's intent (spec.RayCluster: a head and
// worker groups, each on its own node pool with its own GPU block) into
// KubeRay objects: a RayCluster, or a RayJob or RayService around the
// cluster's spec (docs/design/ray.md).
//
// Each group's pod template is gpu_workload's: the group becomes a
// spec.Workload that workload.ResolvePod checks and workload.RenderPod
// renders, so a Ray worker on an H100 pool gets the selectors, tolerations,
// limits, /dev/shm, GPU network and topology annotations a gpu_workload
// on that pool gets. This package adds what is Ray's: the group's place in
// the RayCluster, Ray's own view of the GPUs (num-gpus and the accelerator
// type agreeing with the limits), the replicas, autoscaling, the RayJob
// and RayService around the cluster, and the Kueue pod sets.
//
// The KubeRay types come from github.com/ray-project/kuberay/ray-operator
// apis/ray/v1 at the version Kueue's module requires (v1.6.0); the render
// sets only fields KubeRay v1.5.0 has too, which a test checks.
package ray
