package provider

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// gpuPatch adds what teams need and no attribute covers: a pull secret, a
// sidecar, a rolling update that keeps capacity, a restricted security
// context and an extra toleration.
const gpuPatch = `<<-EOT
    spec:
      strategy:
        type: RollingUpdate
        rollingUpdate: {maxUnavailable: 0, maxSurge: 1}
      template:
        spec:
          imagePullSecrets: [{name: ngc}]
          securityContext: {runAsNonRoot: true, runAsUser: 1000}
          tolerations:
            - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
            - {key: team, operator: Exists, effect: NoSchedule}
          containers:
            - name: metrics
              image: registry.invalid/statsd-exporter:1
  EOT`

// A patched workload applies with the patched fields, lands on its pool,
// plans empty, has drift of a patched field detected and repaired, and
// imports with its patch (issue #13).
func TestAccWorkload_patchAppliesDriftsAndImports(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("w", "patched", ns, "deployment",
		landingCase{cloud: "eks", accelerator: "a10g", count: 1, extra: "patch = " + gpuPatch})
	patchedLive := func(p corev1.PodSpec) bool {
		names := []string{}
		for _, c := range p.Containers {
			names = append(names, c.Name)
		}
		return slices.Equal(names, []string{"patched", "metrics"}) && len(p.ImagePullSecrets) == 1 &&
			p.SecurityContext != nil && p.SecurityContext.RunAsNonRoot != nil && len(p.Tolerations) == 2
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestMatchResourceAttr("gpu_workload.w", "scheduled_nodes.0", regexp.MustCompile(`^eks-g5-\d$`)),
					acctest.ManifestMatches("gpu_workload.w", regexp.MustCompile(`imagePullSecrets:\n\s+- name: ngc`)),
					checkLiveDeployment(t, ns, "patched", "the patch", patchedLive),
				),
			},
			{
				PreConfig: func() {
					editDeployment(t, acctest.Client(t), ns, "patched", func(p *corev1.PodSpec) { p.ImagePullSecrets = nil })
				},
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gpu_workload.w", plancheck.ResourceActionUpdate)},
				},
				Check: checkLiveDeployment(t, ns, "patched", "the repaired patch", patchedLive),
			},
			{
				ResourceName:      "gpu_workload.w",
				ImportState:       true,
				ImportStateId:     ns + "/patched",
				ImportStateVerify: true,
				Config:            config,
			},
		},
	})
}

// A patch that undoes the GPU placement fails the plan on the patch line,
// with no cluster.
func TestWorkload_patchBreakingGPURulesFailsPlan(t *testing.T) {
	clearClusterEnv(t)
	cases := map[string]struct{ patch, want string }{
		"more GPUs than the gpu block": {`"spec:\n  template:\n    spec:\n      containers:\n        - name: w\n          resources: {limits: {nvidia.com/gpu: \"2\"}}"`,
			`Patch changes the GPU request`},
		"a sidecar with GPUs": {`"spec:\n  template:\n    spec:\n      containers:\n        - name: side\n          image: x\n          resources: {limits: {nvidia.com/gpu: \"1\"}}"`,
			`Patch gives a second container GPUs`},
		"not an object": {`"- a"`, `Invalid patch`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			planFails(t, fmt.Sprintf(`
resource "gpu_workload" "w" {
  name      = "w"
  namespace = "default"
  cloud     = "eks"
  image     = "registry.invalid/cuda:12"
  apply     = false
  gpu {
    count       = 1
    accelerator = "a10g"
  }
  patch = %s
}
`, c.patch), acctest.Phrases(c.want, `with gpu_workload.w`, `patch`))
		})
	}
}
