package acctest

import (
	"testing"
)

// RequireKueue fails the test unless the acceptance cluster runs Kueue: the
// local cluster starts the real Kueue controller (scripts/localcluster), so
// a missing one is a broken cluster, never a reason to skip.
func RequireKueue(t testing.TB) {
	t.Helper()
	resources, err := Client(t).Discovery().ServerResourcesForGroupVersion("kueue.x-k8s.io/v1beta2")
	if err != nil || len(resources.APIResources) == 0 {
		t.Fatalf("the acceptance cluster does not serve kueue.x-k8s.io/v1beta2 (%v): the local cluster runs Kueue "+
			"unless GPU_CLUSTER_KUEUE=0; on another cluster install Kueue v0.17 first", err)
	}
}
