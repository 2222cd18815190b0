package provider

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The provider runs as a ServiceAccount that holds exactly the permissions
// of examples/rbac (the RBAC guide): every resource and data source that
// talks to the cluster works with them, on every path an apply, refresh,
// import, failed wait and destroy takes.
func TestAccRBAC_leastPrivilegeServiceAccount(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	token := leastPrivilegeToken(t, ns, nil)
	host, ca := clusterEndpoint(t, acctest.Kubeconfig(t))
	prefix := "rbac-" + rand.String(6)
	acctest.CreateFakeNodes(t, prefix, 1, map[string]int64{"nvidia.com/gpu.shared": 4}, nil)
	clearClusterEnv(t)

	config := tokenProviderBlock(host, token, ca) + fmt.Sprintf(`
# A Deployment on the GKE A100 fixture pool; waiting for its pods to run
# watches them.
resource "gpu_workload" "gke" {
  name      = "gke-a100"
  namespace = %[1]q
  cloud     = "gke"
  image     = "registry.invalid/cuda:12"
  wait_for  = "scheduled"
  gpu {
    count       = 1
    accelerator = "a100-40gb"
  }
}

# A pool that labels and taints the test's node and writes its device plugin
# config entry, and a Job placed on it.
resource "gpu_node_pool_policy" "shared" {
  name          = %[2]q
  cloud         = "generic"
  accelerator   = "t4"
  gpus_per_node = 1
  sharing       = "time-slicing"
  replicas      = 4
  labels        = { "gpuform.io/test-run" = %[2]q }
  manage_nodes {
    selector = "%[3]s=%[2]s"
  }
  device_plugin_config {
    namespace = %[1]q
    name      = "device-plugin-config"
  }
}

# A Kueue queue of the pool's shared slots, and the Job sent to it.
resource "gpu_queue" "team" {
  name       = %[2]q
  namespaces = [%[1]q]
  flavor {
    node_pool    = gpu_node_pool_policy.shared.ref
    shared_slots = 4
  }
}

resource "gpu_workload" "batch" {
  name      = "batch"
  namespace = %[1]q
  kind      = "job"
  node_pool = gpu_node_pool_policy.shared.ref
  queue     = gpu_queue.team.ref
  image     = "registry.invalid/cuda:12"
  gpu {
    count = 1
  }
}

# A created model cache claim and a DRA claim template (nothing serves them
# here, so the pods are not waited for).
resource "gpu_workload" "claims" {
  name      = "claims"
  namespace = %[1]q
  cloud     = "generic"
  image     = "registry.invalid/cuda:12"
  wait_for  = "none"
  gpu {
    count       = 1
    accelerator = "h100-80gb"
    dra {}
  }
  model_cache {
    size = "1Gi"
  }
}

data "gpu_cluster_capacity" "pool" {
  selector   = "%[3]s=%[2]s"
  depends_on = [gpu_workload.batch]
}

data "gpu_queue_usage" "team" {
  name       = gpu_queue.team.name
  depends_on = [gpu_workload.batch]
}
`, ns, prefix, acctest.FakeNodeLabel)

	// A workload no fixture pool can take: the failed wait explains which
	// pools exist and why they do not match, which reads nodes and pods.
	unschedulable := config + fmt.Sprintf(`
resource "gpu_workload" "nowhere" {
  name      = "nowhere"
  namespace = %q
  cloud     = "gke"
  image     = "registry.invalid/cuda:12"
  gpu {
    count       = 1
    accelerator = "t4" # no GKE fixture pool has T4s
  }
  timeouts {
    create = "6s"
  }
}
`, ns)

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDeploymentGone(t, ns, "gke-a100"),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestMatchResourceAttr("gpu_workload.gke", "scheduled_nodes.0", regexp.MustCompile(`^gke-a100-\d$`)),
					resource.TestCheckResourceAttr("gpu_workload.batch", "scheduled_nodes.0", prefix+"-0"),
					resource.TestCheckResourceAttr("gpu_workload.batch", "resource_name", "nvidia.com/gpu.shared"),
					resource.TestCheckResourceAttrSet("gpu_workload.claims", "uid"),
					resource.TestCheckResourceAttr("gpu_node_pool_policy.shared", "managed_nodes.#", "1"),
					resource.TestCheckResourceAttr("gpu_node_pool_policy.shared", "drift.#", "0"),
					checkConfigMapKey(t, ns, "device-plugin-config", "gpu_node_pool_policy.shared",
						regexp.MustCompile(`(?s)timeSlicing:.*replicas: 4`)),
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.pool", "pools.#", "1"),
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.pool", "pools.0.resources.0.name", "nvidia.com/gpu.shared"),
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.pool", "pools.0.resources.0.requested", "0"),
					resource.TestCheckResourceAttr("data.gpu_queue_usage.team", "queues.0.resources.0.quota", "4"),
				),
			},
			{
				// Import looks for a Deployment, then a Job, of that name.
				ResourceName:      "gpu_workload.batch",
				ImportState:       true,
				ImportStateId:     ns + "/batch",
				ImportStateVerify: true,
				Config:            config,
			},
			{
				Config: unschedulable,
				ExpectError: regexp.MustCompile(`(?s)did not become ready.*Unschedulable.*GPU pools in the cluster:\s+\S+/\S+: ` +
					`.*This workload asked for:`),
			},
		},
	})
}

// Without one verb of the guide's Role the apply fails with a message that
// names the verb, the resource and the namespace, so the fix is obvious.
func TestAccRBAC_missingPermissionIsNamed(t *testing.T) {
	ns := acctest.Namespace(t)
	token := leastPrivilegeToken(t, ns, func(rule *rbacv1.PolicyRule) {
		if slices.Contains(rule.APIGroups, "apps") && slices.Contains(rule.Resources, "deployments") {
			rule.Verbs = slices.DeleteFunc(rule.Verbs, func(v string) bool { return v == "patch" })
		}
	})
	host, ca := clusterEndpoint(t, acctest.Kubeconfig(t))
	clearClusterEnv(t)
	q := regexp.QuoteMeta
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: tokenProviderBlock(host, token, ca) + smallWorkload(ns, ""),
			ExpectError: regexp.MustCompile(`(?s)apply\s+Deployment\s+` + q(ns+"/probe") + `\s+was\s+forbidden.*` +
				`cannot\s+patch\s+resource\s+"deployments"\s+in\s+API\s+group\s+"apps"\s+in\s+the\s+namespace\s+"` + q(ns) + `".*` +
				`Grant\s+the\s+provider's\s+identity\s+this\s+verb`),
		}},
	})
}

// An identity from before the shared watch (no list on the workload's
// kinds) keeps working: reads and waits go to the server object by object.
func TestAccRBAC_withoutListReadsDirectly(t *testing.T) {
	ns := acctest.Namespace(t)
	token := leastPrivilegeToken(t, ns, func(rule *rbacv1.PolicyRule) {
		// Kueue's Workloads are read by list only, never watched or cached.
		if !slices.Contains(rule.Resources, "pods") && !slices.Contains(rule.APIGroups, "kueue.x-k8s.io") {
			rule.Verbs = slices.DeleteFunc(rule.Verbs, func(v string) bool { return v == "list" })
		}
	})
	host, ca := clusterEndpoint(t, acctest.Kubeconfig(t))
	clearClusterEnv(t)
	config := tokenProviderBlock(host, token, ca) + smallWorkload(ns, "")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDeploymentGone(t, ns, "probe"),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  resource.TestMatchResourceAttr("gpu_workload.test", "scheduled_nodes.0", regexp.MustCompile(`^gke-a100-\d$`)),
			},
			{Config: config, PlanOnly: true},
		},
	})
}

func tokenProviderBlock(host, token, ca string) string {
	return fmt.Sprintf("provider \"gpu\" {\n  host                   = %q\n  token                  = %q\n  cluster_ca_certificate = %q\n}\n",
		host, token, ca)
}

// leastPrivilegeToken creates a ServiceAccount in ns holding exactly the
// Roles of examples/rbac/role.yaml (all bound in ns, which stands for both
// the workload and the device plugin ConfigMap namespace) and the
// ClusterRole of examples/rbac/clusterrole.yaml (renamed per test), and
// returns a short-lived token for it. editRule, when set, changes the
// Roles' rules first.
func leastPrivilegeToken(t *testing.T, ns string, editRule func(*rbacv1.PolicyRule)) string {
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
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: ns}}

	for _, obj := range rbacExample(t, "role.yaml") {
		switch o := obj.(type) {
		case *rbacv1.Role:
			o.Namespace = ns
			if editRule != nil {
				for i := range o.Rules {
					editRule(&o.Rules[i])
				}
			}
			_, err = cs.RbacV1().Roles(ns).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			o.Namespace = ns
			o.Subjects = subjects
			_, err = cs.RbacV1().RoleBindings(ns).Create(ctx, o, metav1.CreateOptions{})
		default:
			t.Fatalf("examples/rbac/role.yaml: unexpected %T", obj)
		}
		if err != nil {
			t.Fatalf("creating %T from examples/rbac/role.yaml: %v", obj, err)
		}
	}

	// Cluster-scoped objects get names of their own, so parallel tests and
	// a real installation on the same cluster never share them.
	rename := func(name string) string { return name + "-" + ns }
	for _, obj := range rbacExample(t, "clusterrole.yaml") {
		var name string
		var del func(context.Context, string, metav1.DeleteOptions) error
		switch o := obj.(type) {
		case *rbacv1.ClusterRole:
			o.Name = rename(o.Name)
			name, del = o.Name, cs.RbacV1().ClusterRoles().Delete
			_, err = cs.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRoleBinding:
			o.Name = rename(o.Name)
			o.RoleRef.Name = rename(o.RoleRef.Name)
			o.Subjects = subjects
			name, del = o.Name, cs.RbacV1().ClusterRoleBindings().Delete
			_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		default:
			t.Fatalf("examples/rbac/clusterrole.yaml: unexpected %T", obj)
		}
		if err != nil {
			t.Fatalf("creating %T from examples/rbac/clusterrole.yaml: %v", obj, err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := del(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting %s: %v", name, err)
			}
		})
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

// rbacExample decodes the documents of a file in examples/rbac into typed
// objects.
func rbacExample(t *testing.T, file string) []runtime.Object {
	t.Helper()
	path := filepath.Join(acctest.RepoRoot(t), "examples", "rbac", file)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var out []runtime.Object
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("decoding a document of %s: %v", path, err)
		}
		out = append(out, obj)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no objects", path)
	}
	return out
}
