package provider

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Every resource example must plan cleanly: the schema accepts it and every
// plan-time GPU rule passes. Planning needs no cluster, so none is
// configured.
func TestAccExamples_resourcesPlan(t *testing.T) {
	clearClusterEnv(t)
	files, err := filepath.Glob(filepath.Join(acctest.RepoRoot(t), "examples", "resources", "*", "resource.tf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no resource examples found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:             string(src),
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
				}},
			})
		})
	}
}
