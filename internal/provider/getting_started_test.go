package provider

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The getting-started block a user copies exists three times: in
// examples/provider/provider.tf, at the top of the README and at the top of
// docs/index.md (generated from the example). The acceptance test below
// applies the README's copy; this test keeps the three the same.

var fencedTerraform = regexp.MustCompile("(?s)```(?:terraform|hcl)\n(.*?)```")

// gettingStartedBlock is the first fenced Terraform block of the file's
// "## Getting started" section.
func gettingStartedBlock(t *testing.T, file string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(src), "\n## Getting started\n")
	if !ok {
		t.Fatalf("%s has no \"## Getting started\" section", file)
	}
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	m := fencedTerraform.FindStringSubmatch(section)
	if m == nil {
		t.Fatalf("%s: the Getting started section has no ```terraform block", file)
	}
	return strings.TrimSpace(m[1])
}

func TestGettingStarted_docsAgree(t *testing.T) {
	root := acctest.RepoRoot(t)
	example, err := os.ReadFile(filepath.Join(root, "examples", "provider", "provider.tf"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(example))
	for _, f := range []string{"README.md", filepath.Join("docs", "index.md")} {
		if got := gettingStartedBlock(t, filepath.Join(root, f)); got != want {
			t.Errorf("%s's getting-started block differs from examples/provider/provider.tf:\n%s", f, got)
		}
	}
	for _, want := range []string{`required_version = ">= 1.8"`, `source  = "gpuform/gpu"`, `version = "~> 0.1"`} {
		if !strings.Contains(string(example), want) {
			t.Errorf("the getting-started block lacks %s", want)
		}
	}
}

// The README's getting-started block, applied as a user would: the provider
// built from this repository with the version of the CHANGELOG's first
// heading, installed by `terraform init` from a filesystem mirror (the
// registry's layout, no network; under the host the CLI gives a source
// without one, so OpenTofu installs it as Terraform does), ~/.kube/config the
// test cluster's kubeconfig. Only the namespace is changed, to the test's own. The pool's
// workload lands on the local cluster's GKE A100 nodes, a second plan is
// empty, and destroy removes the Deployment. With a Terraform older than
// the block's required_version, init must refuse it.
func TestAccGettingStarted_appliesAsAUser(t *testing.T) {
	kubeconfig := acctest.Kubeconfig(t)
	acctest.PreCheck(t)
	root := acctest.RepoRoot(t)
	ns := acctest.Namespace(t)

	block := gettingStartedBlock(t, filepath.Join(root, "README.md"))
	const defaultNS = `namespace = "default"`
	if n := strings.Count(block, defaultNS); n != 1 {
		t.Fatalf("the getting-started block has %d `%s`, want 1 (the test puts its own namespace there)", n, defaultNS)
	}
	block = strings.Replace(block, defaultNS, "namespace = \""+ns+"\"", 1)

	cli := acctest.TestCLI(t)
	dir, home, mirror := t.TempDir(), t.TempDir(), t.TempDir()
	release := changelogVersion(t, root)
	platform := runtime.GOOS + "_" + runtime.GOARCH
	bin := filepath.Join(mirror, cli.ProviderAddress(), release, platform, "terraform-provider-gpu_v"+release)
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version="+release, "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	writeFile(t, filepath.Join(home, ".kube", "config"), readFile(t, kubeconfig))
	cliConfig := filepath.Join(home, "terraformrc")
	writeFile(t, cliConfig, "provider_installation {\n  filesystem_mirror {\n    path = \""+mirror+"\"\n  }\n}\n")
	writeFile(t, filepath.Join(dir, "main.tf"), block+"\n")

	tf := userTerraform{t: t, bin: cli.Path, dir: dir, env: userEnv(home, cliConfig)}
	if tf.older("1.8.0") {
		out, err := tf.run("init", "-input=false", "-no-color")
		if err == nil || !strings.Contains(out, "Unsupported Terraform Core version") {
			t.Fatalf("init with a Terraform older than 1.8 must refuse the block's required_version: %v\n%s", err, out)
		}
		return
	}
	out, err := tf.run("init", "-input=false", "-no-color")
	if err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}
	if !strings.Contains(out, acctest.ProviderSource+" v"+release) {
		t.Errorf("init did not install gpuform/gpu v%s from the mirror:\n%s", release, out)
	}
	applied := false
	t.Cleanup(func() {
		if applied {
			if out, err := tf.run("destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
				t.Errorf("terraform destroy: %v\n%s", err, out)
			}
		}
	})
	applied = true
	if out, err := tf.run("apply", "-auto-approve", "-input=false", "-no-color"); err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
	pods, err := acctest.Client(t).CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) == 0 {
		t.Fatal("the getting-started workload has no pods")
	}
	for _, p := range pods.Items {
		t.Logf("pod %s runs on %s", p.Name, p.Spec.NodeName)
		if !regexp.MustCompile(`^gke-a100-\d+$`).MatchString(p.Spec.NodeName) {
			t.Errorf("pod %s is on %q, want a node of the GKE A100 pool", p.Name, p.Spec.NodeName)
		}
	}
	if out, err := tf.run("plan", "-detailed-exitcode", "-input=false", "-no-color"); err != nil {
		t.Errorf("the plan after apply is not empty (or failed): %v\n%s", err, out)
	}
	applied = false
	if out, err := tf.run("destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
		t.Fatalf("terraform destroy: %v\n%s", err, out)
	}
	_, err = acctest.Client(t).AppsV1().Deployments(ns).Get(context.Background(), "llm-inference", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("after destroy the Deployment llm-inference: %v, want not found", err)
	}
}

// changelogVersion is the version of the CHANGELOG's first heading, e.g.
// 0.1.0 of "## 0.1.0 (Unreleased)": the release the block's constraint
// must accept.
func changelogVersion(t *testing.T, root string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^## (\d+\.\d+\.\d+)\b`).FindStringSubmatch(readFile(t, filepath.Join(root, "CHANGELOG.md")))
	if m == nil {
		t.Fatal("CHANGELOG.md has no version heading (## X.Y.Z ...)")
	}
	return m[1]
}

// userEnv is this process's environment as a user's shell would have it:
// none of the cluster settings the provider reads from the environment, no
// reattached provider or plugin cache of the test harness, HOME holding the
// kubeconfig and the CLI config installing from the mirror.
func userEnv(home, cliConfig string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "KUBE_"), name == "KUBECONFIG", name == "HOME",
			strings.HasPrefix(name, "TOFU_"),
			strings.HasPrefix(name, "TF_") && name != "TF_LOG" && name != "TF_LOG_PATH":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "TF_CLI_CONFIG_FILE="+cliConfig, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
}

// userTerraform runs the CLI the tests use (Terraform or OpenTofu) in dir,
// as a user.
type userTerraform struct {
	t   *testing.T
	bin string
	dir string
	env []string
}

func (u userTerraform) run(args ...string) (string, error) {
	cmd := exec.Command(u.bin, args...)
	cmd.Dir, cmd.Env = u.dir, u.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// older reports whether the CLI is older than minimum.
func (u userTerraform) older(minimum string) bool {
	u.t.Helper()
	out, err := u.run("version", "-json")
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err == nil {
		err = json.Unmarshal([]byte(out), &v)
	}
	if err == nil && v.Version == "" {
		err = errors.New("no terraform_version")
	}
	if err != nil {
		u.t.Fatalf("terraform version -json: %v\n%s", err, out)
	}
	return version.Must(version.NewVersion(v.Version)).LessThan(version.Must(version.NewVersion(minimum)))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
