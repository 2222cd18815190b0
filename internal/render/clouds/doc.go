// Package clouds holds every rule of every cloud, one file per cloud:
// gke.go (Standard and Autopilot), aks.go, eks.go, karpenter.go (Karpenter
// and EKS Auto Mode), generic.go (any cluster running the NVIDIA GPU
// Operator), and aws.go for what the AWS clouds share. The GPU-to-GPU
// network of a cloud's machine types (EFA, GPUDirect, InfiniBand) is in
// <cloud>_network.go beside its file, and what the clouds share of it in
// network.go (docs/design/gpu-networks.md). A cloud's file says
// which models it offers and on which machines, where a GPU intent lands
// (node labels, taints and tolerations, MIG, sharing, spot, environment),
// what a node pool may say there and the labels, taints and node-pool shape
// that follow, how its live nodes are recognised, and what its own GPU stack
// does (driver, device plugin, partition label). "GKE A100 with a 2g.10gb
// partition" is answered by gke.go alone, for workloads, pools, capacity and
// chart values.
//
// No chart is known here: a chart's notes about a cloud (what Flyte cannot
// select on GKE, why the GPU Operator cannot run on Autopilot) are the
// chart package's, in a small table keyed by cloud (values/flyte/clouds.go,
// values/nvidia/clouds.go). Otherwise no other package compares clouds:
// a resolve step looks the cloud up once (Lookup) and passes the Cloud,
// whose Profile answers. Registry lists the clouds; rules.go holds the
// Profile contract beyond workload placement and the neutral answers every
// profile embeds; scheduling.go turns a Placement into nodeSelector, node
// affinity and tolerations.
//
// A consumer takes the role it reads, not the whole Cloud (roles.go):
// Named (which cloud, and whether its rules apply), Placer (where a GPU
// intent lands), Offering (the models offered), MachineCatalog (machine
// shapes), Topology (network topology levels), ModelPlacer (the placement
// of each offered model) and GPURules (all a GPU request's resolution
// reads); or, without the name, a profile role: WorkloadRules,
// MachineRules, PoolRules, NodeRules (capacity reading live nodes) and
// StackRules (the cloud's own GPU stack). The whole Cloud goes only to
// what reads many roles: a pool's intent (PoolIntent) and a chart's
// generator.
//
// Adding a cloud (say CoreWeave or OCI) is one file here, one spec.Cloud
// constant with its Registry entry, and the cloud's fake GPU nodes in
// scripts/localcluster/fixtures/<name>.yaml; the placement matrix beside
// this package then shows what the new profile gets wrong.
//
// The tests here are the clouds' too, in package clouds_test where they
// drive the other render packages: the placement matrix (every cloud x
// pool shape x workload intent, decided by the scheduler's own predicates,
// golden in testdata/placement), placement facts per cloud, the flavors of
// the matrix pools, the catalog per cloud, and the GFD readings of real
// nodes against the local cluster's fixtures.
package clouds
