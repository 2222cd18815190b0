package acctest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// ProviderAddress is the address configurations use for the provider.
const ProviderAddress = "registry.terraform.io/gpuform/gpu"

// Terraform drives the terraform CLI in a directory of its own, against the
// provider served from the test process (Terraform's reattach mode), for
// what terraform-plugin-testing cannot do: interrupting a running apply,
// and reading the state a failed apply left behind.
type Terraform struct {
	t   testing.TB
	Dir string
	bin string
	env []string
}

// NewTerraform serves the provider and prepares a working directory with
// the given configuration (a required_providers block is added).
func NewTerraform(t *testing.T, server func() (tfprotov6.ProviderServer, error), config string) *Terraform {
	t.Helper()
	Kubeconfig(t) // acceptance only
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("terraform"); err != nil {
			t.Fatalf("terraform CLI not found (scripts/terraform.sh installs the pinned one): %v", err)
		}
	}
	tf := &Terraform{t: t, Dir: t.TempDir(), bin: bin}
	tf.env = append(os.Environ(), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		"TF_REATTACH_PROVIDERS="+serveForReattach(t, server))
	tf.Write(config)
	if out, err := tf.Run("init", "-input=false"); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}
	return tf
}

// serveForReattach starts the provider's gRPC server in this process and
// returns the TF_REATTACH_PROVIDERS value that points Terraform at it.
func serveForReattach(t *testing.T, server func() (tfprotov6.ProviderServer, error)) string {
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	factory := func() tfprotov6.ProviderServer {
		s, err := server()
		if err != nil {
			t.Errorf("provider server: %v", err)
		}
		return s
	}
	go func() {
		// The logging sink honours TF_LOG and TF_ACC_LOG_PATH as
		// terraform-plugin-testing does, instead of writing trace logs to
		// the test's stderr.
		err := tf6server.Serve(ProviderAddress, factory, tf6server.WithDebug(ctx, reattach, closed),
			tf6server.WithLoggingSink(t), tf6server.WithGoPluginLogger(hclog.NewNullLogger()))
		if err != nil {
			t.Errorf("serving the provider: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-closed
	})
	var cfg *plugin.ReattachConfig
	select {
	case cfg = <-reattach:
	case <-time.After(30 * time.Second):
		t.Fatal("the provider server did not start")
	}
	encoded, err := json.Marshal(map[string]any{ProviderAddress: map[string]any{
		"Protocol": cfg.Protocol, "ProtocolVersion": cfg.ProtocolVersion, "Pid": cfg.Pid, "Test": true,
		"Addr": map[string]string{"Network": cfg.Addr.Network(), "String": cfg.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(encoded)
}

// Write replaces the configuration.
func (tf *Terraform) Write(config string) {
	tf.t.Helper()
	header := "terraform {\n  required_providers {\n    gpu = { source = \"gpuform/gpu\" }\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(tf.Dir, "main.tf"), []byte(header+config), 0o600); err != nil {
		tf.t.Fatal(err)
	}
}

// Command returns a terraform command, to start and interrupt.
func (tf *Terraform) Command(args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(tf.bin, args...)
	cmd.Dir = tf.Dir
	cmd.Env = tf.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// Run runs terraform to completion and returns its output, flattened:
// without colours, diagnostic box borders and line wrapping, so tests can
// match messages as the provider wrote them.
func (tf *Terraform) Run(args ...string) (string, error) {
	cmd, out := tf.Command(append(args, "-no-color")...)
	err := cmd.Run()
	return Flatten(out.String()), err
}

var boxBorder = regexp.MustCompile(`(?m)^\s*[│╷╵]\s?`)

// Flatten removes Terraform's diagnostic borders and joins wrapped lines.
func Flatten(out string) string {
	return strings.Join(strings.Fields(boxBorder.ReplaceAllString(out, "")), " ")
}

// ExitCode runs terraform and returns its exit code (plan
// -detailed-exitcode: 0 no changes, 2 changes).
func (tf *Terraform) ExitCode(args ...string) (int, string) {
	out, err := tf.Run(args...)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out
	case errors.As(err, &exit):
		return exit.ExitCode(), out
	default:
		tf.t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
		return -1, out
	}
}

// StateResource is one resource instance of `terraform show -json`.
type StateResource struct {
	Address string         `json:"address"`
	Type    string         `json:"type"`
	Tainted bool           `json:"tainted"`
	Values  map[string]any `json:"values"`
}

// State reads the state as it is, without refreshing it.
func (tf *Terraform) State() []StateResource {
	tf.t.Helper()
	cmd, combined := tf.Command("show", "-json")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout // warnings go to stderr, the JSON to stdout
	if err := cmd.Run(); err != nil {
		tf.t.Fatalf("terraform show: %v\n%s", err, combined)
	}
	out := stdout.String()
	var doc struct {
		Values struct {
			RootModule struct {
				Resources []StateResource `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		tf.t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	return doc.Values.RootModule.Resources
}
