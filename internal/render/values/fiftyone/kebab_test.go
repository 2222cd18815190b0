package fiftyone

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

// kebabVectors are every result listed in docs/design/fiftyone.md#kebabcase: the FiftyOne
// chart's own examples, the digit edge cases, and xstrings' upstream test
// vectors.
var kebabVectors = map[string]string{
	"teamsDoWithGpu":     "teams-do-with-gpu",
	"teamsDoCpuDefault":  "teams-do-cpu-default",
	"teamsDoTwo":         "teams-do-two",
	"teamsDo":            "teams-do",
	"gpuAzureAks":        "gpu-azure-aks",
	"gpuGcpGkeAutopilot": "gpu-gcp-gke-autopilot",
	"gpuAwsEksAuto":      "gpu-aws-eks-auto",
	"myGPUWorker":        "my-gpu-worker",
	"DoGPU":              "do-gpu",
	"gpu_l4":             "gpu-l4",
	"gpu-a100":           "gpu-a100",
	"gpuA100":            "gpu-a100",
	"gpuH100":            "gpu-h100",
	"teamsDoL4":          "teams-do-l4",
	"teamsDo2":           "teams-do2",
	"gpuNvidiaTeslaT4":   "gpu-nvidia-tesla-t4",
	"t4":                 "t4",
	"gpuA100x2":          "gpu-a-100x2",
	"gpuA10080gb":        "gpu-a-10080gb",
	"l4x1":               "l-4x1",
	"HTTPServer":         "http-server",
	"NoHTTPS":            "no-https",
	"http2xx":            "http-2xx",
	"HTTP2XX":            "http2-xx",
	"Bld4Floor3rd":       "bld4-floor-3rd",
	"a1b2c3d":            "a-1b2c3d",
	"abc_123_def":        "abc-123-def",
	// xstrings' own documentation examples.
	"FirstName":    "first-name",
	"GO_PATH":      "go-path",
	"GO PATH":      "go-path",
	"GO-PATH":      "go-path",
	"HTTP20xOK":    "http-20x-ok",
	"Duration2m3s": "duration-2m3s",
	"":             "",
}

func TestKebabCaseVectors(t *testing.T) {
	for in, want := range kebabVectors {
		if got := KebabCase(in); got != want {
			t.Errorf("KebabCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// helmKebab renders `kebabcase` through Helm's own template engine, the
// function the FiftyOne chart calls, for many inputs at once.
func helmKebab(t testing.TB, inputs []string) []string {
	t.Helper()
	ch := &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "kebab", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/out.txt", Data: []byte(`{{- range .Values.in }}{{ kebabcase . | printf "%q" }}` + "\n" + `{{ end }}`)}},
	}
	list := make([]any, len(inputs))
	for i, s := range inputs {
		list[i] = s
	}
	vals, err := chartutil.ToRenderValues(ch, map[string]any{"in": list}, chartutil.ReleaseOptions{Name: "k", Namespace: "default"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Render(ch, vals)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out["kebab/templates/out.txt"], "\n"), "\n")
	if len(inputs) == 0 {
		return nil
	}
	if len(lines) != len(inputs) {
		t.Fatalf("helm rendered %d lines for %d inputs", len(lines), len(inputs))
	}
	result := make([]string, len(lines))
	for i, l := range lines {
		var err error
		if result[i], err = unquoteGo(l); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
	}
	return result
}

// TestKebabCaseMatchesHelm: the port agrees with Helm's engine on every
// vector and on awkward inputs (Unicode, punctuation, invalid UTF-8 is
// left to the fuzz test).
func TestKebabCaseMatchesHelm(t *testing.T) {
	inputs := []string{"ÄpfelBaum", "x.y", "a--b", "__lead", "trail_", "A", "AB", "ABc", "aB", "1a", "a1", "1", "12ab34CD",
		"camelCaseKey", "with space", "Émile2Zola", "ＡＢＣ", "日本語Key", "key!Name", "gpu.A100", "UPPER_CASE_99", "x9Y9z"}
	for in := range kebabVectors {
		if in != "" {
			inputs = append(inputs, in)
		}
	}
	want := helmKebab(t, inputs)
	for i, in := range inputs {
		if got := KebabCase(in); got != want[i] {
			t.Errorf("KebabCase(%q) = %q, Helm's kebabcase gives %q", in, got, want[i])
		}
	}
}

// FuzzKebabCase compares the port with Helm's kebabcase on any input.
func FuzzKebabCase(f *testing.F) {
	for in := range kebabVectors {
		f.Add(in)
	}
	f.Add("a\xffB")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r") {
			// Helm values are YAML text; invalid UTF-8 cannot reach the
			// chart, and newlines would break the one-line-per-input
			// protocol of helmKebab.
			t.Skip()
		}
		want := helmKebab(t, []string{s})[0]
		if got := KebabCase(s); got != want {
			t.Fatalf("KebabCase(%q) = %q, Helm's kebabcase gives %q", s, got, want)
		}
	})
}

func TestNaiveKebabWarnsOnlyOnDigitSurprises(t *testing.T) {
	cases := map[string]bool{
		"gpuA100x2": true, "l4x1": true, "gpuA10080gb": true, "http2xx": true,
		"gpuA100": false, "teamsDo2": false, "teamsDoL4": false, "myGPUWorker": false, "gpuL4": false,
	}
	for key, warn := range cases {
		surprising := strings.ContainsAny(key, "0123456789") && naiveKebab(key) != KebabCase(key)
		if surprising != warn {
			t.Errorf("%s: warning %v, want %v (naive %q, kebab %q)", key, surprising, warn, naiveKebab(key), KebabCase(key))
		}
	}
}

func unquoteGo(s string) (string, error) { return strconv.Unquote(s) }
