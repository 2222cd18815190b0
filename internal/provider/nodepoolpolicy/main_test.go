package nodepoolpolicy_test

import (
	"regexp"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/providertest"
)

func TestMain(m *testing.M) { providertest.Main(m) }

// factories serve the provider as Terraform runs it, for plans that need no
// cluster.
var factories = providertest.Factories

// planFails plans config with no cluster and expects want in the error.
func planFails(t *testing.T, config string, want *regexp.Regexp) {
	t.Helper()
	acctest.PlanFails(t, factories, config, want)
}
