package names

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
)

// checks pairs each function with the apimachinery function it stands for.
var checks = []struct {
	name string
	fast func(string) []string
	want func(string) []string
}{
	{"DNS1123Label", DNS1123Label, validation.IsDNS1123Label},
	{"DNS1123Subdomain", DNS1123Subdomain, validation.IsDNS1123Subdomain},
	{"LabelKey", LabelKey, content.IsLabelKey},
	{"LabelValue", LabelValue, content.IsLabelValue},
	{"EnvVarName", EnvVarName, validation.IsEnvVarName},
}

// tricky values: the edges of each grammar.
var tricky = []string{
	"", "a", "A", "0", "-", "_", ".", "/", "a-", "-a", "a.", ".a", "a_b", "a.b", "a..b", "a-b", "a--b", "a/b", "/a", "a/",
	"a//b", "a/b/c", "example.com/name", "Example.com/name", "example.com/Name", "example.com/na_me", "example.com/.name",
	"example.com/name.", "example..com/name", "-example.com/name", "example.com-/name", "kubernetes.io/hostname",
	"nvidia.com/gpu.product", "app.kubernetes.io/name", "a\n", "\na", "a b", "..", "..a", ".a.", "1A", "A1", "_", "MY_VAR", "my.var-1", "ä", "aä", "llm-server", "LLM", "a.B",
	strings.Repeat("a", 62), strings.Repeat("a", 63), strings.Repeat("a", 64),
	strings.Repeat("a", 253), strings.Repeat("a", 254), strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 127) + "a",
	strings.Repeat("a", 63) + "/" + strings.Repeat("b", 63), strings.Repeat("a", 254) + "/b", "a/" + strings.Repeat("b", 64),
}

func agree(t *testing.T, value string) {
	t.Helper()
	for _, c := range checks {
		got, want := c.fast(value), c.want(value)
		if !slices.Equal(got, want) {
			t.Errorf("%s(%q) = %q, apimachinery says %q", c.name, value, got, want)
		}
	}
}

func TestAgreesWithApimachineryOnEdges(t *testing.T) {
	for _, value := range tricky {
		agree(t, value)
	}
}

// TestAgreesWithApimachineryOnRandomValues draws short strings from the
// characters that matter to the grammars.
func TestAgreesWithApimachineryOnRandomValues(t *testing.T) {
	const alphabet = "abzAZ09-_./ \nä"
	runes := []rune(alphabet)
	r := rand.New(rand.NewPCG(1, 2))
	for range 20_000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteRune(runes[r.IntN(len(runes))])
		}
		agree(t, b.String())
	}
}

func FuzzAgreesWithApimachinery(f *testing.F) {
	for _, value := range tricky {
		f.Add(value)
	}
	f.Fuzz(agree)
}
