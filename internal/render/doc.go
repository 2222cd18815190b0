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
//   - clouds.go: the Cloud enum and the cloudProfile contract.
//   - cloud_gke.go, cloud_aks.go, cloud_aws.go, cloud_generic.go: every
//     placement rule of one cloud (node labels, taints and tolerations, spot,
//     MIG, sharing, environment). "GKE A100 with a 2g.10gb partition" is
//     answered entirely by cloud_gke.go.
//   - gpu.go: how a cloud's placement becomes nodeSelector, node affinity and
//     tolerations, and how the GPU quantity is written into a container.
//   - workload.go: the input model. Zero values mean "unset or unknown".
//   - validate.go, validate_gpu.go: plan-time rules, each a Diagnostic with
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
// Nothing in this package panics on any input; see FuzzRender.
package render
