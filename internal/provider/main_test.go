// The provider package's tests are those about the provider as a whole
// (its configuration, the protocol, the optional-methods table, the docs'
// HCL, schema costs) and the acceptance tests of every resource. Tests of
// one resource or data source that need no cluster live beside its code,
// in its own package (gpuworkload, nodepoolpolicy, ...).
//
// The acceptance tests stay here, in one package, on purpose: they share the
// local cluster's fixture GPU nodes, and `go test ./...` runs the test
// binaries of different packages at the same time. Split across packages
// they would run concurrently and take each other's GPUs (a pending pod, a
// node cordoned or relabelled under another test); in one binary they run
// one after another unless a test says t.Parallel. Do not move them out to
// "put tests beside their code". (gpu_ray_cluster's acceptance tests run in
// their package because they bring node groups of their own.)
package provider

import (
	"fmt"
	"os"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// TestMain prepares the environment for the CLI under test (the registry
// host terraform-plugin-testing serves the provider under, among others)
// before any test runs, so the same tests run with Terraform and with
// OpenTofu (make testacc-tofu).
func TestMain(m *testing.M) {
	if err := acctest.PrepareCLIEnv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
