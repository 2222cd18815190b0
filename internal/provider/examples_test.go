package provider

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// offline drops examples that read the cluster while planning.
func offline(files []string) []string {
	var out []string
	for _, f := range files {
		if filepath.Base(filepath.Dir(f)) != "gpu_cluster_capacity" {
			out = append(out, f)
		}
	}
	return out
}

// Every resource and data source example must plan cleanly: the schema accepts it and every
// plan-time GPU rule passes. Planning needs no cluster, so none is
// configured.
func TestAccExamples_plan(t *testing.T) {
	clearClusterEnv(t)
	root := acctest.RepoRoot(t)
	resources, _ := filepath.Glob(filepath.Join(root, "examples", "resources", "*", "resource.tf"))
	dataSources, _ := filepath.Glob(filepath.Join(root, "examples", "data-sources", "*", "data-source.tf"))
	files := append(resources, offline(dataSources)...)
	if len(resources) == 0 || len(dataSources) == 0 {
		t.Fatalf("examples not found under %s/examples", root)
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
					ExpectNonEmptyPlan: true, // resources to create, outputs to record
				}},
			})
		})
	}
}
