package spec

// Cloud names the kind of cluster a workload runs on. Node labels, taints and
// GPU-sharing mechanics differ per cloud, so placement is a per-cloud profile.
type Cloud string

const (
	CloudGKE          Cloud = "gke"
	CloudGKEAutopilot Cloud = "gke-autopilot"
	CloudAKS          Cloud = "aks"
	// CloudEKS is EKS with managed (or self-managed) node groups.
	CloudEKS Cloud = "eks"
	// CloudEKSAuto is EKS Auto Mode (Karpenter-based, eks.amazonaws.com labels).
	CloudEKSAuto Cloud = "eks-auto"
	// CloudKarpenter is self-installed Karpenter on AWS (karpenter.k8s.aws labels).
	CloudKarpenter Cloud = "karpenter"
	// CloudGeneric is any cluster running the NVIDIA GPU Operator (GPU Feature
	// Discovery labels, nvidia.com/gpu taint), e.g. on-premises.
	CloudGeneric Cloud = "generic"
)
