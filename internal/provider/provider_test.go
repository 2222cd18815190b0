package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/protocol"
)

// testAccProtoV6ProviderFactories runs the provider in the test process.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"gpu": func() (tfprotov6.ProviderServer, error) {
		return protocol.Shadowed(protocol.NewServer(New("test"))()), nil
	},
}

// clearClusterEnv unsets the variables the provider reads, for tests that
// must not pick up a developer's own cluster.
func clearClusterEnv(t testing.TB) {
	t.Helper()
	acctest.ClearClusterEnv(t)
}

// acctest.ClusterEnv, which tests of every package clear, lists every
// variable the provider block reads.
func TestClusterEnvIsTheProviders(t *testing.T) {
	want := []string{envHost, envToken, envCACert, envClientCert, envClientKey, envInsecure,
		envConfigPath, envConfigPaths, envContext, envKubeconfig}
	if !slices.Equal(acctest.ClusterEnv, want) {
		t.Errorf("acctest.ClusterEnv = %v, want %v", acctest.ClusterEnv, want)
	}
}

// smallWorkload is a one-GPU Deployment on the GKE A100 fixture pool.
func smallWorkload(namespace string, extra string) string {
	return fmt.Sprintf(`
resource "gpu_workload" "test" {
  name      = "probe"
  namespace = %q
  cloud     = "gke"
  image     = "registry.invalid/cuda-probe:1"
  gpu {
    count       = 1
    accelerator = "a100-40gb"
  }
  %s
}
`, namespace, extra)
}

func TestAccProvider_kubeconfigPathAndContext(t *testing.T) {
	ns := acctest.Namespace(t)
	kubeconfig := acctest.Kubeconfig(t)
	context := currentContext(t, kubeconfig)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDeploymentGone(t, ns, "probe"),
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf("provider \"gpu\" {\n  config_path = %q\n  config_context = %q\n}\n", kubeconfig, context) +
				smallWorkload(ns, ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrSet("gpu_workload.test", "uid"),
				resource.TestCheckResourceAttr("gpu_workload.test", "id", ns+"/probe"),
				resource.TestMatchResourceAttr("gpu_workload.test", "scheduled_nodes.0", regexp.MustCompile(`^gke-a100-\d+$`)),
			),
		}},
	})
}

func TestAccProvider_hostTokenCA(t *testing.T) {
	ns := acctest.Namespace(t)
	host, ca := clusterEndpoint(t, acctest.Kubeconfig(t))
	token := namespaceAdminToken(t, ns)
	clearClusterEnv(t)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDeploymentGone(t, ns, "probe"),
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf("provider \"gpu\" {\n  host = %q\n  token = %q\n  cluster_ca_certificate = %q\n}\n", host, token, ca) +
				smallWorkload(ns, ""),
			Check: resource.TestCheckResourceAttrSet("gpu_workload.test", "uid"),
		}},
	})
}

func TestAccProvider_wrongContext(t *testing.T) {
	ns := acctest.Namespace(t)
	kubeconfig := acctest.Kubeconfig(t)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf("provider \"gpu\" {\n  config_path = %q\n  config_context = \"no-such-context\"\n}\n", kubeconfig) +
				smallWorkload(ns, ""),
			// Reported while planning, before anything is created.
			ExpectError: regexp.MustCompile(`pre-apply plan[\s\S]*The provider cannot reach a cluster[\s\S]*` +
				`context "no-such-context"\s+does not exist in kubeconfig[\s\S]*available\s+contexts:`),
		}},
	})
}

// With no cluster configured, a plan works (nothing is contacted) and the
// apply fails naming the attributes to set.
func TestAccProvider_noConfiguration(t *testing.T) {
	clearClusterEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:             smallWorkload("default", ""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config:      smallWorkload("default", ""),
				ExpectError: regexp.MustCompile(`no Kubernetes cluster is configured[\s\S]*config_path[\s\S]*host`),
			},
		},
	})
}

func currentContext(t *testing.T, kubeconfig string) string {
	t.Helper()
	raw, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatalf("reading %s: %v", kubeconfig, err)
	}
	if raw.CurrentContext == "" {
		t.Fatalf("%s has no current context", kubeconfig)
	}
	return raw.CurrentContext
}

// clusterEndpoint returns the server URL and CA bundle of the kubeconfig's
// current context.
func clusterEndpoint(t *testing.T, kubeconfig string) (string, string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("reading %s: %v", kubeconfig, err)
	}
	ca := cfg.CAData
	if len(ca) == 0 && cfg.CAFile != "" {
		ca, err = os.ReadFile(cfg.CAFile)
		if err != nil {
			t.Fatalf("reading CA file: %v", err)
		}
	}
	if len(ca) == 0 {
		t.Fatalf("the kubeconfig's cluster has no CA bundle; host/token/CA cannot be tested against it")
	}
	return cfg.Host, string(ca)
}

// namespaceAdminToken creates a ServiceAccount bound to the built-in admin
// role in the namespace and returns a short-lived token for it. It works on
// any cluster (the local one, kind), unlike a static token file.
func namespaceAdminToken(t *testing.T, ns string) string {
	t.Helper()
	cs := acctest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sa, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "terraform"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating ServiceAccount: %v", err)
	}
	_, err = cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "terraform-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa.Name, Namespace: ns}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating RoleBinding: %v", err)
	}
	expiry := int64(3600)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token: %v", err)
	}
	return tr.Status.Token
}

// checkDeploymentGone reads the cluster through client-go: after destroy the
// Deployment and its pods must be gone.
func checkDeploymentGone(t *testing.T, ns, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		cs := acctest.Client(t)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			return fmt.Errorf("deployment %s/%s still exists after destroy", ns, name)
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + name})
		if err != nil {
			return err
		}
		if len(pods.Items) > 0 {
			return fmt.Errorf("%d pod(s) of %s/%s still exist after destroy", len(pods.Items), ns, name)
		}
		return nil
	}
}

// planFails plans config with no cluster and expects want in the error.
func planFails(t *testing.T, config string, want *regexp.Regexp) {
	t.Helper()
	acctest.PlanFails(t, testAccProtoV6ProviderFactories, config, want)
}
