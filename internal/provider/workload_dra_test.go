package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The local cluster's DRA pools (scripts/localcluster/fixtures/dra.yaml)
// publish ResourceSlices as NVIDIA's driver does; the real scheduler
// allocates the claims gpu_workload derives. These tests read what it
// allocated from the claims themselves.

// draWorkloadConfig is a generic gpu_workload whose gpu block is gpu (the
// lines inside the block), asking through a derived claim.
func draWorkloadConfig(t *testing.T, label, name, ns, gpu, extra string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_workload" %q {
  name      = %q
  namespace = %q
  kind      = "deployment"
  cloud     = "generic"
  image     = "registry.invalid/cuda:12"
  gpu {
    %s
    dra {}
  }
  timeouts {
    create = "2m"
  }
  %s
}
`, label, name, ns, gpu, extra)
}

// draDevice is one device the scheduler allocated to a workload's pod.
type draDevice struct {
	node, pool, device string
	attributes         map[string]string
}

// allocatedDevices finds the pods of the Deployment name, and for each the
// devices its claim was allocated, with their published attributes.
func allocatedDevices(ctx context.Context, cs kubernetes.Interface, ns, name string) ([]draDevice, error) {
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + name})
	if err != nil {
		return nil, err
	}
	if len(pods.Items) == 0 {
		return nil, fmt.Errorf("no pods of %s", name)
	}
	var out []draDevice
	for _, p := range pods.Items {
		if len(p.Status.ResourceClaimStatuses) != 1 || p.Status.ResourceClaimStatuses[0].ResourceClaimName == nil {
			return nil, fmt.Errorf("pod %s has no generated claim: %+v", p.Name, p.Status.ResourceClaimStatuses)
		}
		claim, err := cs.ResourceV1().ResourceClaims(ns).Get(ctx, *p.Status.ResourceClaimStatuses[0].ResourceClaimName, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if claim.Status.Allocation == nil {
			return nil, fmt.Errorf("claim %s of pod %s is not allocated", claim.Name, p.Name)
		}
		for _, r := range claim.Status.Allocation.Devices.Results {
			attrs, err := publishedAttributes(ctx, cs, r.Pool, r.Device)
			if err != nil {
				return nil, err
			}
			out = append(out, draDevice{node: p.Spec.NodeName, pool: r.Pool, device: r.Device, attributes: attrs})
		}
	}
	return out, nil
}

// publishedAttributes reads a device's string and version attributes from
// the ResourceSlices of its pool.
func publishedAttributes(ctx context.Context, cs kubernetes.Interface, pool, device string) (map[string]string, error) {
	slices, err := cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: "spec.driver=gpu.nvidia.com"})
	if err != nil {
		return nil, err
	}
	for _, s := range slices.Items {
		if s.Spec.Pool.Name != pool {
			continue
		}
		for _, d := range s.Spec.Devices {
			if d.Name != device {
				continue
			}
			attrs := map[string]string{}
			for k, v := range d.Attributes {
				switch {
				case v.StringValue != nil:
					attrs[string(k)] = *v.StringValue
				case v.VersionValue != nil:
					attrs[string(k)] = *v.VersionValue
				}
			}
			return attrs, nil
		}
	}
	return nil, fmt.Errorf("device %s of pool %s is in no ResourceSlice", device, pool)
}

// checkAllocated asserts the workload's pods got want devices in total,
// all of the one node that is their pool, each passing ok.
func checkAllocated(t *testing.T, ns, name string, want int, what string, ok func(draDevice) bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		devices, err := allocatedDevices(ctx, acctest.Client(t), ns, name)
		if err != nil {
			return err
		}
		if len(devices) != want {
			return fmt.Errorf("%d devices allocated, want %d: %+v", len(devices), want, devices)
		}
		for _, d := range devices {
			if d.pool != d.node {
				return fmt.Errorf("device %s of pool %s allocated to a pod on %s: the driver's pool is its node", d.device, d.pool, d.node)
			}
			if d.node != devices[0].node {
				return fmt.Errorf("devices of one claim on two nodes: %+v", devices)
			}
			if !ok(d) {
				return fmt.Errorf("device %s on %s is not %s: %v", d.device, d.node, what, d.attributes)
			}
		}
		return nil
	}
}

// checkNoClaims asserts nothing of DRA is left in the namespace.
func checkNoClaims(t *testing.T, ns string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		cs := acctest.Client(t)
		// The claims go with their pods, which the garbage collector
		// removes after the Deployment: wait for it, within reason.
		err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			claims, err := cs.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				return false, err
			}
			templates, err := cs.ResourceV1().ResourceClaimTemplates(ns).List(ctx, metav1.ListOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				return false, err
			}
			return len(claims.Items) == 0 && len(templates.Items) == 0, nil
		})
		if wait.Interrupted(err) {
			return fmt.Errorf("claims or claim templates left in %s after destroy", ns)
		}
		return err
	}
}

func productIs(name string) func(draDevice) bool {
	return func(d draDevice) bool { return d.attributes["productName"] == name && d.attributes["type"] == "gpu" }
}

// (a) and (e) of issue #32: two H100s through a derived claim land on one
// DRA node; the template deleted out of band is re-created; destroy leaves
// no claims or templates.
func TestAccWorkload_draTwoH100sOfOneNode(t *testing.T) {
	ns := acctest.Namespace(t)
	config := draWorkloadConfig(t, "w", "two", ns, "count = 2\n    accelerator = \"h100-80gb\"", "")
	cs := acctest.Client(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkNoClaims(t, ns),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestMatchResourceAttr("gpu_workload.w", "scheduled_nodes.0", regexp.MustCompile(`^dra-h100-\d$`)),
					checkAllocated(t, ns, "two", 2, "an H100", productIs("NVIDIA H100 80GB HBM3")),
				),
			},
			{
				PreConfig: func() {
					if err := cs.ResourceV1().ResourceClaimTemplates(ns).Delete(context.Background(), "two-gpu", metav1.DeleteOptions{}); err != nil {
						t.Fatalf("deleting the claim template: %v", err)
					}
				},
				Config: config,
				Check: func(*terraform.State) error {
					_, err := cs.ResourceV1().ResourceClaimTemplates(ns).Get(context.Background(), "two-gpu", metav1.GetOptions{})
					return err
				},
			},
		},
	})
}

// (b): a MIG partition through DRA gets a MIG device of that profile.
func TestAccWorkload_draMIGDeviceOfTheProfile(t *testing.T) {
	ns := acctest.Namespace(t)
	config := draWorkloadConfig(t, "w", "mig", ns, "count = 1\n    accelerator = \"a100-40gb\"\n    partition = \"2g.10gb\"", "")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkNoClaims(t, ns),
		Steps: []resource.TestStep{{
			Config: config,
			Check: checkAllocated(t, ns, "mig", 1, "a 2g.10gb MIG device", func(d draDevice) bool {
				return d.attributes["type"] == "mig" && d.attributes["profile"] == "2g.10gb"
			}),
		}},
	})
}

// (c): a preference list takes the first model while one is free and the
// next once the first is taken. Not parallel: it takes every H200 of the
// local cluster, which no other test asks for through DRA.
func TestAccWorkload_draPreferenceListInOrder(t *testing.T) {
	ns := acctest.Namespace(t)
	prefs := "accelerators = [\"h200\", \"h100-80gb\"]"
	first := draWorkloadConfig(t, "first", "first", ns, "count = 8\n    "+prefs, "")
	second := strings.Replace(draWorkloadConfig(t, "second", "second", ns, "count = 1\n    "+prefs, "depends_on = [gpu_workload.first]"),
		acctest.ProviderBlock(t), "", 1)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkNoClaims(t, ns),
		Steps: []resource.TestStep{{
			Config: first + second,
			Check: resource.ComposeAggregateTestCheckFunc(
				checkAllocated(t, ns, "first", 8, "an H200", productIs("NVIDIA H200")),
				checkAllocated(t, ns, "second", 1, "an H100", productIs("NVIDIA H100 80GB HBM3")),
			),
		}},
	})
}

// (d) on a cluster the plan cannot know: more GPUs than any DRA node has
// fails the apply with the scheduler's own DRA reason, and the explanation
// counts the devices matching the claim per DRA pool: the H100s (others'
// tests may hold or taint some, and a benchmark may add DRA nodes), never more than
// eight on one node. The H200 pool's nodes are not H100 nodes.
func TestAccWorkload_draMoreThanAnyNodeFailsWithTheSchedulersReason(t *testing.T) {
	ns := acctest.Namespace(t)
	config := strings.Replace(draWorkloadConfig(t, "w", "nine", ns, "count = 9\n    accelerator = \"h100-80gb\"", ""),
		`create = "2m"`, `create = "20s"`, 1)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ExpectError: wrappedRegexp(`did not become ready`, `Unschedulable`, `cannot allocate all claims`,
				`GPU pools in the cluster \(DRA devices matching the claim\):`,
				// A parallel device-taint test's node joins the H100 pool: its
				// devices are then named as tainted, in parentheses after "free".
				`generic/NVIDIA-H100-80GB-HBM3/dra: \d+ matching devices published \(NVIDIA H100 80GB HBM3\), \d+ free`+
					`( \(\d+ more tainted .*?\))?, at most [0-8] free on one node and the claim asks for 9 of one node`,
				`generic/NVIDIA-H200/dra: `, `none of its \d+ published devices matches the claim`,
				`DRA claim: 9 device\(s\) of class gpu\.nvidia\.com, all of one node`),
		}},
	})
}

// wrappedRegexp matches the regexps in order, each space in them also
// matching the line breaks Terraform wraps error messages with.
func wrappedRegexp(parts ...string) *regexp.Regexp {
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(p, " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, `.*`))
}

// (g): render mode for GitOps, with no cluster at all: the DRA pool only
// renders its DeviceClass (apply_device_class = false), and the workload
// on it (apply = false) renders its claim template naming that class, no
// nvidia.com/gpu, and the Deployment referencing the template.
func TestAccWorkload_draRenderOnlyForGitOps(t *testing.T) {
	clearClusterEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "gpu" {}

resource "gpu_node_pool_policy" "h100" {
  name               = "gitops-h100"
  cloud              = "generic"
  accelerator        = "h100-80gb"
  gpus_per_node      = 8
  gpu_allocation     = "dra"
  apply_device_class = false
}

resource "gpu_workload" "w" {
  name      = "llm"
  namespace = "ml"
  node_pool = gpu_node_pool_policy.h100.ref
  image     = "registry.invalid/cuda:12"
  apply     = false
  gpu {
    count = 2
  }
}
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("gpu_node_pool_policy.h100", "device_class_name", "gitops-h100.gpu.gpuform.io"),
				resource.TestMatchResourceAttr("gpu_node_pool_policy.h100", "device_class_yaml",
					regexp.MustCompile(`(?s)kind: DeviceClass.*name: gitops-h100.gpu.gpuform.io.*productName == "NVIDIA H100\s+80GB HBM3"`)),
				acctest.ManifestMatches("gpu_workload.w", regexp.MustCompile(`(?s)kind: ResourceClaimTemplate.*deviceClassName: gitops-h100.gpu.gpuform.io`)),
				acctest.ManifestMatches("gpu_workload.w", regexp.MustCompile(`resourceClaimTemplateName: llm-gpu`)),
				resource.TestCheckResourceAttr("gpu_workload.w", "resource_name", ""),
				resource.TestCheckResourceAttr("gpu_workload.w", "uid", ""),
			),
		}},
	})
}
