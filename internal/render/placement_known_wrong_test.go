package render

// knownWrong lists the matrix cells ("cloud | pool | intent") and plan
// verdicts ("cloud | plan | intent") that are wrong today because of a
// finding of issue #12 that is not fixed yet, mapped to the finding's
// number. TestPlacementMatrix prints them as KNOWN WRONG instead of failing;
// TestPlacementKnownWrongStillWrong fails once one of them is right, so
// whoever fixes a finding deletes its entries (and regenerates the goldens
// with -update).
var knownWrong = map[string]int{
	// Finding 1: a whole-GPU workload selects only the accelerator (or, with no
	// accelerator, only "a GPU node"), and a single-strategy MIG pool of the
	// same model carries the same labels and taint and advertises its MIG
	// instances as nvidia.com/gpu, so the pod lands on MIG slices. GKE and
	// generic exclude such pools for a named accelerator; generic not for
	// "any GPU".
	"aks | a100-80gb x1 mig 1g.10gb | any x1":                  1,
	"aks | a100-80gb x1 mig 3g.40gb | any x1":                  1,
	"aks | a100-80gb x1 mig 1g.10gb | a100-80gb x1":            1,
	"aks | a100-80gb x1 mig 3g.40gb | a100-80gb x1":            1,
	"aks | a100-80gb x1 mig 1g.10gb | [t4,a100-80gb] x1":       1,
	"aks | a100-80gb x1 mig 3g.40gb | [t4,a100-80gb] x1":       1,
	"aks | a100-80gb x1 mig 1g.10gb | [a100-80gb,t4] x1":       1,
	"aks | a100-80gb x1 mig 3g.40gb | [a100-80gb,t4] x1":       1,
	"eks | a100-40gb x8 mig 1g.5gb | any x1":                   1,
	"eks | a100-40gb x8 mig 3g.20gb | any x1":                  1,
	"eks | a100-40gb x8 mig 1g.5gb spot | any x1":              1,
	"eks | a100-40gb x8 mig 1g.5gb | a100-40gb x1":             1,
	"eks | a100-40gb x8 mig 3g.20gb | a100-40gb x1":            1,
	"eks | a100-40gb x8 mig 1g.5gb spot | a100-40gb x1":        1,
	"eks | a100-40gb x8 mig 1g.5gb | a100-40gb x8":             1,
	"eks | a100-40gb x8 mig 3g.20gb | a100-40gb x8":            1,
	"eks | a100-40gb x8 mig 1g.5gb spot | a100-40gb x8":        1,
	"eks | a100-40gb x8 mig 1g.5gb | a100-40gb x16":            1,
	"eks | a100-40gb x8 mig 3g.20gb | a100-40gb x16":           1,
	"eks | a100-40gb x8 mig 1g.5gb spot | a100-40gb x16":       1,
	"karpenter | a100-40gb x8 mig 1g.5gb | any x1":             1,
	"karpenter | a100-40gb x8 mig 3g.20gb | any x1":            1,
	"karpenter | a100-40gb x8 mig 1g.5gb spot | any x1":        1,
	"karpenter | a100-40gb x8 mig 1g.5gb | a100-40gb x1":       1,
	"karpenter | a100-40gb x8 mig 3g.20gb | a100-40gb x1":      1,
	"karpenter | a100-40gb x8 mig 1g.5gb spot | a100-40gb x1":  1,
	"karpenter | a100-40gb x8 mig 1g.5gb | a100-40gb x8":       1,
	"karpenter | a100-40gb x8 mig 3g.20gb | a100-40gb x8":      1,
	"karpenter | a100-40gb x8 mig 1g.5gb spot | a100-40gb x8":  1,
	"karpenter | a100-40gb x8 mig 1g.5gb | a100-40gb x16":      1,
	"karpenter | a100-40gb x8 mig 3g.20gb | a100-40gb x16":     1,
	"karpenter | a100-40gb x8 mig 1g.5gb spot | a100-40gb x16": 1,
	"generic | a100-40gb x1 mig 1g.5gb | any x1":               1,
	"generic | a100-40gb x1 mig 3g.20gb | any x1":              1,
	"generic | a100-40gb x1 mig 1g.5gb spot | any x1":          1,
	// Finding 2: GPUs per pod are not checked against the cloud's machines:
	// no machine has that many GPUs, yet the workload plans cleanly (and
	// then stays Pending forever).
	"gke | plan | t4 x8":               2,
	"gke | plan | l4 x16":              2,
	"gke | plan | h100-80gb x16":       2,
	"gke-autopilot | plan | t4 x8":     2,
	"gke-autopilot | plan | l4 x16":    2,
	"aks | plan | t4 x8":               2,
	"aks | plan | a100-80gb x16":       2,
	"aks | plan | h100-80gb x16":       2,
	"eks | plan | t4 x16":              2,
	"eks | plan | l40s x16":            2,
	"eks | plan | a100-40gb x16":       2,
	"eks | plan | a100-80gb x16":       2,
	"eks-auto | plan | t4 x16":         2,
	"eks-auto | plan | l40s x16":       2,
	"eks-auto | plan | a100-40gb x16":  2,
	"eks-auto | plan | a100-80gb x16":  2,
	"karpenter | plan | l4 x16":        2,
	"karpenter | plan | l40s x16":      2,
	"karpenter | plan | a100-40gb x16": 2,
	"karpenter | plan | a100-80gb x16": 2,
	// Finding 3: EKS Auto Mode cannot configure MIG or GPU sharing (its
	// device plugin is AWS-managed), yet such workloads plan cleanly.
	"eks-auto | plan | t4 time-slicing x1":              3,
	"eks-auto | plan | t4 time-slicing/4 x1":            3,
	"eks-auto | plan | t4 time-slicing/8 x1":            3,
	"eks-auto | plan | t4 mps x1":                       3,
	"eks-auto | plan | a100-40gb 1g.5gb single x1":      3,
	"eks-auto | plan | a100-40gb 1g.5gb mixed x1":       3,
	"eks-auto | plan | a100-40gb 1g.10gb single x1":     3,
	"eks-auto | plan | a100-40gb 1g.10gb mixed x1":      3,
	"eks-auto | plan | a100-40gb 2g.10gb single x1":     3,
	"eks-auto | plan | a100-40gb 2g.10gb mixed x1":      3,
	"eks-auto | plan | a100-40gb 3g.20gb single x1":     3,
	"eks-auto | plan | a100-40gb 3g.20gb mixed x1":      3,
	"eks-auto | plan | a100-40gb 4g.20gb single x1":     3,
	"eks-auto | plan | a100-40gb 4g.20gb mixed x1":      3,
	"eks-auto | plan | a100-40gb 7g.40gb single x1":     3,
	"eks-auto | plan | a100-40gb 7g.40gb mixed x1":      3,
	"eks-auto | plan | a100-40gb 1g.5gb single x1 spot": 3,
	"eks-auto | plan | a100-40gb time-slicing x1":       3,
	// Finding 5: generic workloads select nvidia.com/gpu.present and GFD
	// labels (gpu.product, gpu.sharing-strategy, gpu.replicas), but a cluster
	// set up from the provider's own nvidia-device-plugin values runs no GPU
	// Feature Discovery, so nothing sets them and every workload stays
	// Pending.
	"generic | t4 x1 no-GFD | any x1":                              5,
	"generic | t4 x1 no-GFD | t4 x1":                               5,
	"generic | t4 x1 no-GFD | [t4,l4] x1":                          5,
	"generic | t4 x1 no-GFD | [l4,t4] x1":                          5,
	"generic | t4 x1 no-GFD | t4 x1 spot":                          5,
	"generic | t4 x1 time-slicing/4 no-GFD | t4 time-slicing x1":   5,
	"generic | t4 x1 time-slicing/4 no-GFD | t4 time-slicing/4 x1": 5,
	// Finding 10 (NEW, found by this matrix; not yet in the issue): on AKS,
	// EKS and Karpenter a time-slicing workload and an MPS workload request
	// the same nvidia.com/gpu.shared and select nothing about the sharing
	// strategy, so each lands on the other's pool. GFD's
	// nvidia.com/gpu.sharing-strategy label (set on these GPU Operator
	// nodes) would tell them apart, as it does on generic clusters.
	"aks | t4 x1 mps/4 | t4 time-slicing x1":         10,
	"aks | t4 x1 mps/4 | t4 time-slicing/4 x1":       10,
	"aks | t4 x1 mps/4 | t4 time-slicing/8 x1":       10,
	"aks | t4 x1 time-slicing/4 | t4 mps x1":         10,
	"eks | t4 x1 mps/4 | t4 time-slicing x1":         10,
	"eks | t4 x1 mps/4 | t4 time-slicing/4 x1":       10,
	"eks | t4 x1 mps/4 | t4 time-slicing/8 x1":       10,
	"eks | t4 x1 time-slicing/4 | t4 mps x1":         10,
	"karpenter | l4 x1 mps/4 | l4 time-slicing x1":   10,
	"karpenter | l4 x1 mps/4 | l4 time-slicing/4 x1": 10,
	"karpenter | l4 x1 mps/4 | l4 time-slicing/8 x1": 10,
	"karpenter | l4 x1 time-slicing/4 | l4 mps x1":   10,
}
