package nodepoolpolicy

import (
	"context"
	"strings"
	"testing"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func classWithName(name, resource string, created time.Time) *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)},
		Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: &resource}}
}

// A pool whose extended resource another, newer class also carries is
// warned about, naming the class Kubernetes serves it from; the pool's
// own class being the newest, or alone, is quiet.
func TestExtendedResourceClash(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rendered := &spec.PoolRendered{DeviceClassName: "dra-h100.gpu.gpuform.io", ExtendedResourceName: "nvidia.com/gpu"}
	warn := func(objs ...runtime.Object) string {
		client := &kube.Client{Typed: fake.NewClientset(objs...)}
		diags := extendedResourceClash(context.Background(), client, rendered)
		if diags.HasError() {
			t.Fatalf("errors: %v", diags)
		}
		if len(diags) == 0 {
			return ""
		}
		return diags[0].Summary() + ": " + diags[0].Detail()
	}
	ours := classWithName("dra-h100.gpu.gpuform.io", "nvidia.com/gpu", t0)
	if got := warn(ours); got != "" {
		t.Errorf("alone: %s", got)
	}
	if got := warn(ours, classWithName("gpu.nvidia.com", "nvidia.com/gpu", t0.Add(-time.Hour))); got != "" {
		t.Errorf("the driver's older class: %s", got)
	}
	got := warn(ours, classWithName("dra-l4.gpu.gpuform.io", "nvidia.com/gpu", t0.Add(time.Hour)),
		classWithName("mig.gpu.gpuform.io", "nvidia.com/mig-1g.10gb", t0.Add(2*time.Hour)))
	for _, want := range []string{"Another DeviceClass serves nvidia.com/gpu", `from the newest, "dra-l4.gpu.gpuform.io"`, "wait", "Allowed:"} {
		if !strings.Contains(got, want) {
			t.Errorf("warning lacks %q: %s", want, got)
		}
	}
	if strings.Contains(got, "mig.gpu.gpuform.io") {
		t.Errorf("a class of another resource named: %s", got)
	}
	// No extended resource rendered (before 1.36): nothing is listed.
	if diags := extendedResourceClash(context.Background(), &kube.Client{}, &spec.PoolRendered{DeviceClassName: "x"}); len(diags) != 0 {
		t.Errorf("no extended resource: %v", diags)
	}
}
