package clouds

import "testing"

func TestSuggestNamesTheCloudMeant(t *testing.T) {
	for got, want := range map[string]string{
		"gcp": "gke", "GKE": "gke", "azure": "aks", "AWS": "eks", "eks_auto": "eks-auto",
		"autopilot": "gke-autopilot", "karpentr": "karpenter", "on-prem": "generic", "akss": "aks",
		"openstack": "", "": "",
	} {
		if s := Suggest(got, Names()); s != want {
			t.Errorf("Suggest(%q) = %q, want %q", got, s, want)
		}
	}
	// Only allowed values are suggested: a pool cannot be on GKE Autopilot.
	if s := Suggest("autopilot", PoolNames()); s == "gke-autopilot" {
		t.Errorf("Suggest offered %q, which pools do not allow", s)
	}
}
