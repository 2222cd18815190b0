package clouds

import (
	"slices"
	"strings"
)

// commonCloudNames are what users write for a cloud when they mean one of
// Names(): the provider's, the cloud's or its Kubernetes service's name.
// Only these and spelling slips (Suggest) are suggested: a guess never
// becomes the value.
var commonCloudNames = map[string]string{
	"gcp": "gke", "google": "gke", "gce": "gke", "gcloud": "gke", "google-cloud": "gke",
	"autopilot": "gke-autopilot", "gke-ap": "gke-autopilot",
	"azure": "aks", "az": "aks", "microsoft": "aks",
	"aws": "eks", "amazon": "eks", "ec2": "eks",
	"eks-auto-mode": "eks-auto", "automode": "eks-auto", "auto-mode": "eks-auto",
	"kubernetes": "generic", "k8s": "generic", "on-prem": "generic", "onprem": "generic",
	"bare-metal": "generic", "baremetal": "generic", "gpu-operator": "generic",
}

// Suggest is the value of allowed a user most likely meant by got: the
// same name in other case or with underscores, the cloud's common name,
// or a value one or two edits away. Empty when nothing is close.
func Suggest(got string, allowed []string) string {
	norm := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(got)), "_", "-")
	if slices.Contains(allowed, norm) {
		return norm
	}
	if v, ok := commonCloudNames[norm]; ok && slices.Contains(allowed, v) {
		return v
	}
	best, bestDistance := "", 3
	for _, a := range allowed {
		if d := editDistance(norm, a); d < bestDistance {
			best, bestDistance = a, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
