package rendertest

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func Ptr[T any](v T) *T { return &v }

// ValidWorkload is the smallest workload that renders on every cloud.
func ValidWorkload() spec.Workload {
	return spec.Workload{
		Name:  "llm",
		Kind:  spec.KindDeployment,
		Cloud: string(spec.CloudGKE),
		Image: "vllm/vllm-openai:v0.6.0",
		GPU:   spec.GPU{Count: 1, Accelerator: "l4"},
	}
}

// FindDiag returns the first diagnostic at path (PathString form) whose
// detail contains substring.
func FindDiag(diags gpudiag.Diagnostics, severity gpudiag.Severity, path, substring string) (gpudiag.Diagnostic, bool) {
	for _, d := range diags {
		if d.Severity == severity && d.PathString() == path && strings.Contains(d.Detail, substring) {
			return d, true
		}
	}
	return gpudiag.Diagnostic{}, false
}

func RequireDiag(t *testing.T, diags gpudiag.Diagnostics, severity gpudiag.Severity, path, substring string) {
	t.Helper()
	if _, ok := FindDiag(diags, severity, path, substring); !ok {
		t.Fatalf("want %s at %q containing %q; got:\n%s", severity, path, substring, FormatDiags(diags))
	}
}

func RequireNoErrors(t *testing.T, diags gpudiag.Diagnostics) {
	t.Helper()
	if diags.HasError() {
		t.Fatalf("unexpected errors:\n%s", FormatDiags(diags.Errors()))
	}
}

func FormatDiags(diags gpudiag.Diagnostics) string {
	if len(diags) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for _, d := range diags {
		b.WriteString("  " + d.String() + "\n")
	}
	return b.String()
}

var Update = flag.Bool("update", false, "rewrite the golden files under testdata/ from the current output")

// Golden compares got with the golden file at path or, with -update,
// writes got there instead. Every golden suite calls it, so the flag, the
// file mode and the failure message are the same everywhere.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the test's output; review and run with -update.\n%s", path, lineDiff(string(want), got))
	}
}

// GoldenCase is one case of a golden suite: its subtest name, its file,
// and the text compared with the file.
type GoldenCase struct {
	Name string
	Path string
	Text func(t *testing.T) string
}

// GoldenSuite is every golden suite's scaffolding: each case runs as a
// subtest comparing its text with its file (Golden); two cases of one file
// are refused; and a file under pattern that no case compared fails: a
// file whose case was removed or renamed would otherwise stay in testdata/
// and mislead the next reader.
func GoldenSuite(t *testing.T, pattern string, cases []GoldenCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Path] {
			t.Fatalf("two golden cases write %s", c.Path)
		}
		seen[c.Path] = true
		t.Run(c.Name, func(t *testing.T) { Golden(t, c.Path, c.Text(t)) })
	}
	t.Run("no stale files", func(t *testing.T) {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !seen[f] {
				t.Errorf("%s has no case; delete it or add its case", f)
			}
		}
	})
}

// lineDiff shows the first differing lines; enough to locate a change.
// Texts that differ only past their last line (a trailing newline) have no
// differing line, so it says so rather than showing nothing.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  - " + wl + "\n  + " + gl + "\n")
			shown++
		}
	}
	if shown == 0 {
		b.WriteString("no line differs; the file has " + strconv.Itoa(len(w)) + " lines, the output " + strconv.Itoa(len(g)) + " (a trailing newline?)\n")
	}
	return b.String()
}

var WriteFuzzSeeds = flag.Bool("write-fuzz-seeds", false, "rewrite testdata/fuzz/FuzzRender from fuzzSeeds")

func AllUTF8(values ...string) bool {
	for _, v := range values {
		if !utf8.ValidString(v) {
			return false
		}
	}
	return true
}

// fixtureDir holds the local cluster's fake nodes (scripts/localcluster),
// found from this file so the tests of every package read the same folder.
var fixtureDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "localcluster", "fixtures")
}()

// LoadFixtureNodes decodes every Node of the named fixture files (all of
// them when none are named), so the capacity logic is tested against the
// same nodes the local cluster runs.
func LoadFixtureNodes(t testing.TB, names ...string) []corev1.Node {
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

// fixtureSlicesFile holds the ResourceSlices the local cluster publishes
// for its DRA fixture nodes, read back from it (scripts/localcluster/dra.sh).
var fixtureSlicesFile = filepath.Join(fixtureDir, "..", "..", "..", "internal", "render", "capacity", "testdata", "dra-slices.yaml")

// LoadFixtureSlices decodes the local cluster's DRA ResourceSlices, so
// tests judge the devices NVIDIA's driver publishes, attribute for
// attribute. Each call decodes them anew: callers may change them.
func LoadFixtureSlices(t testing.TB) []resourcev1.ResourceSlice {
	t.Helper()
	raw, err := os.ReadFile(fixtureSlicesFile)
	if err != nil {
		t.Fatal(err)
	}
	var list resourcev1.ResourceSliceList
	if err := yaml.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 0 {
		t.Fatalf("no slices in %s", fixtureSlicesFile)
	}
	return list.Items
}

// TwoGPUsPerPCIeRoot re-roots a node's GPUs (gpu-0 ... gpu-7, the local
// cluster's slices, one per PCIe root) as on a machine with two GPUs per
// PCIe root: gpu-1 under gpu-0's root (resource.kubernetes.io/pcieRoot),
// gpu-3 under gpu-2's, and so on. Every other attribute stays as the
// driver publishes it.
func TwoGPUsPerPCIeRoot(t testing.TB, devices []resourcev1.Device) {
	t.Helper()
	const pcieRoot = "resource.kubernetes.io/pcieRoot"
	roots := map[string]resourcev1.DeviceAttribute{}
	for _, d := range devices {
		roots[d.Name] = d.Attributes[pcieRoot]
	}
	for _, d := range devices {
		minor, err := strconv.Atoi(strings.TrimPrefix(d.Name, "gpu-"))
		if err != nil || roots["gpu-"+strconv.Itoa(minor&^1)].StringValue == nil {
			t.Fatalf("device %s: not a whole GPU gpu-<minor> whose pair publishes its PCIe root", d.Name)
		}
		d.Attributes[pcieRoot] = roots["gpu-"+strconv.Itoa(minor&^1)]
	}
}

func WorkloadOn(cloud spec.Cloud, g spec.GPU, spot bool) spec.Workload {
	return spec.Workload{Name: "w", Kind: spec.KindJob, Cloud: string(cloud), Image: "img", GPU: g, Spot: spot}
}

// UpdateFormats is -update-formats: write NEW format fixtures (ids and
// annotations users' states hold), never rewriting an existing one.
var UpdateFormats = flag.Bool("update-formats", false, "write NEW format fixtures (never rewrites an existing one)")

// WriteFixtureIfNew writes a format fixture only with -update-formats and
// only when it does not exist yet: fixtures record what released versions
// wrote, so a test that reads them fails when a format changes.
func WriteFixtureIfNew(t *testing.T, path, content string) {
	t.Helper()
	if !*UpdateFormats {
		return
	}
	if _, err := os.Stat(path); err == nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
