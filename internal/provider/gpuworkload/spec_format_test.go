package gpuworkload

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The spec annotation (specAnnotation) is on every Deployment and Job an
// earlier provider version applied; import and drift detection read it.
// Each fixture is an annotation a released version wrote: it must decode to
// the same intent, and re-encode to the same bytes (a different annotation
// would plan an update of every workload after an upgrade). Fixtures are
// added, never edited; a format change bumps specVersion and adds new ones.
func specFixtures() map[string]workloadSpec {
	return map[string]workloadSpec{
		"v1-deployment-minimal.json": {Workload: spec.Workload{Name: "llm", Namespace: "ml", Kind: "deployment", Cloud: "gke",
			Image: "registry.example/vllm:0.6", GPU: spec.GPU{Count: 1, Accelerator: "l4"}}, WaitFor: "rollout"},
		"v1-job-everything.json": {Workload: spec.Workload{
			Name: "train", Namespace: "ml", Kind: "job", Cloud: "aks", Replicas: nil,
			Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "x"},
			PodLabels: map[string]string{"p": "1"}, PodAnnotations: map[string]string{"q": "2"},
			Image: "nvcr.io/nvidia/pytorch:24.08", Command: []string{"torchrun"}, Args: []string{"train.py"},
			Env:       map[string]string{"NCCL_DEBUG": "INFO"},
			SecretEnv: map[string]spec.SecretKeyRef{"HF_TOKEN": {Name: "hf", Key: "token"}},
			Ports:     []int32{8080}, ServiceAccountName: "trainer",
			GPU: spec.GPU{Count: 2, Requests: ptr.To[int64](2), Accelerators: []string{"a100-80gb", "h100-80gb"},
				MIGStrategy: "single", Sharing: "", MaxSharedClients: 0},
			Size: "large", CPU: "16", Memory: "128Gi", ShmSize: "16Gi",
			ModelCache:    &spec.ModelCache{Size: "200Gi", StorageClass: "premium", MountPath: "/models", AccessMode: "ReadWriteOnce"},
			StartupProbe:  &spec.Probe{HTTPPath: "/healthz", Port: 8080, PeriodSeconds: ptr.To[int32](10)},
			LivenessProbe: &spec.Probe{TCPPort: 8080}, ReadinessProbe: &spec.Probe{Exec: []string{"true"}, FailureThreshold: ptr.To[int32](3)},
			IPCLock: true, Spot: true,
			Job: &spec.JobControls{BackoffLimit: ptr.To[int32](1), ActiveDeadlineSeconds: ptr.To[int64](86400),
				TTLSecondsAfterFinished: ptr.To[int32](600), Completions: ptr.To[int32](1), Parallelism: ptr.To[int32](1)},
		}, WaitFor: "complete", Force: true, NodePool: "aks/a100-80gb/train:eyJ2IjoxfQ"},
		// Added with refs (0.1.0): node_pool's pool and queue's gpu_queue
		// reference, omitted when unset.
		"v1-job-refs.json": {Workload: spec.Workload{Name: "train", Namespace: "ml", Kind: "job", Cloud: "gke",
			Queue: "team-a", Image: "img", GPU: spec.GPU{Count: 8}},
			Pool: &spec.PoolPolicy{Name: "a100", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8,
				Taints: []spec.Taint{{Key: "team", Value: "a", Effect: "NoSchedule"}}},
			QueueRef: &queue.Ref{Name: "team-a", LocalQueue: "team-a", Namespaces: []string{"ml"},
				Flavors: []queue.FlavorRef{{Name: "a100", Cloud: "gke", Accelerator: "a100-40gb", Resource: "nvidia.com/gpu",
					Unit: queue.UnitGPUs, Quota: 16, CPU: "96", Memory: "680Gi"}}},
			WaitFor: "complete"},
		"v1-deployment-dra-shared.json": {Workload: spec.Workload{Name: "dra", Namespace: "default", Kind: "deployment", Cloud: "generic",
			Replicas: ptr.To[int32](3), Image: "img", GPU: spec.GPU{Count: 1, Sharing: "time-slicing", MaxSharedClients: 4,
				DRA: &spec.DRA{DeviceClass: "gpu.nvidia.com", Selectors: []string{`device.attributes["gpu.nvidia.com"].productName == "L4"`}}}}},
		// Added with patch, statefulset and cronjob (same version: the new
		// fields are omitted when empty, so the fixtures above are unchanged).
		"v1-statefulset-patched.json": {Workload: spec.Workload{Name: "shard", Namespace: "ml", Kind: "statefulset", Cloud: "aks",
			Replicas: ptr.To[int32](2), Image: "img", GPU: spec.GPU{Count: 1, Accelerator: "a100-80gb"},
			ModelCache: &spec.ModelCache{Size: "200Gi"}, Patch: "spec:\n  template:\n    spec:\n      priorityClassName: high\n"}},
		"v1-cronjob.json": {Workload: spec.Workload{Name: "nightly", Namespace: "ml", Kind: "cronjob", Cloud: "karpenter",
			Image: "img", GPU: spec.GPU{Count: 1, Accelerator: "l4"},
			Job: &spec.JobControls{BackoffLimit: ptr.To[int32](1)},
			CronJob: &spec.CronJobControls{Schedule: "0 3 * * *", TimeZone: "Europe/Berlin", ConcurrencyPolicy: "Forbid",
				SuccessfulJobsHistoryLimit: ptr.To[int32](3), FailedJobsHistoryLimit: ptr.To[int32](1),
				StartingDeadlineSeconds: ptr.To[int64](600), Suspend: true}}, WaitFor: "none"},
	}
}

func TestSpecAnnotationFormatFixtures(t *testing.T) {
	for name, want := range specFixtures() {
		path := filepath.Join("testdata", "formats", "spec-annotation", name)
		var m workloadModel
		m.WaitFor, m.ForceConflicts = types.StringValue(want.WaitFor), types.BoolValue(want.Force)
		encoded, err := annotationFromSpec(want.Workload, want.Pool, want.QueueRef, m)
		if err != nil {
			t.Fatal(err)
		}
		// Versions before 0.1.0 wrote legacy ids, which this one reads but
		// never writes.
		legacy := want.NodePool != ""
		if !legacy {
			rendertest.WriteFixtureIfNew(t, path, encoded)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		annotation := strings.TrimSpace(string(data))
		got, err := specFromAnnotation(annotation)
		if err != nil {
			t.Fatalf("%s: an annotation on users' workloads no longer decodes: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s decodes to\n%+v\nwant\n%+v", name, got, want)
		}
		if !legacy && encoded != annotation {
			t.Errorf("%s: the same intent now encodes differently, so every workload would plan an update:\n%s\n%s", name, annotation, encoded)
		}
	}
}

func TestSpecAnnotationRejectsUnknownVersions(t *testing.T) {
	if _, err := specFromAnnotation(`{"v":99,"workload":{}}`); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Fatalf("an annotation from a newer provider must be refused, naming its version; got %v", err)
	}
}

// Every field of the intent carries an explicit JSON name, so renaming a Go
// field can never change the annotation's format.
func TestSpecAnnotationFieldsAreTagged(t *testing.T) {
	checkTagged(t, reflect.TypeOf(workloadSpec{}), "workloadSpec", map[reflect.Type]bool{})
}

func checkTagged(t *testing.T, typ reflect.Type, where string, seen map[reflect.Type]bool) {
	t.Helper()
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || seen[typ] {
		return
	}
	seen[typ] = true
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			t.Errorf("%s.%s has no json name: the spec annotation's format would follow the Go name", where, f.Name)
		}
		if name == "-" {
			continue // never encoded: what the plan was judged by, not the intent
		}
		checkTagged(t, f.Type, where+"."+f.Name, seen)
	}
}
