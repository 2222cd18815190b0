package protocol

import (
	"os"
	"strings"
	"testing"
)

// The direct path reproduces the framework's steps of one version. A
// dependency update that changes the version fails here until the steps are
// read again and the design note and VerifiedFramework say the new version.
func TestFrameworkVersionIsTheVerifiedOne(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, line := range strings.Split(string(mod), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == frameworkModule {
			got = fields[1]
		}
	}
	if got != VerifiedFramework {
		t.Fatalf("go.mod requires %s %s, but the direct path was verified against %s: read the framework's steps "+
			"again (docs/design/framework.md), correct the direct path, then set VerifiedFramework", frameworkModule, got, VerifiedFramework)
	}
	note, err := os.ReadFile("../../docs/design/framework.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Verified against: terraform-plugin-framework " + VerifiedFramework; !strings.Contains(string(note), want) {
		t.Errorf("docs/design/framework.md does not say %q", want)
	}
}
