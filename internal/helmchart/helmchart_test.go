package helmchart

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyThisPackageImportsHelm keeps Helm behind this package (and its
// helminstall, which tests and the demo use): no other non-test file of the
// module imports helm.sh/helm.
func TestOnlyThisPackageImportsHelm(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".localcluster", "bin", "tools", "helmchart":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "helm.sh/") {
				t.Errorf("%s imports %s: go through internal/helmchart", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files: the walk missed the module", checked)
	}
}

func TestRemoteRef(t *testing.T) {
	cases := map[string]any{
		"":                               map[string]any{"properties": map[string]any{"a": map[string]any{"$ref": "#/definitions/x"}}},
		"https://example.invalid/s.json": map[string]any{"allOf": []any{map[string]any{"$ref": "https://example.invalid/s.json"}}},
	}
	for want, doc := range cases {
		if got := RemoteRef(doc); got != want {
			t.Errorf("RemoteRef = %q, want %q", got, want)
		}
	}
}

func TestMergeTablesHigherLayerWins(t *testing.T) {
	got := MergeTables(map[string]any{"a": map[string]any{"x": 1}}, map[string]any{"a": map[string]any{"x": 2, "y": 3}, "b": 4})
	a, _ := got["a"].(map[string]any)
	if a["x"] != 1 || a["y"] != 3 || got["b"] != 4 {
		t.Fatalf("merge: %v", got)
	}
}
