package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/helmchart/helminstall"
	"github.com/gpuform/terraform-provider-gpu/internal/testcharts"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// Numaflow Pipelines and MonoVertices from gpu_operator_values (manifest =
// true) are accepted by Numaflow's real CRDs under strict field validation:
// an unknown or misplaced field is refused, not pruned (issue #15).
func TestAccOperatorValues_numaflowAcceptedByRealCRDs(t *testing.T) {
	dir := filepath.Join(testcharts.Dir(t), "src", "numaflow-crds")
	ns := acctest.Namespace(t)
	dyn := dynamicClient(t)
	for _, f := range []string{"numaflow.numaproj.io_pipelines.yaml", "numaflow.numaproj.io_monovertices.yaml"} {
		installCRD(t, dyn, filepath.Join(dir, f))
	}
	// One Pipeline and one MonoVertex per cloud, each with a GPU that
	// cloud offers.
	config := ""
	var addresses []string
	for cloud, accelerator := range map[string]string{"gke": "l4", "gke-autopilot": "l4", "aks": "a100-80gb", "eks": "a10g",
		"eks-auto": "l40s", "karpenter": "l4", "generic": "h100-80gb"} {
		for _, kind := range []string{"pipeline", "monovertex"} {
			label := strings.ReplaceAll(cloud, "-", "_") + "_" + kind
			addresses = append(addresses, "gpu_operator_values."+label)
			config += fmt.Sprintf(`
resource "gpu_operator_values" %[1]q {
  target = "numaflow"
  cloud  = %[2]q
  numaflow {
    kind      = %[3]q
    name      = %[4]q
    namespace = %[5]q
    image     = "registry.example/ml/embed-udf:1.0"
    manifest  = true
    gpu {
      count       = 1
      accelerator = %[6]q
    }
  }
}
`, label, cloud, kind, strings.ReplaceAll(label, "_", "-"), ns, accelerator)
		}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(s *terraform.State) error {
				for _, address := range addresses {
					if err := createStrictly(dyn, s, address, ns); err != nil {
						return err
					}
				}
				return nil
			},
		}},
	})
}

// createStrictly creates the object (or every item of a List) a
// gpu_operator_values produced, with the API server refusing unknown fields.
func createStrictly(dyn dynamic.Interface, s *terraform.State, address, ns string) error {
	values, err := stateValues(s, address)
	if err != nil {
		return err
	}
	objects := []map[string]any{values}
	if values["kind"] == "List" {
		objects = nil
		items, _ := values["items"].([]any)
		for _, item := range items {
			if m, ok := item.(map[string]any); ok {
				objects = append(objects, m)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, o := range objects {
		u := &unstructured.Unstructured{Object: o}
		gvr := schema.GroupVersionResource{Group: u.GroupVersionKind().Group, Version: u.GroupVersionKind().Version,
			Resource: resourceOfKind(u.GetKind())}
		_, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
		if err != nil {
			return fmt.Errorf("%s: %s %s refused: %w", address, u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

// The real GPU Operator chart, installed with the values generated for a
// time-sliced pool: Helm installs its CRDs and ClusterPolicy; the
// ClusterPolicy also passes a strict (unknown fields refused) dry run, and
// every entry of the device plugin ConfigMap decodes strictly as the device
// plugin's config file (issue #15).
func TestAccOperatorValues_gpuOperatorInstalled(t *testing.T) {
	chartPath := testcharts.Chart(t, "gpu-operator")
	// Every cloud that runs the GPU Operator (GKE Autopilot refuses it).
	// Where the operator shares and partitions GPUs, a time-sliced and a MIG
	// pool each get a device plugin config; GKE shares and partitions
	// natively and EKS Auto Mode not at all, so there the values carry no
	// pools.
	for cloud, pools := range map[string][2]string{
		"generic":   {"t4", "a100-40gb"},
		"aks":       {"t4", "a100-80gb"},
		"eks":       {"t4", "a100-40gb"},
		"karpenter": {"l4", "a100-40gb"},
		"gke":       {},
		"eks-auto":  {},
	} {
		t.Run(cloud, func(t *testing.T) {
			installGPUOperator(t, chartPath, cloud, pools[0], pools[1])
		})
	}
}

// gpuOperatorConfig is the operator's values resource, with a shared and a
// MIG pool when sharedModel is set.
func gpuOperatorConfig(cloud, sharedModel, migModel string) string {
	if sharedModel == "" {
		return fmt.Sprintf(`
resource "gpu_operator_values" "op" {
  target = "gpu-operator"
  cloud  = %q
  gpu_operator {}
}
`, cloud)
	}
	return fmt.Sprintf(`
resource "gpu_node_pool_policy" "shared" {
  name          = "shared"
  cloud         = %[1]q
  accelerator   = %[2]q
  gpus_per_node = 1
  sharing       = "time-slicing"
  replicas      = 4
}

resource "gpu_node_pool_policy" "mig" {
  name          = "mig"
  cloud         = %[1]q
  accelerator   = %[3]q
  gpus_per_node = 8
  partition     = "all-balanced"
  mig_strategy  = "mixed"
}

resource "gpu_operator_values" "op" {
  target = "gpu-operator"
  cloud  = %[1]q
  gpu_operator {
    mig_strategy = "mixed"
    node_pools   = [gpu_node_pool_policy.shared.ref, gpu_node_pool_policy.mig.ref]
  }
}
`, cloud, sharedModel, migModel)
}

func installGPUOperator(t *testing.T, chartPath, cloud, sharedModel, migModel string) {
	ns, kubeconfig, release := helmRelease(t, "gpu-operator-"+cloud)
	config := gpuOperatorConfig(cloud, sharedModel, migModel)
	// One cloud at a time: the chart's ClusterRole and ClusterPolicy have
	// fixed names, and each subtest uninstalls its release when it ends.
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(s *terraform.State) error {
				values, err := stateValues(s, "gpu_operator_values.op")
				if err != nil {
					return err
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				rel, err := helminstall.UpgradeInstall(ctx, kubeconfig, chartPath, release, ns, values)
				if err != nil {
					return err
				}
				if err := clusterPolicyStrict(ctx, t, rel.Manifest); err != nil {
					return err
				}
				if sharedModel == "" {
					return nil
				}
				return devicePluginConfigsDecode(ctx, t, ns, values)
			},
		}},
	})
}

// clusterPolicyStrict dry-runs the release's ClusterPolicy under another
// name with strict field validation.
func clusterPolicyStrict(ctx context.Context, t *testing.T, manifest string) error {
	for _, doc := range strings.Split(manifest, "\n---") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj["kind"] != "ClusterPolicy" {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		u.SetName(u.GetName() + "-strict")
		gvr := schema.GroupVersionResource{Group: "nvidia.com", Version: "v1", Resource: "clusterpolicies"}
		_, err := dynamicClient(t).Resource(gvr).Create(ctx, u, metav1.CreateOptions{
			DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict})
		if err != nil {
			return fmt.Errorf("the ClusterPolicy the chart renders from our values fails strict validation: %w", err)
		}
		return nil
	}
	return fmt.Errorf("the release has no ClusterPolicy")
}

// devicePluginConfig is the device plugin's config file
// (k8s-device-plugin api/config/v1), the fields the provider writes and
// their neighbours, decoded strictly so a misspelt key fails.
type devicePluginConfig struct {
	Version string `json:"version"`
	Flags   struct {
		MIGStrategy     string `json:"migStrategy"`
		FailOnInitError *bool  `json:"failOnInitError,omitempty"`
	} `json:"flags"`
	Sharing *struct {
		TimeSlicing *devicePluginReplicated `json:"timeSlicing,omitempty"`
		MPS         *devicePluginReplicated `json:"mps,omitempty"`
	} `json:"sharing,omitempty"`
}

type devicePluginReplicated struct {
	RenameByDefault            bool  `json:"renameByDefault,omitempty"`
	FailRequestsGreaterThanOne *bool `json:"failRequestsGreaterThanOne,omitempty"`
	Resources                  []struct {
		Name     string `json:"name"`
		Rename   string `json:"rename,omitempty"`
		Replicas int    `json:"replicas"`
	} `json:"resources"`
}

func devicePluginConfigsDecode(ctx context.Context, t *testing.T, ns string, values map[string]any) error {
	dp, _ := values["devicePlugin"].(map[string]any)
	cfg, _ := dp["config"].(map[string]any)
	name, _ := cfg["name"].(string)
	if name == "" {
		return fmt.Errorf("the values name no device plugin ConfigMap: %v", dp)
	}
	cm, err := acctest.Client(t).CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("device plugin ConfigMap %s: %w", name, err)
	}
	if len(cm.Data) < 3 { // the default plus one per pool
		return fmt.Errorf("ConfigMap %s has %d configs, want the default and one per pool", name, len(cm.Data))
	}
	for key, text := range cm.Data {
		var c devicePluginConfig
		if err := yaml.UnmarshalStrict([]byte(text), &c); err != nil {
			return fmt.Errorf("config %q does not decode as the device plugin's: %w", key, err)
		}
		if c.Version != "v1" || !slices.Contains([]string{"none", "single", "mixed"}, c.Flags.MIGStrategy) {
			return fmt.Errorf("config %q: version %q, migStrategy %q", key, c.Version, c.Flags.MIGStrategy)
		}
		if c.Sharing != nil && c.Sharing.TimeSlicing != nil {
			for _, r := range c.Sharing.TimeSlicing.Resources {
				if r.Replicas < 2 {
					return fmt.Errorf("config %q shares %s with %d replicas", key, r.Name, r.Replicas)
				}
			}
		}
	}
	return nil
}

// resourceOfKind is the plural resource name of the kinds these tests
// create (the CRDs' spec.names.plural).
func resourceOfKind(kind string) string {
	switch kind {
	case "MonoVertex":
		return "monovertices"
	default:
		return strings.ToLower(kind) + "s"
	}
}

func dynamicClient(t *testing.T) dynamic.Interface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(acctest.RESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// installCRD creates a CRD from a file (keeping one that exists) and waits
// until it is established.
func installCRD(t *testing.T, dyn dynamic.Interface, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	u := &unstructured.Unstructured{Object: obj}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := dyn.Resource(crdGVR).Create(ctx, u, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating CRD %s: %v", u.GetName(), err)
	}
	for {
		live, err := dyn.Resource(crdGVR).Get(ctx, u.GetName(), metav1.GetOptions{})
		if err == nil && crdEstablished(live) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("CRD %s not established: %v", u.GetName(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func crdEstablished(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
