package render

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// designRef matches a reference to a design note, with an optional heading.
var designRef = regexp.MustCompile(`docs/design/([A-Za-z0-9_.-]+\.md)(#[a-z0-9-]+)?`)

// sourceRef matches a path to a Go file under internal/, as docs and
// comments name them when they say where a rule lives; group 1 is the
// package folder under internal/ (upstream projects have internal/ folders
// too: only paths into one of ours must resolve).
var sourceRef = regexp.MustCompile(`\binternal/([A-Za-z0-9_-]+)/[A-Za-z0-9_/-]*\.go\b`)

// TestDesignReferencesResolve: every comment or document that points at
// docs/design/<file>.md#<heading> points at a file and heading that exist,
// every internal/<path>.go it names exists (so a move cannot leave the
// layout docs behind), and nothing points at the research notes that used to
// live outside the repository.
func TestDesignReferencesResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	retired := "domain" + ".md"
	anchors := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".localcluster", "bin", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".tmpl", ".sh", ".tf":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(data)
		if strings.Contains(text, retired) {
			t.Errorf("%s mentions %s, which is not in the repository: point at docs/design instead", path, retired)
		}
		for _, m := range sourceRef.FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(filepath.Join(root, "internal", m[1])); err != nil {
				continue // another project's internal/ folder
			}
			if _, err := os.Stat(filepath.Join(root, m[0])); err != nil {
				t.Errorf("%s names %s, which does not exist", path, m[0])
			}
		}
		for _, m := range designRef.FindAllStringSubmatch(text, -1) {
			file, anchor := m[1], strings.TrimPrefix(m[2], "#")
			headings, ok := anchors[file]
			if !ok {
				headings = markdownAnchors(t, filepath.Join(root, "docs", "design", file))
				anchors[file] = headings
			}
			if headings == nil {
				t.Errorf("%s points at docs/design/%s, which does not exist", path, file)
			} else if anchor != "" && !headings[anchor] {
				t.Errorf("%s points at docs/design/%s#%s, which has no such heading", path, file, anchor)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(anchors) == 0 {
		t.Fatal("no reference to docs/design found: the walk did not reach the repository")
	}
}

// markdownAnchors lists the GitHub anchors of a file's headings; nil when
// the file does not exist.
func markdownAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			out[githubAnchor(strings.TrimLeft(line, "# "))] = true
		}
	}
	return out
}

// githubAnchor is how GitHub names a heading: lower case, spaces to '-',
// punctuation other than '-' and '_' dropped.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestGitHubAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"GPU Feature Discovery labels":         "gpu-feature-discovery-labels",
		"YAML shape of resource-tolerations":   "yaml-shape-of-resource-tolerations",
		"The label that names a node's pool":   "the-label-that-names-a-nodes-pool",
		"NVIDIA: the GPU Operator, the plugin": "nvidia-the-gpu-operator-the-plugin",
	} {
		if got := githubAnchor(heading); got != want {
			t.Errorf("%q: %q, want %q", heading, got, want)
		}
	}
}
