// Package render turns a GPU workload intent into Kubernetes objects.
//
// It is the pure core of terraform-provider-gpu: no Terraform types, no
// network, no cluster access. The provider converts its configuration into a
// [Workload], calls [Validate] at plan time and [Render] at apply time (or at
// plan time, once every value is known), and applies the typed objects in
// [Rendered.Objects] in order.
//
// Where things live, so a reviewer can find a rule in one place:
//
//   - catalog.go: the accelerator catalog (memory, per-cloud label values,
//     GFD product names, MIG profiles and how many fit on one GPU).
//   - clouds.go: the Cloud enum, the registry of cloud profiles
//     (cloudOrder) and the cloudProfile contract; pool_rules.go: the parts
//     of the contract beyond workload placement, the neutral baseProfile
//     every profile embeds, and operatorProfile for GPU Operator clusters.
//   - cloud_gke.go, cloud_aks.go, cloud_eks.go, cloud_karpenter.go (with EKS
//     Auto Mode), cloud_generic.go, and cloud_aws.go for what the AWS clouds
//     share: every rule of one cloud. Its accelerators and machine shapes,
//     workload placement (node labels, taints and tolerations, spot, MIG,
//     sharing, environment), pool rules (who configures MIG and sharing,
//     which partitions and sharing it allows, reserved label domains, the
//     labels and taints its nodes carry, its node-pool shape), how its live
//     nodes are recognised for capacity, and what chart values need (driver
//     preinstalled, managed device plugin, Flyte's partition label, notes).
//     No other file compares clouds. "GKE A100 with a 2g.10gb partition" is
//     answered entirely by cloud_gke.go, for workloads, pools, capacity and
//     chart values alike.
//   - gpu.go: how a cloud's placement becomes nodeSelector, node affinity and
//     tolerations, and how the GPU quantity is written into a container.
//   - workload.go: the input model. Zero values mean "unset or unknown".
//   - validate.go, validate_gpu.go: plan-time rules, each a gpudiag.Diagnostic with
//     the Terraform attribute path.
//   - sizing.go, probes.go, storage.go, dra.go: one concern each.
//   - render.go, pod.go: assembling Deployment/Job objects.
//   - manifest.go: the canonical, diff-friendly YAML.
//   - pool*.go: node pool policies: validation, the labels and taints nodes
//     must carry, each cloud's node-pool shapes, the device-plugin config,
//     the plan-time pool id, and ApplyPool, which places a workload on a pool
//     with the same rules a workload uses, so the two cannot disagree.
//   - capacity*.go: live pool capacity from nodes and pods, and which pools
//     a pending pod could use and why not.
//   - values*.go: Helm values for FiftyOne, Flyte, the GPU Operator, the
//     NVIDIA device plugin and Numaflow, placed by the same rules.
//
// Adding a cloud (say CoreWeave or OCI) is one file and one fixture: a
// cloud_<name>.go whose profile embeds baseProfile (or operatorProfile when
// the GPU Operator configures MIG and sharing there) and overrides what the
// cloud decides, one Cloud constant with its entry in cloudOrder, and the
// cloud's fake GPU nodes in scripts/localcluster/fixtures/<name>.yaml, which
// the capacity tests and the local cluster read.
//
// Nothing in this package panics on any input; see FuzzRender.
package render
