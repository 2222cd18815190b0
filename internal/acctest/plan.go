package acctest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// Factories serve one provider, as terraform-plugin-testing asks for it.
type Factories = map[string]func() (tfprotov6.ProviderServer, error)

// ClusterEnv lists the environment variables the provider block reads (the
// provider package's tests check this list against its own), cleared by
// tests that must not pick up a developer's own cluster.
var ClusterEnv = []string{
	"KUBE_HOST", "KUBE_TOKEN", "KUBE_CLUSTER_CA_CERT_DATA", "KUBE_CLIENT_CERT_DATA", "KUBE_CLIENT_KEY_DATA",
	"KUBE_INSECURE", "KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBE_CTX", "KUBECONFIG",
}

// ClearClusterEnv unsets ClusterEnv for the test.
func ClearClusterEnv(t testing.TB) {
	t.Helper()
	for _, name := range ClusterEnv {
		t.Setenv(name, "")
		_ = os.Unsetenv(name)
	}
}

// Phrases matches each part in order, whatever Terraform's line wrapping
// does to the spaces inside them.
func Phrases(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, `.*`))
}

// PlanFails plans config with no cluster and expects want in the error.
func PlanFails(t *testing.T, factories Factories, config string, want *regexp.Regexp) {
	t.Helper()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:      config,
			PlanOnly:    true,
			ExpectError: want,
		}},
	})
}

// CheckListLacks asserts that no element of a list attribute equals value.
func CheckListLacks(name, attribute, value string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[name]
		if !ok {
			return fmt.Errorf("%s not in state", name)
		}
		for k, v := range rs.Primary.Attributes {
			if strings.HasPrefix(k, attribute+".") && k != attribute+".#" && v == value {
				return fmt.Errorf("%s.%s contains %q", name, attribute, value)
			}
		}
		return nil
	}
}

// FunctionsVersion skips tests of provider functions on Terraform before
// 1.8, which has none (the gpu_pod_placement data source covers them).
var FunctionsVersion = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)}

// CapturePlanned records a resource's planned values into Into, keyed by
// Address, for assertions once the test case has run.
type CapturePlanned struct {
	Address string
	Into    map[string]map[string]any
}

// CheckPlan implements plancheck.PlanCheck.
func (c CapturePlanned) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.Address || rc.Change == nil {
			continue
		}
		if after, ok := rc.Change.After.(map[string]any); ok {
			c.Into[c.Address] = after
			return
		}
	}
	resp.Error = fmt.Errorf("%s has no planned values", c.Address)
}

// ManifestCheck runs check on a resource's rendered objects joined into one
// YAML stream (the manifests attribute, one document per object).
func ManifestCheck(address string, check func(string) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[address]
		if !ok {
			return fmt.Errorf("%s not in the state", address)
		}
		n, err := strconv.Atoi(rs.Primary.Attributes["manifests.#"])
		if err != nil {
			return fmt.Errorf("%s: manifests.# = %q", address, rs.Primary.Attributes["manifests.#"])
		}
		docs := make([]string, n)
		for i := range docs {
			docs[i] = rs.Primary.Attributes["manifests."+strconv.Itoa(i)]
		}
		return check(strings.Join(docs, "---\n"))
	}
}

// ManifestMatches checks that the joined manifests match re.
func ManifestMatches(address string, re *regexp.Regexp) resource.TestCheckFunc {
	return ManifestCheck(address, func(manifest string) error {
		if !re.MatchString(manifest) {
			return fmt.Errorf("%s: manifests do not match %s:\n%s", address, re, manifest)
		}
		return nil
	})
}

// CaptureState records a resource's or data source's values in the state
// into Into, keyed by Address, for assertions once the test case has run.
type CaptureState struct {
	Address string
	Into    map[string]map[string]any
}

// CheckState implements statecheck.StateCheck.
func (c CaptureState) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State != nil && req.State.Values != nil && req.State.Values.RootModule != nil {
		for _, r := range req.State.Values.RootModule.Resources {
			if r.Address == c.Address {
				c.Into[c.Address] = r.AttributeValues
				return
			}
		}
	}
	resp.Error = fmt.Errorf("%s is not in the state", c.Address)
}
