package clustercapacity_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Invalid filters of gpu_accelerators fail the plan on the filter, with no
// cluster, and say what is allowed.
func TestAcceleratorsDataSource_planTimeValidation(t *testing.T) {
	cases := map[string]struct {
		body string
		want *regexp.Regexp
	}{
		"unknown cloud": {body: `cloud = "gcp"`,
			want: acctest.Phrases(`Invalid Attribute Value Match`, `cloud = "gcp"`, `must be one of`, `"gke-autopilot"`, `Did you mean "gke"?`)},
		"empty cloud": {body: `cloud = ""`,
			want: acctest.Phrases(`Invalid Attribute Value Match`, `cloud = ""`, `must be one of`, `"generic"`)},
		"negative min_memory_gib": {body: `min_memory_gib = -1`,
			want: acctest.Phrases(`Invalid Attribute Value`, `min_memory_gib = -1`, `must be at least 0`)},
		"mig that is not a bool": {body: `mig = "sometimes"`,
			want: acctest.Phrases(`Incorrect attribute value type`, `mig = "sometimes"`, `a bool is required`)},
		"names set by hand": {body: `names = ["t4"]`,
			want: acctest.Phrases(`Invalid Configuration for Read-Only Attribute`, `names = ["t4"]`, `Cannot set value for this attribute`)},
		"filter that does not exist": {body: `gpu_count = 8`,
			want: acctest.Phrases(`Unsupported argument`, `gpu_count = 8`, `An argument named "gpu_count" is not expected here`)},
	}
	acctest.ClearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			planFails(t, fmt.Sprintf("data \"gpu_accelerators\" \"bad\" {\n  %s\n}\n", c.body), c.want)
		})
	}
}

// A fraction is a minimum like any other (computed ones often are), not a
// conversion error.
func TestAcceleratorsDataSource_fractionalMinimum(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: "data \"gpu_accelerators\" \"big\" {\n  min_memory_gib = 80 * 1.5\n}\n",
			Check: resource.ComposeAggregateTestCheckFunc(
				// 120 GiB and up: B200 180, B300 288, GB200 186, H200 141.
				resource.TestCheckResourceAttr("data.gpu_accelerators.big", "names.#", "4"),
				resource.TestCheckResourceAttr("data.gpu_accelerators.big", "names.0", "b200"),
				resource.TestCheckResourceAttr("data.gpu_accelerators.big", "names.3", "h200"),
			),
		}},
	})
}
