package spec

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// nameLists are every list of accepted attribute values spec declares.
var nameLists = map[string][]string{
	"MIGStrategyNames":               MIGStrategyNames(),
	"SharingNames":                   SharingNames(),
	"DRASameNames":                   DRASameNames(),
	"ConcurrencyPolicyNames":         ConcurrencyPolicyNames(),
	"AccessModeNames":                AccessModeNames(),
	"TaintEffectNames":               TaintEffectNames(),
	"QueueSchedulerNames":            QueueSchedulerNames(),
	"QueueingStrategyNames":          QueueingStrategyNames(),
	"WithinClusterQueuePolicyNames":  WithinClusterQueuePolicyNames(),
	"ReclaimWithinCohortPolicyNames": ReclaimWithinCohortPolicyNames(),
	"BorrowWithinCohortPolicyNames":  BorrowWithinCohortPolicyNames(),
}

// TestNameListsAreUsable: each list feeds a schema validator and the
// "Allowed values: ..." of a diagnostic, so it has entries, no blank or
// padded ones, and none twice.
func TestNameListsAreUsable(t *testing.T) {
	for name, list := range nameLists {
		if len(list) == 0 {
			t.Errorf("%s is empty", name)
		}
		seen := map[string]bool{}
		for _, v := range list {
			if v == "" || strings.TrimSpace(v) != v {
				t.Errorf("%s has a blank or padded entry %q", name, v)
			}
			if seen[v] {
				t.Errorf("%s lists %q twice", name, v)
			}
			seen[v] = true
		}
	}
}

// TestNameListsReturnCopies: a caller that appends to or edits a list must
// not change what the next caller is told is allowed.
func TestNameListsReturnCopies(t *testing.T) {
	SharingNames()[0] = "edited"
	if SharingNames()[0] != SharingTimeSlicing {
		t.Fatal("a Names() list is shared between callers")
	}
}

// TestKubernetesNamesMatchTheAPI: the values passed straight into
// Kubernetes objects are spelled exactly as the API types spell them.
func TestKubernetesNamesMatchTheAPI(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"TaintEffectNames", TaintEffectNames(), []string{
			string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute),
		}},
		{"AccessModeNames", AccessModeNames(), []string{
			string(corev1.ReadWriteOnce), string(corev1.ReadWriteOncePod), string(corev1.ReadWriteMany), string(corev1.ReadOnlyMany),
		}},
		{"ConcurrencyPolicyNames", ConcurrencyPolicyNames(), []string{
			string(batchv1.AllowConcurrent), string(batchv1.ForbidConcurrent), string(batchv1.ReplaceConcurrent),
		}},
	} {
		if !slices.Equal(slices.Sorted(slices.Values(c.got)), slices.Sorted(slices.Values(c.want))) {
			t.Errorf("%s = %v, the Kubernetes API has %v", c.name, c.got, c.want)
		}
	}
}

// workloadJSONv1 are the JSON names of the spec annotation's format,
// version 1 (see Workload): nested blocks as "Block.Field". They never
// change: a stored annotation written by an older release must still read.
var workloadJSONv1 = []string{
	"Name", "Namespace", "Kind", "Cloud", "Replicas", "UpdateStrategy", "Labels", "Annotations", "PodLabels", "PodAnnotations",
	"SelectorLabels", "ContainerName", "Image", "Command", "Args", "Env",
	"SecretEnv", "SecretEnv.name", "SecretEnv.key",
	"Ports", "ServiceAccountName", "ImagePullSecrets", "PriorityClassName",
	"GPU", "GPU.Count", "GPU.Requests", "GPU.Accelerator", "GPU.Accelerators", "GPU.Partition", "GPU.MIGStrategy",
	"GPU.Sharing", "GPU.MaxSharedClients", "GPU.DRA", "GPU.DRA.DeviceClass", "GPU.DRA.Selectors",
	"GPU.DRA.MinMemory", "GPU.DRA.Same",
	"Queue", "QueueScheduler", "Size", "CPU", "Memory", "ShmSize",
	"ModelCache", "ModelCache.ClaimName", "ModelCache.Size", "ModelCache.StorageClass", "ModelCache.MountPath",
	"ModelCache.ReadOnly", "ModelCache.AccessMode",
	"StartupProbe", "LivenessProbe", "ReadinessProbe", // each with probeJSONv1
	"IPCLock", "Spot",
	"Topology", "Topology.Level", "Topology.Mode", "Topology.SliceSize", "Topology.SliceLevel", "Topology.NVLinkDomain",
	"Job", "Job.BackoffLimit", "Job.ActiveDeadlineSeconds", "Job.TTLSecondsAfterFinished", "Job.Completions",
	"Job.Parallelism",
	"CronJob", "CronJob.Schedule", "CronJob.TimeZone", "CronJob.ConcurrencyPolicy", "CronJob.SuccessfulJobsHistoryLimit",
	"CronJob.FailedJobsHistoryLimit", "CronJob.StartingDeadlineSeconds", "CronJob.Suspend",
	"Distributed", "Distributed.Nodes", "Distributed.Launcher", "Distributed.Port",
	"Patch",
}

var probeJSONv1 = []string{
	"HTTPPath", "Port", "Exec", "TCPPort", "InitialDelaySeconds", "PeriodSeconds", "TimeoutSeconds", "FailureThreshold",
}

// jsonNames lists the JSON names of typ's fields, and of the fields of the
// spec structs it holds, as "Block.Field".
func jsonNames(prefix string, typ reflect.Type) []string {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || typ.PkgPath() != reflect.TypeFor[Workload]().PkgPath() {
		return nil
	}
	var out []string
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue // not stored
		}
		out = append(out, prefix+name)
		out = append(out, jsonNames(prefix+name+".", f.Type)...)
	}
	return out
}

// TestWorkloadJSONNamesAreFixed: renaming a Go field must not rename what
// the spec annotation stores. A new field is added to workloadJSONv1; an
// old name is never removed.
func TestWorkloadJSONNamesAreFixed(t *testing.T) {
	want := slices.Clone(workloadJSONv1)
	for _, probe := range []string{"StartupProbe", "LivenessProbe", "ReadinessProbe"} {
		for _, f := range probeJSONv1 {
			want = append(want, probe+"."+f)
		}
	}
	got := jsonNames("", reflect.TypeFor[Workload]())
	for _, name := range want {
		if !slices.Contains(got, name) {
			t.Errorf("stored JSON name %q is gone: annotations written before cannot be read back", name)
		}
	}
	for _, name := range got {
		if !slices.Contains(want, name) {
			t.Errorf("JSON name %q is not in workloadJSONv1: add it there if it is new", name)
		}
	}
}

// TestDRAWithoutNewFieldsEncodesAsBefore: a dra block without min_memory
// or same is stored exactly as releases before those fields wrote it.
func TestDRAWithoutNewFieldsEncodesAsBefore(t *testing.T) {
	got, err := json.Marshal(DRA{DeviceClass: "gpu.nvidia.com", Selectors: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"DeviceClass":"gpu.nvidia.com","Selectors":["true"]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
