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
