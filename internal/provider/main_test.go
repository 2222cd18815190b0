package provider

import (
	"fmt"
	"os"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// TestMain points terraform-plugin-testing at the registry host of the CLI
// under test before any test runs, so the same tests run with Terraform and
// with OpenTofu (make testacc-tofu).
func TestMain(m *testing.M) {
	if err := acctest.UseCLIRegistryHost(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
