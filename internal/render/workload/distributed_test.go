package workload

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func distributedWorkload() spec.Workload {
	w := goldenWorkload(spec.CloudGeneric, "train", spec.KindDistributedJob, spec.GPU{Count: 8, Accelerator: "h100-80gb"})
	w.Memory = "64Gi"
	w.Distributed = &spec.DistributedControls{Nodes: rendertest.Ptr(int64(2))}
	return w
}

func shmLimit(t *testing.T, r *Rendered) string {
	t.Helper()
	for _, v := range r.PodTemplate().Spec.Volumes {
		if v.Name == volumeShm {
			return v.EmptyDir.SizeLimit.String()
		}
	}
	return ""
}

// TestDistributedShm: a distributed job's pods get /dev/shm without
// shm_size, half their memory; shm_size still decides when set. A job
// gets none unless asked.
func TestDistributedShm(t *testing.T) {
	w := distributedWorkload()
	r, diags := ResolveAndRender(w, Options{})
	rendertest.RequireNoErrors(t, diags)
	if got := shmLimit(t, r); got != "32Gi" {
		t.Errorf("default /dev/shm = %q, want 32Gi", got)
	}
	w.ShmSize = "8Gi"
	r, diags = ResolveAndRender(w, Options{})
	rendertest.RequireNoErrors(t, diags)
	if got := shmLimit(t, r); got != "8Gi" {
		t.Errorf("shm_size 8Gi rendered %q", got)
	}
	w = distributedWorkload()
	w.Kind, w.Distributed = spec.KindJob, nil
	r, diags = ResolveAndRender(w, Options{})
	rendertest.RequireNoErrors(t, diags)
	if got := shmLimit(t, r); got != "" {
		t.Errorf("a job got /dev/shm %q without shm_size", got)
	}
}

// TestDistributedObjects: the Service comes before the Job and selects the
// Job's pods; the Job is recognised as the distributed kind's.
func TestDistributedObjects(t *testing.T) {
	r, diags := ResolveAndRender(distributedWorkload(), Options{})
	rendertest.RequireNoErrors(t, diags)
	if len(r.Objects) != 2 {
		t.Fatalf("%d objects", len(r.Objects))
	}
	svc, ok := r.Objects[0].(*corev1.Service)
	if !ok {
		t.Fatalf("first object is %T", r.Objects[0])
	}
	for k, v := range svc.Spec.Selector {
		if r.PodTemplate().Labels[k] != v {
			t.Errorf("the Service selects %s=%s, which the pods lack", k, v)
		}
	}
	if r.Kind.Name != spec.KindDistributedJob || PodTemplateOf(r.Workload()).Spec.Subdomain != svc.Name {
		t.Errorf("kind %q, subdomain %q", r.Kind.Name, PodTemplateOf(r.Workload()).Spec.Subdomain)
	}
}

// TestDistributedBlockOnOtherKinds: the block is refused where it is not read.
func TestDistributedBlockOnOtherKinds(t *testing.T) {
	w := distributedWorkload()
	w.Kind = spec.KindJob
	diags := Resolve(w, nil, true).Findings
	found := false
	for _, d := range diags.Errors() {
		found = found || d.PathString() == "distributed"
	}
	if !found {
		t.Errorf("no error at distributed: %v", diags)
	}
}
