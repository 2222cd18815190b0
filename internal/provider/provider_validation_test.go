package provider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// providerRule is one invalid provider block. env is set for the case
// (after the cluster variables are cleared).
type providerRule struct {
	block string
	env   map[string]string
	want  *regexp.Regexp
}

// Plan-time validation of the provider block, with no cluster: each rule
// fails the plan on the attribute that caused it (Terraform quotes its
// source line) and says what is allowed. Without these, most of them would
// pass the plan and fail the apply in client-go, after other resources
// have been created.
func TestProvider_planTimeValidation(t *testing.T) {
	cert, key := testCertificate(t)
	cases := map[string]providerRule{
		"unknown default_cloud": {block: `default_cloud = "gcp"`,
			want: acctest.Phrases(`Invalid Attribute Value Match`, `default_cloud = "gcp"`, `must be one of`, `"gke-autopilot"`, `Did you mean "gke"?`)},
		"config_path and config_paths": {block: "config_path = \"~/.kube/config\"\n  config_paths = [\"~/.kube/other\"]",
			want: acctest.Phrases(`Invalid Attribute Combination`, `config_path = "~/.kube/config"`, `"config_paths" cannot be specified when "config_path" is specified`)},
		"empty config_paths": {block: `config_paths = []`,
			want: acctest.Phrases(`Invalid Attribute Value`, `config_paths = []`, `must contain at least 1 elements`)},
		"empty path in config_paths": {block: `config_paths = ["~/.kube/config", ""]`,
			want: acctest.Phrases(`Invalid Attribute Value Length`, `config_paths = ["~/.kube/config", ""]`, `config_paths[1] string length must be at least 1`)},
		"null in config_paths": {block: `config_paths = ["~/.kube/config", null]`,
			want: acctest.Phrases(`Null element`, `config_paths = ["~/.kube/config", null]`, `config_paths[1] is null`)},
		"null exec argument": {block: "host = \"https://203.0.113.10\"\n  exec {\n    command = \"aws\"\n    args = [\"eks\", null]\n  }",
			want: acctest.Phrases(`Null element`, `args = ["eks", null]`, `exec.args[1] is null`)},
		"client_certificate without client_key": {block: fmt.Sprintf("host = \"https://203.0.113.10\"\n  client_certificate = %q", cert),
			want: acctest.Phrases(`Invalid Attribute Combination`, `client_certificate = "-----BEGIN CERTIFICATE-----`,
				`"client_key" must be specified when "client_certificate" is specified`)},
		"client_key without client_certificate": {block: fmt.Sprintf("host = \"https://203.0.113.10\"\n  client_key = %q", key),
			want: acctest.Phrases(`Invalid Attribute Combination`, `client_key = "-----BEGIN EC PRIVATE KEY-----`,
				`"client_certificate" must be specified when "client_key" is specified`)},
		"CA that is not PEM": {block: "host = \"https://203.0.113.10\"\n  cluster_ca_certificate = \"LS0tLS1CRUdJTi...\"",
			want: acctest.Phrases(`Invalid cluster_ca_certificate`, `cluster_ca_certificate = "LS0tLS1CRUdJTi..."`,
				`no PEM CERTIFICATE block found`, `Allowed: PEM text with a CERTIFICATE block`, `base64decode()`)},
		"CA block that is not a certificate": {block: "host = \"https://203.0.113.10\"\n  cluster_ca_certificate = \"-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----\\n\"",
			want: acctest.Phrases(`Invalid cluster_ca_certificate`, `a CERTIFICATE block does not parse`, `Allowed: PEM text with a CERTIFICATE block`)},
		"client key that is not PEM": {block: fmt.Sprintf("host = \"https://203.0.113.10\"\n  client_certificate = %q\n  client_key = \"secret\"", cert),
			want: acctest.Phrases(`Invalid client_key`, `client_key = "secret"`, `no PEM PRIVATE KEY or RSA PRIVATE KEY or EC PRIVATE KEY block found`)},
		"host with another scheme": {block: `host = "ftp://203.0.113.10"`,
			want: acctest.Phrases(`Invalid host`, `host = "ftp://203.0.113.10"`, `scheme "ftp" is not http or https`, `Allowed: the API server's URL`)},
		"host without a host name": {block: `host = "https://"`,
			want: acctest.Phrases(`Invalid host`, `host = "https://"`, `no host name`, `Allowed: the API server's URL`)},
		"insecure with a CA": {block: fmt.Sprintf("host = \"https://203.0.113.10\"\n  insecure = true\n  cluster_ca_certificate = %q", cert),
			want: acctest.Phrases(`insecure together with cluster_ca_certificate`, `insecure = true`, `Allowed: keep cluster_ca_certificate and remove insecure`)},
		"exec without command": {block: "host = \"https://203.0.113.10\"\n  exec {\n    args = [\"eks\", \"get-token\"]\n  }",
			want: acctest.Phrases(`Missing exec command`, `exec {`, `Allowed: a command such as "aws"`)},
		"exec with an unknown api_version": {block: "host = \"https://203.0.113.10\"\n  exec {\n    api_version = \"v1\"\n    command = \"aws\"\n  }",
			want: acctest.Phrases(`Invalid Attribute Value Match`, `api_version = "v1"`, `must be one of`, `"client.authentication.k8s.io/v1beta1"`)},
		"exec with a token": {block: "host = \"https://203.0.113.10\"\n  token = \"abc\"\n  exec {\n    command = \"aws\"\n  }",
			want: acctest.Phrases(`token conflicts with exec`, `token = "abc"`, `never runs the exec plugin`, `Allowed: either the exec block or token`)},
		"exec with a client certificate": {block: fmt.Sprintf("host = \"https://203.0.113.10\"\n  client_certificate = %q\n  client_key = %q\n  exec {\n    command = \"aws\"\n  }", cert, key),
			want: acctest.Phrases(`client_certificate conflicts with exec`, `client_certificate = "-----BEGIN CERTIFICATE-----`,
				`Allowed: either the exec block or client_certificate`)},
		"empty field_manager": {block: `field_manager = ""`,
			want: acctest.Phrases(`Invalid Attribute Value Length`, `field_manager = ""`, `length must be between 1 and 128`)},
		"KUBE_INSECURE that is not a bool": {env: map[string]string{envInsecure: "maybe"},
			want: acctest.Phrases(`Invalid KUBE_INSECURE`, `KUBE_INSECURE must be true or false, got "maybe"`)},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			clearClusterEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			planFails(t, fmt.Sprintf("provider \"gpu\" {\n  %s\n}\n\ndata \"gpu_accelerators\" \"all\" {}\n", c.block), c.want)
		})
	}
}

// testCertificate returns a self-signed certificate and its key, PEM.
func testCertificate(t *testing.T) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
}

// Connection settings that cannot work are reported at plan on a resource
// that would be applied to the cluster, before any other resource is
// created: a kubeconfig that cannot be read, a context it does not have.
// The same resource rendered only (apply = false) plans, and so does one
// with no cluster configured at all (planning offline).
func TestProvider_unusableConnectionFailsThePlan(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\ncontexts: [{name: a, context: {cluster: a, user: a}}]\n"+
		"clusters: [{name: a, cluster: {server: \"https://203.0.113.10\"}}]\nusers: [{name: a, user: {token: t}}]\ncurrent-context: a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	workload := func(extra string) string {
		return fmt.Sprintf(`
resource "gpu_workload" "w" {
  name      = "w"
  namespace = "default"
  cloud     = "gke"
  image     = "registry.example/app:1"
  %s
  gpu {
    count       = 1
    accelerator = "l4"
  }
}
`, extra)
	}
	cases := map[string]struct{ block, want string }{
		"kubeconfig that does not exist": {`config_path = "/nonexistent/kubeconfig"`, `"/nonexistent/kubeconfig" (from config_path`},
		"context the kubeconfig lacks":   {fmt.Sprintf("config_path = %q\n  config_context = \"b\"", kubeconfig), `context "b"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			clearClusterEnv(t)
			provider := fmt.Sprintf("provider \"gpu\" {\n  %s\n}\n", c.block)
			planFails(t, provider+workload(""), acctest.Phrases(`The provider cannot reach a cluster`, `This gpu_workload is applied to the cluster`,
				c.want, `Allowed: fix the provider "gpu" block`, `or set apply = false`))
			planSucceeds(t, provider+workload("apply = false"))
		})
	}
	t.Run("no cluster configured: plans offline", func(t *testing.T) {
		clearClusterEnv(t)
		planSucceeds(t, "provider \"gpu\" {}\n"+workload(""))
	})
}

// planSucceeds plans config with no cluster and expects a plan with
// changes and no error.
func planSucceeds(t *testing.T, config string) {
	t.Helper()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:             config,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}
