package ray

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

const errSev = gpudiag.SeverityError

func envValue(c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// A head without GPUs cannot see a node's GPUs and tells Ray it has none;
// on a GPU pool it keeps the pool's placement but no GPU limit, with a
// warning.
func TestHeadWithoutGPUs(t *testing.T) {
	c := cpuHeadCluster()
	c.Head.NodePool = pooled(poolH100)
	r, diags := mustRender(t, c)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityWarning, "head.node_pool", "hides the node's GPUs")
	head := r.ClusterSpec().HeadGroupSpec
	if head.RayStartParams[ParamNumGPUs] != "0" {
		t.Errorf("head num-gpus %q, want 0", head.RayStartParams[ParamNumGPUs])
	}
	ctr := head.Template.Spec.Containers[0]
	if v, ok := envValue(ctr, EnvVisibleDevices); !ok || v != VisibleDevicesVoid {
		t.Errorf("head %s = %q, want void", EnvVisibleDevices, v)
	}
	if _, ok := ctr.Resources.Limits["nvidia.com/gpu"]; ok {
		t.Error("a head without a gpu block got a GPU limit")
	}
	if head.Template.Spec.NodeSelector["node.kubernetes.io/instance-type"] != "p5.48xlarge" {
		t.Errorf("head on the pool lost the pool's selector: %v", head.Template.Spec.NodeSelector)
	}
	// Without a pool: no GPU placement at all.
	r, _ = mustRender(t, cpuHeadCluster())
	if s := r.ClusterSpec().HeadGroupSpec.Template.Spec; len(s.NodeSelector) > 0 || len(s.Tolerations) > 0 || s.Affinity != nil {
		t.Errorf("a CPU head without a pool is placed: %v %v %v", s.NodeSelector, s.Tolerations, s.Affinity)
	}
}

// Ray's num-gpus always equals the pod's GPUs; a user's that differs is
// an error naming both numbers, in ray_start_params and in a patched spec.
func TestNumGPUsAgreesWithLimits(t *testing.T) {
	c := cpuHeadCluster()
	c.WorkerGroups[0].RayStartParams = map[string]string{ParamNumGPUs: "4", "object-store-memory": "1000000000"}
	c.Head.RayStartParams = map[string]string{ParamNumGPUs: "1"}
	diags := Resolve(c, true).Findings
	rendertest.RequireDiag(t, diags, errSev, `worker_group[0].ray_start_params["num-gpus"]`, `num-gpus = "4", but its pod gets 8 GPUs`)
	rendertest.RequireDiag(t, diags, errSev, `head.ray_start_params["num-gpus"]`, "gets 0 GPUs")

	c.WorkerGroups[0].RayStartParams[ParamNumGPUs] = "8"
	c.Head.RayStartParams = nil
	r, _ := mustRender(t, c)
	wg := r.ClusterSpec().WorkerGroupSpecs[0]
	if wg.RayStartParams["object-store-memory"] != "1000000000" || wg.RayStartParams[ParamNumGPUs] != "8" {
		t.Errorf("start params %v", wg.RayStartParams)
	}
	// A patch that halves the limit is the GPU rules' error; one that
	// changes num-gpus alone is Ray's view's.
	c.WorkerGroups[0].Patch = "rayStartParams:\n  num-gpus: \"4\"\n"
	resolved := Resolve(c, true)
	rendertest.RequireNoErrors(t, resolved.Findings)
	_, diags = Render(resolved, workload.Options{})
	rendertest.RequireDiag(t, diags, errSev, "worker_group[0].patch", `num-gpus = "4", but its pod gets 8 GPUs`)
}

// MIG and DRA groups get num-gpus from the intent: KubeRay counts neither
// a DRA claim nor every resource name.
func TestNumGPUsMIGAndDRA(t *testing.T) {
	for _, tc := range goldenCases()[1:3] {
		r, _ := mustRender(t, tc.cluster)
		if got := r.ClusterSpec().WorkerGroupSpecs[0].RayStartParams[ParamNumGPUs]; got != itoa(tc.cluster.WorkerGroups[0].GPU.Count) {
			t.Errorf("%s: num-gpus %q", tc.name, got)
		}
	}
}

func TestReplicasAndNames(t *testing.T) {
	c := cpuHeadCluster()
	c.WorkerGroups[0].MinReplicas, c.WorkerGroups[0].MaxReplicas = rendertest.Ptr(int32(3)), rendertest.Ptr(int32(4))
	c.WorkerGroups[1].Name = "train"
	c.WorkerGroups = append(c.WorkerGroups, spec.RayGroup{Name: "Bad_Name", GPU: &spec.GPU{Count: 1}},
		spec.RayGroup{Name: "headgroup", GPU: &spec.GPU{Count: 1}})
	diags := Resolve(c, true).Findings
	rendertest.RequireDiag(t, diags, errSev, "worker_group[0].replicas", "outside [3, 4]")
	rendertest.RequireDiag(t, diags, errSev, "worker_group[1].name", "already the name of worker_group[0]")
	rendertest.RequireDiag(t, diags, errSev, "worker_group[2].name", "DNS-1123")
	rendertest.RequireDiag(t, diags, errSev, "worker_group[3].name", "names the head")

	c = cpuHeadCluster()
	c.WorkerGroups[0].MinReplicas, c.WorkerGroups[0].MaxReplicas = rendertest.Ptr(int32(5)), rendertest.Ptr(int32(2))
	rendertest.RequireDiag(t, Resolve(c, true).Findings, errSev, "worker_group[0].min_replicas", "min_replicas is 5 and max_replicas 2")

	c = cpuHeadCluster()
	c.Name = "9-" + strings.Repeat("x", 60)
	rendertest.RequireDiag(t, Resolve(c, true).Findings, errSev, "name", "DNS-1035")
}

func TestAutoscaling(t *testing.T) {
	c := cpuHeadCluster()
	c.Autoscaling = &spec.RayAutoscaling{}
	rendertest.RequireDiag(t, Resolve(c, true).Findings, errSev, "worker_group[0].max_replicas", "2147483647")
	c.Queue = "team-a"
	rendertest.RequireDiag(t, Resolve(c, true).Findings, errSev, "autoscaling", "elastic job")

}

// How many worker groups a queued cluster may have is Kueue's release's
// rule: 7 in v0.17, 9 in v0.18, 17 in v0.19; without a known release
// (validation) it is not judged.
func TestKueueWorkerGroupLimitByRelease(t *testing.T) {
	withGroups := func(n int, release string) spec.RayCluster {
		c := cpuHeadCluster()
		c.Queue = "team-a"
		for len(c.WorkerGroups) < n {
			c.WorkerGroups = append(c.WorkerGroups, spec.RayGroup{Name: "g" + itoa(int64(len(c.WorkerGroups))),
				GPU: &spec.GPU{Count: 1}, NodePool: pooled(poolL4)})
		}
		if release != "" {
			k := kueuever.FromSetting(release)
			c.Kueue = &k
		}
		return c
	}
	for _, tc := range []struct {
		release string
		most    int
	}{{"v0.17", 7}, {"v0.18", 9}, {"v0.19", 17}} {
		rendertest.RequireNoErrors(t, Resolve(withGroups(tc.most, tc.release), true).Findings)
		rendertest.RequireDiag(t, Resolve(withGroups(tc.most+1, tc.release), true).Findings, errSev, "worker_group",
			"more than "+itoa(int64(tc.most)))
	}
	if diags := Resolve(withGroups(12, ""), false).Findings; diags.HasError() {
		t.Errorf("12 groups refused without a known Kueue release: %v", diags)
	}
}

func TestJobRules(t *testing.T) {
	c := cpuHeadCluster()
	c.Job = &spec.RayJobControls{}
	rendertest.RequireDiag(t, Resolve(c, true).Findings, errSev, "job.entrypoint", "entrypoint")
	c.Job = &spec.RayJobControls{Entrypoint: "python x.py", ShutdownAfterJobFinishes: rendertest.Ptr(false),
		TTLSecondsAfterFinished: rendertest.Ptr(int32(60)), RuntimeEnvYAML: "[not a mapping"}
	diags := Resolve(c, true).Findings
	rendertest.RequireDiag(t, diags, errSev, "job.ttl_seconds_after_finished", "never deletes")
	rendertest.RequireDiag(t, diags, errSev, "job.runtime_env_yaml", "not a YAML mapping")
	c.Queue = "team-a"
	rendertest.RequireDiag(t, Resolve(c, true).Findings, errSev, "job.shutdown_after_job_finishes", "quota")
	c.Serve = &spec.RayServeControls{ConfigYAML: "applications: []"}
	rendertest.RequireDiag(t, Resolve(c, true).Findings, errSev, "serve", "not both")
}

// A group's gpu findings land on the group's block.
func TestGroupFindingsOnTheGroup(t *testing.T) {
	c := cpuHeadCluster()
	c.WorkerGroups[1].GPU = &spec.GPU{Count: 1, Accelerator: "h100-80gb"}
	diags := Resolve(c, true).Findings
	if !strings.Contains(rendertest.FormatDiags(diags), "worker_group[1].gpu.accelerator") {
		t.Fatalf("an H100 asked of an L4 pool is not reported on worker_group[1]: %s", rendertest.FormatDiags(diags))
	}
}

// Kueue counts each group as its own pod set; one no flavor covers is
// refused on its block, naming the pod set.
func TestCheckQueuePerGroup(t *testing.T) {
	q, diags := queue.Render(spec.Queue{Name: "team-a", Namespaces: []string{"ml"},
		Flavors: []spec.QueueFlavor{{Pool: poolH100, GPUs: 16}}})
	rendertest.RequireNoErrors(t, diags)
	c := cpuHeadCluster()
	c.Queue = "team-a"
	r, _ := mustRender(t, c)
	found := CheckQueue(q.Ref, r)
	rendertest.RequireDiag(t, found, errSev, "worker_group[1]", `Pod set "serve" (3 pods)`)
	if _, ok := rendertest.FindDiag(found, errSev, "worker_group[0]", ""); ok {
		t.Errorf("16 H100s on a quota of 16 refused: %v", found)
	}
	if _, ok := rendertest.FindDiag(found, errSev, "head", ""); ok {
		t.Errorf("the CPU head refused: %v", found)
	}
	c.WorkerGroups[0].Replicas = rendertest.Ptr(int32(3))
	r, _ = mustRender(t, c)
	rendertest.RequireDiag(t, CheckQueue(q.Ref, r), errSev, "worker_group[0]", "24 nvidia.com/gpu")
}

// The objects use only fields KubeRay v1.5.0 has: the Go types are
// v1.6.0's (Kueue's module requires it), whose additions must stay unset.
func TestOnlyV15Fields(t *testing.T) {
	for _, tc := range goldenCases() {
		r, _ := mustRender(t, tc.cluster)
		s := r.ClusterSpec()
		if s.UpgradeStrategy != nil || s.AuthOptions != nil {
			t.Errorf("%s: a v1.6 RayCluster field is set", tc.name)
		}
		if r.Job != nil && r.Job.Spec.PreRunningDeadlineSeconds != nil {
			t.Errorf("%s: v1.6 preRunningDeadlineSeconds is set", tc.name)
		}
		if r.Service != nil && r.Service.Spec.ManagedBy != nil {
			t.Errorf("%s: v1.6 RayService managedBy is set", tc.name)
		}
	}
}

// A worker group's topology keeps that group's pods, and only them, in one
// domain: pod affinity to the group's own pods without a queue, Kueue's
// pod-set annotation in one (Kueue judges each group as a pod set). A
// level the pool does not have fails on the group's block.
func TestGroupTopology(t *testing.T) {
	const layer3 = "topology.k8s.aws/network-node-layer-3"
	c := cpuHeadCluster()
	c.WorkerGroups[0].Topology = &spec.WorkloadTopology{Level: "layer-3"}
	r, _ := mustRender(t, c)
	train, serve := r.ClusterSpec().WorkerGroupSpecs[0].Template, r.ClusterSpec().WorkerGroupSpecs[1].Template
	a := train.Spec.Affinity
	if a == nil || a.PodAffinity == nil || len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("train group without required pod affinity: %+v", a)
	}
	term := a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	if term.TopologyKey != layer3 || term.LabelSelector.MatchLabels[spec.LabelInstance] != "llm-train" {
		t.Errorf("train group's affinity term %+v, want %s over the group's own pods (instance llm-train)", term, layer3)
	}
	if sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector); err != nil || !sel.Matches(labels.Set(train.Labels)) {
		t.Errorf("the affinity term does not select the group's own pods %v", train.Labels)
	}
	if serve.Spec.Affinity != nil && serve.Spec.Affinity.PodAffinity != nil {
		t.Errorf("the serve group, without topology, got pod affinity: %+v", serve.Spec.Affinity.PodAffinity)
	}

	c.Queue = "team-a"
	c.WorkerGroups[0].NodePool.Topology = &spec.PoolTopology{} // the cloud's levels, so its flavor has a Topology
	r, _ = mustRender(t, c)
	train = r.ClusterSpec().WorkerGroupSpecs[0].Template
	if got := train.Annotations["kueue.x-k8s.io/podset-required-topology"]; got != layer3 {
		t.Errorf("queued train group's pod-set topology annotation %q, want %s", got, layer3)
	}
	if train.Spec.Affinity != nil && train.Spec.Affinity.PodAffinity != nil {
		t.Errorf("a queued group got pod affinity as well as Kueue's annotation: %+v", train.Spec.Affinity.PodAffinity)
	}

	c.Queue = ""
	c.WorkerGroups[1].Topology = &spec.WorkloadTopology{Level: "rack"}
	resolved := Resolve(c, true)
	rendertest.RequireDiag(t, resolved.Findings, errSev, "worker_group[1].topology.level", "not one of")
}

// A worker group on an NVL72 pool with nvlink_domain gets a ComputeDomain
// of its own, <cluster>-<group>, applied before the Ray object, and its
// pods claim the channel the driver's controller creates.
func TestGroupNVLinkDomain(t *testing.T) {
	nvl72 := spec.PoolPolicy{Name: "nvl72", Cloud: "generic", Accelerator: "gb200", GPUsPerNode: 4,
		Topology: &spec.PoolTopology{Levels: []string{"clique", "node"}, NodesPerDomain: map[string]int64{"clique": 4}}}
	c := cpuHeadCluster()
	c.Cloud = "generic"
	c.WorkerGroups = []spec.RayGroup{{Name: "train", NodePool: &nvl72, GPU: &spec.GPU{Count: 4}, Replicas: rendertest.Ptr(int32(4)),
		Topology: &spec.WorkloadTopology{Level: "clique", NVLinkDomain: true}}}
	r, _ := mustRender(t, c)
	if len(r.Objects) != 2 || r.Objects[0].GetObjectKind().GroupVersionKind().Kind != "ComputeDomain" {
		t.Fatalf("objects %d, want the group's ComputeDomain then the RayCluster", len(r.Objects))
	}
	if name := r.Objects[0].GetName(); name != "llm-train" {
		t.Errorf("ComputeDomain %q, want llm-train", name)
	}
	pod := r.ClusterSpec().WorkerGroupSpecs[0].Template.Spec
	if len(pod.ResourceClaims) != 1 || *pod.ResourceClaims[0].ResourceClaimTemplateName != "llm-train-channel" {
		t.Errorf("the group's pods claim %+v, want the llm-train-channel template", pod.ResourceClaims)
	}
	if claims := pod.Containers[0].Resources.Claims; len(claims) != 1 || claims[0].Name != "channel" {
		t.Errorf("the Ray container uses claims %+v, want channel", claims)
	}
}
