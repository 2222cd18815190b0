package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Tests of how gpu_workload applies: ownership conflicts, adoption, DRA.

// A field owned by another declarative manager (server-side apply, as GitOps
// tools do) is not silently taken: the apply names the manager and the
// field, and force_conflicts = true takes it over.
func TestAccWorkload_conflictWithAnotherApplyManager(t *testing.T) {
	ns := acctest.Namespace(t)
	base := landingCase{cloud: "gke", accelerator: "a100-40gb", count: 1}
	config := acctest.ProviderBlock(t) + workloadConfig("w", "contested", ns, "deployment", base)
	forced := base
	forced.extra = "force_conflicts = true"
	cs := acctest.Client(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() { applyImageAs(t, cs, ns, "contested", "gitops-controller", "registry.invalid/gitops:2") },
				Config:    config,
				ExpectError: regexp.MustCompile(`(?s)Server-side apply failed.*conflict.*"gitops-controller".*` +
					`containers\[name="contested"\]\.image.*force_conflicts = true`),
			},
			{
				Config: acctest.ProviderBlock(t) + workloadConfig("w", "contested", ns, "deployment", forced),
				Check: checkLiveDeployment(t, ns, "contested", "a forced take-over", func(p corev1.PodSpec) bool {
					return p.Containers[0].Image == "registry.invalid/cuda:12"
				}),
			},
		},
	})
}

// DRA: on a 1.34 server the claim template is resource.k8s.io/v1 and the pod
// references it instead of requesting nvidia.com/gpu. Nothing allocates
// devices here (no DRA driver), so the test does not wait for pods.
func TestAccWorkload_draClaimTemplateMatchesServerVersion(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("w", "dra", ns, "deployment",
		landingCase{cloud: "generic", accelerator: "h100-80gb", count: 2, extra: `wait_for = "none"`})
	config = strings.Replace(config, "accelerator = \"h100-80gb\"\n", "accelerator = \"h100-80gb\"\n    dra {}\n", 1)
	cs := acctest.Client(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				acctest.ManifestMatches("gpu_workload.w", regexp.MustCompile(`apiVersion: resource.k8s.io/v1\n`)),
				resource.TestCheckResourceAttr("gpu_workload.w", "resource_name", ""),
				func(*terraform.State) error {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					tmpl, err := cs.ResourceV1().ResourceClaimTemplates(ns).Get(ctx, "dra-gpu", metav1.GetOptions{})
					if err != nil {
						return fmt.Errorf("claim template not created: %w", err)
					}
					if req := tmpl.Spec.Spec.Devices.Requests; len(req) != 1 || req[0].Exactly == nil || req[0].Exactly.Count != 2 {
						return fmt.Errorf("claim template should request exactly 2 devices: %+v", req)
					}
					d, err := cs.AppsV1().Deployments(ns).Get(ctx, "dra", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if claims := d.Spec.Template.Spec.ResourceClaims; len(claims) != 1 || *claims[0].ResourceClaimTemplateName != "dra-gpu" {
						return fmt.Errorf("pod template should reference the claim template: %+v", claims)
					}
					return nil
				},
			),
		}},
	})
}

// A Deployment that exists and was not created by gpu_workload is not taken
// over silently: the create fails unless adopt = true.
func TestAccWorkload_existingObjectNeedsAdopt(t *testing.T) {
	ns := acctest.Namespace(t)
	cs := acctest.Client(t)
	base := landingCase{cloud: "gke", accelerator: "a100-40gb", count: 1}
	adopting := base
	adopting.extra = "adopt = true"
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDeploymentGone(t, ns, "existing"),
		Steps: []resource.TestStep{
			{
				PreConfig: func() { createForeignDeployment(t, cs, ns, "existing") },
				Config:    acctest.ProviderBlock(t) + workloadConfig("w", "existing", ns, "deployment", base),
				ExpectError: regexp.MustCompile(`(?s)Object already exists.*Deployment .*/existing exists and was not created by\s+` +
					`gpu_workload.*adopt = true`),
			},
			{
				Config: acctest.ProviderBlock(t) + workloadConfig("w", "existing", ns, "deployment", adopting),
				Check: checkLiveDeployment(t, ns, "existing", "adoption", func(p corev1.PodSpec) bool {
					return p.Containers[0].Image == "registry.invalid/cuda:12"
				}),
			},
		},
	})
}

// applyImageAs server-side applies a new image under another field manager,
// as a GitOps controller would.
func applyImageAs(t *testing.T, cs kubernetes.Interface, ns, name, manager, image string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	patch := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q},`+
		`"spec":{"template":{"spec":{"containers":[{"name":%q,"image":%q}]}}}}`, name, name, image)
	force := true
	_, err := cs.AppsV1().Deployments(ns).Patch(ctx, name, k8stypes.ApplyPatchType, []byte(patch),
		metav1.PatchOptions{FieldManager: manager, Force: &force})
	if err != nil {
		t.Fatalf("applying as %s: %v", manager, err)
	}
}

// createForeignDeployment creates a small Deployment the way another tool
// would, with no gpu_workload annotation.
func createForeignDeployment(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The selector gpu_workload renders: a selector cannot change on adoption.
	labels := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/instance": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "registry.invalid/theirs:1"}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{FieldManager: "someone-else"}); err != nil {
		t.Fatalf("creating a foreign deployment: %v", err)
	}
}

// With replicas unset, an autoscaler owns them: scaling the Deployment is
// not drift, and the next plan is empty.
func TestAccWorkload_unsetReplicasLeftToAutoscaler(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("w", "scaled", ns, "deployment",
		landingCase{cloud: "generic", accelerator: "h100-80gb", count: 1})
	cs := acctest.Client(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					scale, err := cs.AppsV1().Deployments(ns).GetScale(ctx, "scaled", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					scale.Spec.Replicas = 2
					_, err = cs.AppsV1().Deployments(ns).UpdateScale(ctx, "scaled", scale,
						metav1.UpdateOptions{FieldManager: "horizontal-pod-autoscaler"})
					if err != nil {
						t.Fatalf("scaling as an autoscaler would: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}
