package clustercapacity_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Invalid arguments of gpu_cluster_capacity fail the plan on the argument,
// before any cluster is contacted, and say what is allowed.
func TestClusterCapacityDataSource_planTimeValidation(t *testing.T) {
	cases := map[string]struct {
		body string
		want *regexp.Regexp
	}{
		"selector with a space in the key": {body: `selector = "gpu pool=a100"`,
			want: acctest.Phrases(`Invalid label selector`, `selector = "gpu pool=a100"`, `Allowed: a Kubernetes label selector`)},
		"selector with an unclosed set": {body: `selector = "team in (ml,research"`,
			want: acctest.Phrases(`Invalid label selector`, `selector = "team in (ml,research"`, `expected: ',' or ')'`,
				`"example.com/team in (ml,research)"`)},
		"selector without a key": {body: `selector = "!=a100"`,
			want: acctest.Phrases(`Invalid label selector`, `selector = "!=a100"`, `Allowed: a Kubernetes label selector`)},
		"selector with an invalid value": {body: `selector = "team=ml/research"`,
			want: acctest.Phrases(`Invalid label selector`, `selector = "team=ml/research"`, `a valid label must be an empty string or consist of`)},
		"pools set by hand": {body: `pools = []`,
			want: acctest.Phrases(`Invalid Configuration for Read-Only Attribute`, `pools = []`, `Cannot set value for this attribute`)},
		"argument that does not exist": {body: `cloud = "gke"`,
			want: acctest.Phrases(`Unsupported argument`, `cloud = "gke"`, `An argument named "cloud" is not expected here`)},
		"no cluster configured": {body: `selector = "cloud.google.com/gke-nodepool=a100"`,
			want: acctest.Phrases(`gpu_cluster_capacity needs a cluster`, `no Kubernetes cluster is configured`, `set config_path`)},
	}
	acctest.ClearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			planFails(t, fmt.Sprintf("data \"gpu_cluster_capacity\" \"bad\" {\n  %s\n}\n", c.body), c.want)
		})
	}
}
