package operatorvalues_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/protocol"
	"github.com/gpuform/terraform-provider-gpu/internal/provider"
)

// TestMain prepares the environment for the CLI under test, as the provider
// package's does, so these plans run with Terraform and with OpenTofu.
func TestMain(m *testing.M) {
	if err := acctest.PrepareCLIEnv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// factories serve the provider as Terraform runs it, for plans that need no
// cluster.
var factories = acctest.Factories{
	"gpu": func() (tfprotov6.ProviderServer, error) {
		return protocol.Shadowed(protocol.NewServer(provider.New("test"))()), nil
	},
}
