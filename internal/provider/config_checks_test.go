package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Terraform types integer attributes as numbers, so fractions reach the
// provider, and collections may hold nulls. Each one fails validation on its
// own line, naming the attribute and what is allowed, instead of the
// framework's conversion error that blames the provider (fractions) or a
// silent "" (nulls).
func TestConfigChecks_fractionsAndNulls(t *testing.T) {
	cases := map[string]struct{ config, want string }{
		"gpu count": {
			config: workloadWith(`gpu {
    count = 1.5
  }`),
			want: `(?s)Not a whole number.*count = 1\.5.*gpu\.count takes a whole number, got 1\.5\.`,
		},
		"list element": {
			config: workloadWith(`ports = [8080, 80.5]
  gpu {
    count = 1
  }`),
			want: `(?s)Not a whole number.*ports\[1\] takes a whole number, got 80\.5\.`,
		},
		"nested block": {
			config: workloadWith(`gpu {
    count = 1
  }
  job {
    backoff_limit = 2.25
  }`),
			want: `(?s)Not a whole number.*backoff_limit = 2\.25.*job\.backoff_limit takes a whole number`,
		},
		"too large for 64 bits": {
			config: workloadWith(`gpu {
    count = 1e20
  }`),
			want: `(?s)Not a whole number.*gpu\.count takes a whole number, got 1e\+20\.`,
		},
		"null map value": {
			config: workloadWith(`env = { A = "1", B = null }
  gpu {
    count = 1
  }`),
			want: acctest.Phrases(`Null element`, `env = { A = "1", B = null }`, `env["B"] is null`, `Allowed: a value, or leave the element out`).String(),
		},
		"null list element": {
			config: workloadWith(`args = ["--epochs", null]
  gpu {
    count = 1
  }`),
			want: `(?s)Null element.*args\[1\] is null`,
		},
		"pool policy": {
			config: `
resource "gpu_node_pool_policy" "p" {
  name          = "a100"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 2.5
}
`,
			want: `(?s)Not a whole number.*gpus_per_node = 2\.5.*gpus_per_node takes a whole number, got 2\.5\.`,
		},
	}
	clearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      c.config,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(c.want),
				}},
			})
		})
	}
}

func workloadWith(body string) string {
	return `
resource "gpu_workload" "w" {
  name      = "w"
  namespace = "ml"
  cloud     = "gke"
  image     = "registry.example/cuda:12"
  apply     = false
  kind      = "job"
  ` + body + `
}
`
}
