package acctest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"testing"

	"github.com/hashicorp/go-version"
)

// The registry hosts a bare `source = "gpuform/gpu"` means: Terraform and
// OpenTofu each expand a source without a host to their own registry, so a
// provider served to the CLI (reattach, a filesystem mirror, dev_overrides)
// must be under the host of the CLI that reads the configuration.
const (
	TerraformRegistryHost = "registry.terraform.io"
	OpenTofuRegistryHost  = "registry.opentofu.org"
	// ProviderSource is the source configurations give, without a host.
	ProviderSource = "gpuform/gpu"
	// ProviderAddress is the address Terraform resolves ProviderSource to.
	ProviderAddress = TerraformRegistryHost + "/" + ProviderSource
)

// EnvTerraformPath names the CLI the tests drive, Terraform or OpenTofu (the
// variable terraform-plugin-testing reads).
const EnvTerraformPath = "TF_ACC_TERRAFORM_PATH"

// OpenTofuMinimum is the oldest OpenTofu the provider supports: 1.12 is the
// one tested (make testacc-tofu), and the first whose terraform-plugin-framework
// support includes resource identity.
var OpenTofuMinimum = version.Must(version.NewVersion("1.12.0"))

// CLI is the Terraform-compatible command line the tests drive.
type CLI struct {
	Path     string
	OpenTofu bool
	Version  *version.Version
}

// Name is the CLI's product name, for messages.
func (c CLI) Name() string {
	if c.OpenTofu {
		return "OpenTofu"
	}
	return "Terraform"
}

// RegistryHost is the host the CLI gives a provider source without one.
func (c CLI) RegistryHost() string {
	if c.OpenTofu {
		return OpenTofuRegistryHost
	}
	return TerraformRegistryHost
}

// ProviderAddress is the address the CLI resolves `source = "gpuform/gpu"` to.
func (c CLI) ProviderAddress() string {
	return c.RegistryHost() + "/" + ProviderSource
}

// cliVersionLine is the line of `terraform version` and `tofu version` that
// names the product ("Terraform v1.5.7", "OpenTofu v1.12.6"), the first one
// unless OpenTofu printed a warning about its CLI configuration before it.
// The JSON form names neither product: OpenTofu keeps Terraform's
// "terraform_version" key.
var cliVersionLine = regexp.MustCompile(`(?m)^(Terraform|OpenTofu) v(\S+)$`)

var (
	cliMu    sync.Mutex
	cliCache = map[string]CLI{}
)

// CLIPath is the CLI the tests use: TF_ACC_TERRAFORM_PATH, or terraform on
// PATH as terraform-plugin-testing falls back to.
func CLIPath() (string, error) {
	if p := os.Getenv(EnvTerraformPath); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("terraform")
	if err != nil {
		return "", fmt.Errorf("terraform CLI not found (scripts/terraform.sh installs the pinned one, scripts/tofu.sh OpenTofu): %w", err)
	}
	return p, nil
}

// DetectCLI runs `<path> version` once per path and says which product and
// version it is.
func DetectCLI(path string) (CLI, error) {
	cliMu.Lock()
	defer cliMu.Unlock()
	if c, ok := cliCache[path]; ok {
		return c, nil
	}
	cmd := exec.Command(path, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	if err != nil {
		return CLI{}, fmt.Errorf("%s version: %w", path, err)
	}
	m := cliVersionLine.FindSubmatch(out)
	if m == nil {
		return CLI{}, fmt.Errorf("%s version: neither Terraform nor OpenTofu: %q", path, out)
	}
	v, err := version.NewVersion(string(m[2]))
	if err != nil {
		return CLI{}, fmt.Errorf("%s version: %w", path, err)
	}
	c := CLI{Path: path, OpenTofu: string(m[1]) == "OpenTofu", Version: v}
	cliCache[path] = c
	return c, nil
}

// TestCLI is the CLI the tests use, failing the test when there is none.
func TestCLI(t testing.TB) CLI {
	t.Helper()
	p, err := CLIPath()
	if err != nil {
		t.Fatal(err)
	}
	c, err := DetectCLI(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// PrepareCLIEnv sets this process's environment for the CLI the tests use,
// before any test runs (TestMain). Under OpenTofu:
//   - terraform-plugin-testing's reattach must serve the provider under
//     OpenTofu's registry host: it uses TF_ACC_PROVIDER_HOST, Terraform's
//     host unless set, which OpenTofu would not match to a configuration's
//     `gpu` provider and would try to download instead;
//   - TF_CLI_CONFIG_FILE naming a file that does not exist is dropped:
//     Terraform ignores it, OpenTofu warns on stdout before every command's
//     output, which breaks the JSON the harness reads (`show -json`).
//
// A missing CLI is left to the tests that need one to report.
func PrepareCLIEnv() error {
	p, err := CLIPath()
	if err != nil {
		return nil //nolint:nilerr // unit tests run without a CLI
	}
	c, err := DetectCLI(p)
	if err != nil || !c.OpenTofu {
		return err
	}
	if f := os.Getenv("TF_CLI_CONFIG_FILE"); f != "" {
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
			if err := os.Unsetenv("TF_CLI_CONFIG_FILE"); err != nil {
				return err
			}
		}
	}
	const hostEnv = "TF_ACC_PROVIDER_HOST"
	if os.Getenv(hostEnv) != "" {
		return nil
	}
	return os.Setenv(hostEnv, c.RegistryHost())
}

// SkipBelowCLI skips the test when the CLI is older than the version each
// product needs, saying why, as tfversion.SkipBelow does for
// terraform-plugin-testing. OpenTofu forked from Terraform 1.5 and numbers
// its releases on its own, so its minimum is given apart; nil means no
// OpenTofu release has what the test needs.
func SkipBelowCLI(t testing.TB, c CLI, terraform, openTofu *version.Version, why string) {
	t.Helper()
	minimum := terraform
	if c.OpenTofu {
		if openTofu == nil {
			t.Skipf("OpenTofu %s lacks what this test needs: %s", c.Version, why)
		}
		minimum = openTofu
	}
	if c.Version.LessThan(minimum) {
		t.Skipf("%s %s is older than %s, which this test needs: %s", c.Name(), c.Version, minimum, why)
	}
}
