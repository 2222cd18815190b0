package acctest

import (
	"os"
	"testing"
)

// EnvRequireKubeRay set to 1 (CI sets it) turns a missing KubeRay into a
// test failure: the Ray acceptance tests must never be skipped silently
// where the cluster is supposed to run the operator.
const EnvRequireKubeRay = "GPU_REQUIRE_KUBERAY"

// RequireKubeRay skips the test, saying why, unless the acceptance
// cluster serves KubeRay's ray.io/v1 RayCluster; with GPU_REQUIRE_KUBERAY=1
// it fails instead.
func RequireKubeRay(t testing.TB) {
	t.Helper()
	resources, err := Client(t).Discovery().ServerResourcesForGroupVersion("ray.io/v1")
	if err == nil {
		for _, r := range resources.APIResources {
			if r.Name == "rayclusters" {
				return
			}
		}
	}
	msg := "the acceptance cluster does not serve ray.io/v1 rayclusters: install the KubeRay operator (v1.5) " +
		"(scripts/localcluster adds it where it supports KubeRay)"
	if os.Getenv(EnvRequireKubeRay) == "1" {
		t.Fatalf("%s; %s=1 makes this a failure", msg, EnvRequireKubeRay)
	}
	t.Skipf("%s; set %s=1 to fail instead of skipping", msg, EnvRequireKubeRay)
}
