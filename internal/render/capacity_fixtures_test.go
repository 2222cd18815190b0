package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// fixtureDir holds the local cluster's fake nodes (scripts/localcluster).
var fixtureDir = filepath.Join("..", "..", "scripts", "localcluster", "fixtures")

// loadFixtureNodes decodes every Node of the named fixture files (all of
// them when none are named), so the capacity logic is tested against the
// same nodes the local cluster runs.
func loadFixtureNodes(t testing.TB, names ...string) []corev1.Node {
	t.Helper()
	if len(names) == 0 {
		files, err := filepath.Glob(filepath.Join(fixtureDir, "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no fixtures in %s: %v", fixtureDir, err)
		}
		for _, f := range files {
			names = append(names, strings.TrimSuffix(filepath.Base(f), ".yaml"))
		}
	}
	var nodes []corev1.Node
	for _, name := range names {
		raw, err := os.ReadFile(filepath.Join(fixtureDir, name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(raw), "\n---\n") {
			var n corev1.Node
			if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if n.Kind == "Node" {
				nodes = append(nodes, n)
			}
		}
	}
	return nodes
}
