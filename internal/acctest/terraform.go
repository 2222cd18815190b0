package acctest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// Terraform drives the terraform CLI (or OpenTofu's, which takes the same
// commands) through HashiCorp's terraform-exec, in a directory of its own,
// against the provider served from the test process (reattach mode), for
// what terraform-plugin-testing cannot do: interrupting a running apply, and
// reading the state a failed apply left behind.
type Terraform struct {
	t        testing.TB
	CLI      CLI
	Dir      string
	exec     *tfexec.Terraform
	reattach *tfexec.ReattachOption
	out      *lockedBuffer
}

// NewTerraform serves the provider and prepares a working directory with
// the given configuration (a required_providers block is added).
func NewTerraform(t *testing.T, server func() (tfprotov6.ProviderServer, error), config string) *Terraform {
	t.Helper()
	Kubeconfig(t) // acceptance only
	cli := TestCLI(t)
	dir := t.TempDir()
	ex, err := tfexec.NewTerraform(dir, cli.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ex.SetEnv(map[string]string{"CHECKPOINT_DISABLE": "1"}); err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	ex.SetStdout(out)
	ex.SetStderr(out)
	tf := &Terraform{t: t, CLI: cli, Dir: dir, exec: ex, out: out,
		reattach: tfexec.Reattach(serveForReattach(t, server, cli.ProviderAddress()))}
	tf.Write(config)
	if _, err := tf.run(func(ctx context.Context) error { return ex.Init(ctx, tf.reattach) }); err != nil {
		t.Fatalf("terraform init: %v", err)
	}
	return tf
}

// run runs one terraform command and returns its output, flattened.
func (tf *Terraform) run(cmd func(ctx context.Context) error) (string, error) {
	tf.out.Reset()
	err := cmd(context.Background())
	return Flatten(tf.out.String()), err
}

// Apply runs `terraform apply -auto-approve`.
func (tf *Terraform) Apply() (string, error) {
	return tf.run(func(ctx context.Context) error { return tf.exec.Apply(ctx, tf.reattach) })
}

// Destroy runs `terraform destroy -auto-approve`.
func (tf *Terraform) Destroy() (string, error) {
	return tf.run(func(ctx context.Context) error { return tf.exec.Destroy(ctx, tf.reattach) })
}

// Import runs `terraform import address id`.
func (tf *Terraform) Import(address, id string) (string, error) {
	return tf.run(func(ctx context.Context) error { return tf.exec.Import(ctx, address, id, tf.reattach) })
}

// StateRm runs `terraform state rm address`.
func (tf *Terraform) StateRm(address string) (string, error) {
	return tf.run(func(ctx context.Context) error { return tf.exec.StateRm(ctx, address) })
}

// PlanHasChanges runs `terraform plan -detailed-exitcode`.
func (tf *Terraform) PlanHasChanges() (bool, string) {
	tf.t.Helper()
	var changes bool
	out, err := tf.run(func(ctx context.Context) error {
		var err error
		changes, err = tf.exec.Plan(ctx, tf.reattach)
		return err
	})
	if err != nil {
		tf.t.Fatalf("terraform plan: %v\n%s", err, out)
	}
	return changes, out
}

// SkipBelow skips the test when the CLI is older than the version of its
// product the test needs (SkipBelowCLI).
func (tf *Terraform) SkipBelow(terraform, openTofu *version.Version, why string) {
	tf.t.Helper()
	SkipBelowCLI(tf.t, tf.CLI, terraform, openTofu, why)
}

// PlanGenerateConfig runs `terraform plan -generate-config-out=file`, which
// writes configuration for the resources the import blocks import, and
// returns the plan's output, flattened.
func (tf *Terraform) PlanGenerateConfig(file string) (string, error) {
	return tf.run(func(ctx context.Context) error {
		_, err := tf.exec.Plan(ctx, tf.reattach, tfexec.GenerateConfigOut(filepath.Join(tf.Dir, file)))
		return err
	})
}

// ApplyInBackground starts an apply. interrupt stops it as Ctrl-C does
// (terraform-exec sends os.Interrupt when the context ends); wait returns
// the apply's output, flattened, and its error.
func (tf *Terraform) ApplyInBackground() (interrupt func(), wait func() (string, error)) {
	tf.out.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tf.exec.Apply(ctx, tf.reattach) }()
	return cancel, func() (string, error) {
		err := <-done
		cancel()
		return Flatten(tf.out.String()), err
	}
}

// serveForReattach starts the provider's gRPC server in this process and
// returns what points the CLI at it (TF_REATTACH_PROVIDERS), under address:
// the one the CLI resolves the configuration's source to.
func serveForReattach(t *testing.T, server func() (tfprotov6.ProviderServer, error), address string) tfexec.ReattachInfo {
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
		err := tf6server.Serve(address, factory, tf6server.WithDebug(ctx, reattach, closed),
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
	return tfexec.ReattachInfo{address: tfexec.ReattachConfig{
		Protocol: string(cfg.Protocol), ProtocolVersion: cfg.ProtocolVersion, Pid: cfg.Pid, Test: true,
		Addr: tfexec.ReattachConfigAddr{Network: cfg.Addr.Network(), String: cfg.Addr.String()},
	}}
}

// Write replaces the configuration.
func (tf *Terraform) Write(config string) {
	tf.t.Helper()
	header := "terraform {\n  required_providers {\n    gpu = { source = \"" + ProviderSource + "\" }\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(tf.Dir, "main.tf"), []byte(header+config), 0o600); err != nil {
		tf.t.Fatal(err)
	}
}

var boxBorder = regexp.MustCompile(`(?m)^\s*[│╷╵]\s?`)

// Flatten removes Terraform's diagnostic borders and joins wrapped lines.
func Flatten(out string) string {
	return strings.Join(strings.Fields(boxBorder.ReplaceAllString(out, "")), " ")
}

// StateResource is one resource instance of the state.
type StateResource struct {
	Address string
	Type    string
	Tainted bool
	Values  map[string]any
}

// State reads the state as it is, without refreshing it.
func (tf *Terraform) State() []StateResource {
	tf.t.Helper()
	state, err := tf.exec.Show(context.Background(), tf.reattach)
	if err != nil {
		tf.t.Fatalf("terraform show: %v\n%s", err, tf.out.String())
	}
	if state.Values == nil || state.Values.RootModule == nil {
		return nil
	}
	var out []StateResource
	for _, r := range state.Values.RootModule.Resources {
		out = append(out, StateResource{Address: r.Address, Type: r.Type, Tainted: r.Tainted, Values: r.AttributeValues})
	}
	return out
}

// lockedBuffer collects a command's stdout and stderr, which terraform-exec
// copies from two goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}
