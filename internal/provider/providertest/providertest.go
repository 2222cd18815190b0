// Package providertest serves the provider to the tests of the resource
// packages (gpuworkload, nodepoolpolicy, gpuraycluster, ...): the TestMain
// that prepares the CLI under test, and the provider factories for plans
// that need no cluster. The provider package's own tests cannot import it,
// since it imports the provider; they have their own.
package providertest

import (
	"fmt"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/protocol"
	"github.com/gpuform/terraform-provider-gpu/internal/provider"
)

// Main prepares the environment for the CLI under test, as the provider
// package's TestMain does, so the package's plans run with Terraform and
// with OpenTofu, then runs its tests.
func Main(m *testing.M) {
	if err := acctest.PrepareCLIEnv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// Factories serve the provider as Terraform runs it, through the protocol
// layer with the framework's answers compared (protocol.Shadowed).
var Factories = acctest.Factories{
	"gpu": func() (tfprotov6.ProviderServer, error) {
		return protocol.Shadowed(protocol.NewServer(provider.New("test"))()), nil
	},
}
