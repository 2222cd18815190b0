package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// NVLink domains (issue #33 item 3, done-when (f)). No ComputeDomain
// controller runs on the local cluster, so the test installs NVIDIA's own
// ComputeDomain CRD (testdata/crds/computedomains.yaml, v0.4.1 = v0.5.0) and checks
// that the ComputeDomain gpu_workload applies is accepted by its schema:
// by the real apply (server-side apply refuses fields the schema lacks) and
// by a strict dry run of the rendered manifest. The pods wait for the
// channel template the controller would create, so wait_for = "none".

var computeDomainGVR = schema.GroupVersionResource{Group: "resource.nvidia.com", Version: "v1beta1", Resource: "computedomains"}

func computeDomainConfig(t *testing.T, ns string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "nvl72" {
  name          = "nvl72"
  cloud         = "generic"
  accelerator   = "gb200"
  gpus_per_node = 4
  topology {
    levels           = ["clique", "node"]
    nodes_per_domain = { clique = 4 }
  }
}

resource "gpu_workload" "train" {
  name      = "train"
  namespace = %[1]q
  kind      = "job"
  node_pool = gpu_node_pool_policy.nvl72.ref
  image     = "registry.invalid/pytorch:24"
  wait_for  = "none"
  gpu {
    count = 4
  }
  job {
    parallelism = 2
    completions = 2
  }
  topology {
    level         = "clique"
    nvlink_domain = true
  }
}
`, ns)
}

func TestAccComputeDomain_acceptedByCRD(t *testing.T) {
	ns := acctest.Namespace(t)
	dyn := dynamicClient(t)
	installCRD(t, dyn, filepath.Join("testdata", "crds", "computedomains.yaml"))
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: computeDomainConfig(t, ns),
			Check: resource.ComposeTestCheckFunc(
				func(*terraform.State) error { return checkLiveComputeDomain(dyn, ns) },
				func(s *terraform.State) error { return dryRunComputeDomain(dyn, s, ns) },
			),
		}},
		CheckDestroy: func(*terraform.State) error {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := dyn.Resource(computeDomainGVR).Namespace(ns).Get(ctx, "train", metav1.GetOptions{}); err == nil {
				return fmt.Errorf("ComputeDomain %s/train outlived destroy", ns)
			}
			return nil
		},
	})
}

// checkLiveComputeDomain: the applied object is stored as rendered. The
// cluster may hold an older ComputeDomain CRD another test installed (v25.x,
// where numNodes is required); the rendered object suits both.
func checkLiveComputeDomain(dyn dynamic.Interface, ns string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cd, err := dyn.Resource(computeDomainGVR).Namespace(ns).Get(ctx, "train", metav1.GetOptions{})
	if err != nil {
		return err
	}
	name, _, _ := unstructured.NestedString(cd.Object, "spec", "channel", "resourceClaimTemplate", "name")
	mode, _, _ := unstructured.NestedString(cd.Object, "spec", "channel", "allocationMode")
	nodes, found, _ := unstructured.NestedInt64(cd.Object, "spec", "numNodes")
	if name != "train-channel" || mode != "Single" || !found || nodes != 0 {
		return fmt.Errorf("ComputeDomain spec %v", cd.Object["spec"])
	}
	return nil
}

// dryRunComputeDomain creates the manifest's ComputeDomain under another
// name with a strict server-side dry run, and checks that the CRD's schema
// is what judges it: the same object with an unknown spec field is refused.
func dryRunComputeDomain(dyn dynamic.Interface, s *terraform.State, ns string) error {
	r, ok := s.RootModule().Resources["gpu_workload.train"]
	if !ok {
		return fmt.Errorf("gpu_workload.train is not in the state")
	}
	var cd *unstructured.Unstructured
	for key, doc := range r.Primary.Attributes {
		var m map[string]any
		if !strings.HasPrefix(key, "manifests.") || key == "manifests.#" || yaml.Unmarshal([]byte(doc), &m) != nil {
			continue
		}
		if m["kind"] == "ComputeDomain" {
			cd = &unstructured.Unstructured{Object: m}
		}
	}
	if cd == nil {
		return fmt.Errorf("no ComputeDomain in gpu_workload.train.manifests")
	}
	cd.SetName("train-dry-run")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	strict := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict}
	if _, err := dyn.Resource(computeDomainGVR).Namespace(ns).Create(ctx, cd, strict); err != nil {
		return fmt.Errorf("the rendered ComputeDomain was refused: %w", err)
	}
	bad := cd.DeepCopy()
	if err := unstructured.SetNestedField(bad.Object, int64(2), "spec", "channel", "numChannels"); err != nil {
		return err
	}
	if _, err := dyn.Resource(computeDomainGVR).Namespace(ns).Create(ctx, bad, strict); err == nil ||
		!strings.Contains(err.Error(), "numChannels") {
		return fmt.Errorf("an unknown field passed the strict dry run (%v): the CRD's schema is not checked", err)
	}
	return nil
}
