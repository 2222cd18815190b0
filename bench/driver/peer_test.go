package main

import (
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

func TestDeploymentHCL(t *testing.T) {
	r, err := spec.Render(spec.Name(0), "ns-x", spec.PoolRef("abcde"), utilversion.MustParseGeneric("1.33"))
	if err != nil {
		t.Fatal(err)
	}
	hcl, err := deploymentHCL(spec.DeploymentOf(r), spec.Name(0), 7)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("BENCH_PRINT_HCL") != "" {
		t.Log("\n" + hcl)
	}
	for _, want := range []string{
		`resource "kubernetes_deployment_v1" "bench" {`,
		"count            = 7",
		"wait_for_rollout = true",
		`name = format("gpu-%03d", count.index)`,
		`namespace = "ns-x"`,
		`"gpuform.io/bench" = "abcde"`,
		`"nvidia.com/gpu" = "1"`,
		`effect = "NoSchedule"`,
		`type = "Recreate"`,
		`replicas = "1"`,
		`image = "` + spec.Image + `"`,
	} {
		if !strings.Contains(hcl, want) {
			t.Errorf("no %q in\n%s", want, hcl)
		}
	}
	if strings.Count(hcl, "{") != strings.Count(hcl, "}") {
		t.Errorf("unbalanced braces:\n%s", hcl)
	}

	// A field the HCL would leave out fails instead.
	d := spec.DeploymentOf(r).DeepCopy()
	d.Spec.Template.Spec.PriorityClassName = "high"
	if _, err := deploymentHCL(d, spec.Name(0), 1); err == nil || !strings.Contains(err.Error(), "priorityClassName") {
		t.Errorf("priorityClassName: err = %v", err)
	}
	d = spec.DeploymentOf(r).DeepCopy()
	d.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80}}
	if _, err := deploymentHCL(d, spec.Name(0), 1); err == nil || !strings.Contains(err.Error(), "containerPort") {
		t.Errorf("ports: err = %v", err)
	}
}

func TestHCLString(t *testing.T) {
	if got, want := hclString(`a"${b}%{c}`), `"a\"$${b}%%{c}"`; got != want {
		t.Errorf("hclString = %s, want %s", got, want)
	}
}
