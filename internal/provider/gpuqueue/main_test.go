package gpuqueue_test

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/providertest"
)

func TestMain(m *testing.M) { providertest.Main(m) }

// factories serve the provider as Terraform runs it, for plans that need no
// cluster.
var factories = providertest.Factories
