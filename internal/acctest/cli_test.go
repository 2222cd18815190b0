package acctest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
)

// fakeCLI writes an executable that prints out for `version`.
func fakeCLI(t *testing.T, out string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cli")
	script := "#!/bin/sh\ncat <<'EOF'\n" + out + "\nEOF\n"
	if err := os.WriteFile(p, []byte(script), 0o700); err != nil { //nolint:gosec // a test executable
		t.Fatal(err)
	}
	return p
}

// The two CLIs are told apart by `version`'s first line, and each gets the
// provider address its own default host gives `gpuform/gpu`.
func TestDetectCLI(t *testing.T) {
	for _, tc := range []struct {
		out, name, version, host string
		openTofu                 bool
	}{
		{"Terraform v1.5.7\non linux_amd64", "Terraform", "1.5.7", TerraformRegistryHost, false},
		{"OpenTofu v1.12.6\non linux_amd64", "OpenTofu", "1.12.6", OpenTofuRegistryHost, true},
		{"OpenTofu v1.13.0-beta1\non linux_amd64", "OpenTofu", "1.13.0-beta1", OpenTofuRegistryHost, true},
		{"\nWarning: Unable to open CLI configuration file\n\nThe CLI configuration file at \"/x\" does not exist.\nOpenTofu v1.12.6\non linux_amd64",
			"OpenTofu", "1.12.6", OpenTofuRegistryHost, true},
	} {
		c, err := DetectCLI(fakeCLI(t, tc.out))
		if err != nil {
			t.Fatal(err)
		}
		if c.Name() != tc.name || c.OpenTofu != tc.openTofu || c.Version.String() != tc.version {
			t.Errorf("%q: got %s %s (OpenTofu %v)", tc.out, c.Name(), c.Version, c.OpenTofu)
		}
		if want := tc.host + "/gpuform/gpu"; c.ProviderAddress() != want {
			t.Errorf("%q: provider address %s, want %s", tc.out, c.ProviderAddress(), want)
		}
	}
	if ProviderAddress != TerraformRegistryHost+"/"+ProviderSource {
		t.Errorf("ProviderAddress %s is not Terraform's address of %s", ProviderAddress, ProviderSource)
	}
	if _, err := DetectCLI(fakeCLI(t, "something else 1.0")); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Errorf("an unknown CLI: %v, want an error naming neither product", err)
	}
}

// The OpenTofu minimum applies to OpenTofu, the Terraform one to Terraform;
// a nil OpenTofu minimum skips every OpenTofu.
func TestSkipBelowCLI(t *testing.T) {
	v := func(s string) *version.Version { return version.Must(version.NewVersion(s)) }
	tofu := CLI{OpenTofu: true, Version: v("1.12.6")}
	terraform := CLI{Version: v("1.5.7")}
	for _, tc := range []struct {
		name        string
		cli         CLI
		tf, ot      *version.Version
		wantSkipped bool
	}{
		{"OpenTofu 1.12 against Terraform's 1.14", tofu, v("1.14.0"), v("1.12.0"), false},
		{"OpenTofu 1.12 below its minimum", tofu, v("1.6.0"), v("1.13.0"), true},
		{"OpenTofu without any release", tofu, v("1.6.0"), nil, true},
		{"Terraform 1.5 below 1.6", terraform, v("1.6.0"), v("1.0.0"), true},
		{"Terraform 1.5 at 1.5", terraform, v("1.5.0"), v("1.99.0"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var skipped bool
			t.Run("check", func(t *testing.T) {
				defer func() { skipped = t.Skipped() }()
				SkipBelowCLI(t, tc.cli, tc.tf, tc.ot, "a test")
			})
			if skipped != tc.wantSkipped {
				t.Errorf("skipped %v, want %v", skipped, tc.wantSkipped)
			}
		})
	}
}
