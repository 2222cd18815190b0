package kube

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The local cluster's topology pools (scripts/localcluster/fixtures/
// topology.yaml, docs/design/topology.md) under the real Kueue v0.17.0 and
// its Topology Aware Scheduling: the GKE pool gke-h100-tas is 2 blocks x 2
// sub-blocks x 2 hosts of 8 H100s. These tests hold the fixtures to what
// Kueue does with their labels, with objects written by hand (the provider
// does not render topology yet, issue #33).

const (
	tasBlockLabel    = "cloud.google.com/gce-topology-block"
	tasSubblockLabel = "cloud.google.com/gce-topology-subblock"
	tasHostnameLabel = "kubernetes.io/hostname"
	// tasNodePool is the GKE node pool of the fixture pool gke-h100-tas, as
	// GKE labels its nodes (cloud.google.com/gke-nodepool).
	tasNodePoolLabel = "cloud.google.com/gke-nodepool"
	tasNodePool      = "h100-tas-pool"
	tasFixturePool   = "gke-h100-tas"
)

var (
	gvrTopology       = kueue.GroupVersion.WithResource("topologies")
	gvrResourceFlavor = kueue.GroupVersion.WithResource("resourceflavors")
	gvrClusterQueue   = kueue.GroupVersion.WithResource("clusterqueues")
	gvrLocalQueue     = kueue.GroupVersion.WithResource("localqueues")
	gvrWorkload       = kueue.GroupVersion.WithResource("workloads")
)

// A Job of 2 pods x 8 GPUs that requires one block is admitted, and both pods
// run on nodes of one block; a Job of 3 x 8 that requires one sub-block (2
// hosts, 16 GPUs) never fits and stays pending with Kueue's reason, which
// names the topology.
func TestAccTopologyPools_gkeBlockRequiredByKueue(t *testing.T) {
	cs, dyn, ns := tasPrecheck(t)
	q := tasQueue(t, cs, dyn, ns, []string{tasBlockLabel, tasSubblockLabel, tasHostnameLabel})

	t.Run("two pods in one block", func(t *testing.T) {
		job := tasJob(t, cs, ns, "one-block", q.localQueue, 2, 8, map[string]string{kueue.PodSetRequiredTopologyAnnotation: tasBlockLabel})
		pods := tasWaitPodsPlaced(t, cs, ns, job.Name, 2)
		blocks := map[string][]string{}
		for _, p := range pods {
			node, err := cs.CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("node %s of pod %s: %v", p.Spec.NodeName, p.Name, err)
			}
			if pool := node.Labels[draPoolLabel]; pool != tasFixturePool {
				t.Errorf("pod %s runs on %s of pool %q, want pool %s", p.Name, node.Name, pool, tasFixturePool)
			}
			b := node.Labels[tasBlockLabel]
			blocks[b] = append(blocks[b], node.Name+" (sub-block "+node.Labels[tasSubblockLabel]+")")
		}
		if len(blocks) != 1 {
			t.Errorf("the pods run in %d blocks, want 1: %v", len(blocks), blocks)
		}
		t.Logf("placed by Kueue: %v", blocks)
	})

	t.Run("three pods never fit one sub-block", func(t *testing.T) {
		job := tasJob(t, cs, ns, "one-subblock", q.localQueue, 3, 8, map[string]string{kueue.PodSetRequiredTopologyAnnotation: tasSubblockLabel})
		msg := tasWaitPending(t, dyn, ns, job)
		want := regexp.MustCompile(`topology "` + regexp.QuoteMeta(q.topology) + `" (allows to fit only [0-2] out of 3|doesn't allow to fit any of 3) pod\(s\)`)
		if !want.MatchString(msg) {
			t.Errorf("Kueue's reason does not name the topology's fit: %q, want a match of %s", msg, want)
		}
		t.Logf("Kueue: %s", msg)
		pods, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + job.Name})
		if err != nil {
			t.Fatal(err)
		}
		if len(pods.Items) != 0 {
			t.Errorf("the pending Job has %d pods, want none (Kueue keeps it suspended)", len(pods.Items))
		}
	})
}

// tasPrecheck finds the cluster, Kueue and the topology pool: 8 nodes of 8
// GPUs in 2 blocks of 2 sub-blocks.
func tasPrecheck(t *testing.T) (kubernetes.Interface, dynamic.Interface, string) {
	t.Helper()
	cs := acctest.Client(t)
	acctest.RequireKueue(t)
	dyn, err := dynamic.NewForConfig(acctest.RESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: tasNodePoolLabel + "=" + tasNodePool})
	if err != nil {
		t.Fatalf("listing the nodes of GKE node pool %s: %v", tasNodePool, err)
	}
	blocks, subblocks := map[string]bool{}, map[string]bool{}
	for _, n := range nodes.Items {
		gpus := n.Status.Allocatable[corev1.ResourceName("nvidia.com/gpu")]
		if gpus.Value() != 8 || n.Labels[tasBlockLabel] == "" || n.Labels[tasSubblockLabel] == "" {
			t.Fatalf("node %s of pool %s: %s nvidia.com/gpu, block %q, sub-block %q; want 8 GPUs and both labels",
				n.Name, tasNodePool, gpus.String(), n.Labels[tasBlockLabel], n.Labels[tasSubblockLabel])
		}
		blocks[n.Labels[tasBlockLabel]] = true
		subblocks[n.Labels[tasSubblockLabel]] = true
	}
	if len(nodes.Items) != 8 || len(blocks) != 2 || len(subblocks) != 4 {
		t.Fatalf("GKE node pool %s has %d nodes in %d blocks and %d sub-blocks, want 8, 2 and 4: the cluster lacks the topology pools "+
			"(scripts/localcluster/fixtures/topology.yaml; `scripts/localcluster/cluster.sh fixtures` applies them)",
			tasNodePool, len(nodes.Items), len(blocks), len(subblocks))
	}
	return cs, dyn, acctest.Namespace(t)
}

type tasQueueNames struct {
	topology, flavor, clusterQueue, localQueue string
}

// tasQueue creates a Topology of levels, a ResourceFlavor of the GKE topology
// pool with that topology, a ClusterQueue of 64 GPUs of it for ns only and a
// LocalQueue in ns; they are deleted, and waited for, when the test ends.
func tasQueue(t *testing.T, cs kubernetes.Interface, dyn dynamic.Interface, ns string, levels []string) tasQueueNames {
	t.Helper()
	name := "tas-" + rand.String(6)
	q := tasQueueNames{topology: name, flavor: name, clusterQueue: name, localQueue: "team"}
	topo := &kueue.Topology{ObjectMeta: metav1.ObjectMeta{Name: q.topology}}
	for _, l := range levels {
		topo.Spec.Levels = append(topo.Spec.Levels, kueue.TopologyLevel{NodeLabel: l})
	}
	rf := &kueue.ResourceFlavor{
		ObjectMeta: metav1.ObjectMeta{Name: q.flavor},
		Spec: kueue.ResourceFlavorSpec{
			NodeLabels:   map[string]string{tasNodePoolLabel: tasNodePool},
			TopologyName: ptr.To(kueue.TopologyReference(q.topology)),
		},
	}
	cq := &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: q.clusterQueue},
		Spec: kueue.ClusterQueueSpec{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			ResourceGroups: []kueue.ResourceGroup{{
				CoveredResources: []corev1.ResourceName{"nvidia.com/gpu"},
				Flavors: []kueue.FlavorQuotas{{
					Name:      kueue.ResourceFlavorReference(q.flavor),
					Resources: []kueue.ResourceQuota{{Name: "nvidia.com/gpu", NominalQuota: resource.MustParse("64")}},
				}},
			}},
		},
	}
	lq := &kueue.LocalQueue{
		ObjectMeta: metav1.ObjectMeta{Name: q.localQueue, Namespace: ns},
		Spec:       kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(q.clusterQueue)},
	}
	created := []struct {
		gvr        schema.GroupVersionResource
		ns, name   string
		obj        any
		createdYet bool
	}{
		{gvrTopology, "", q.topology, topo, false},
		{gvrResourceFlavor, "", q.flavor, rf, false},
		{gvrClusterQueue, "", q.clusterQueue, cq, false},
		{gvrLocalQueue, ns, q.localQueue, lq, false},
	}
	// Registered before the creates, so a failed create still deletes what
	// exists. Jobs go first (their Workloads hold the queues), then the
	// queues, the flavor and the topology, each waited for: Kueue's
	// finalizers keep a ClusterQueue or flavor while something uses it.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		err := cs.BatchV1().Jobs(ns).DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}, metav1.ListOptions{})
		if err != nil {
			t.Errorf("deleting the Jobs of %s: %v", ns, err)
		}
		for i := len(created) - 1; i >= 0; i-- {
			c := created[i]
			if !c.createdYet {
				continue
			}
			if err := tasDeleteAndWait(ctx, dyn, c.gvr, c.ns, c.name); err != nil {
				t.Errorf("cleaning up: %v", err)
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range created {
		c := &created[i]
		raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c.obj)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: raw}
		u.SetAPIVersion(kueue.GroupVersion.String())
		u.SetKind(tasKind(c.gvr))
		if _, err := dyn.Resource(c.gvr).Namespace(c.ns).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s %s: %v", u.GetKind(), c.name, err)
		}
		c.createdYet = true
	}
	// Kueue marks the ClusterQueue active once its flavor and the flavor's
	// topology are known; a Job created before that would wait anyway, but
	// the wait makes a broken setup fail here and say so.
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		u, err := dyn.Resource(gvrClusterQueue).Get(ctx, q.clusterQueue, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return tasCondition(u, "Active") == "True", nil
	})
	if err != nil {
		u, _ := dyn.Resource(gvrClusterQueue).Get(context.Background(), q.clusterQueue, metav1.GetOptions{})
		t.Fatalf("ClusterQueue %s did not become Active: %v (%s)", q.clusterQueue, err, tasConditionText(u, "Active"))
	}
	return q
}

func tasKind(gvr schema.GroupVersionResource) string {
	switch gvr {
	case gvrTopology:
		return "Topology"
	case gvrResourceFlavor:
		return "ResourceFlavor"
	case gvrClusterQueue:
		return "ClusterQueue"
	case gvrLocalQueue:
		return "LocalQueue"
	}
	return ""
}

// tasDeleteAndWait deletes one object and waits until it is gone.
func tasDeleteAndWait(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string) error {
	ri := dyn.Resource(gvr).Namespace(ns)
	if err := ri.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s %s: %w", gvr.Resource, name, err)
	}
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := ri.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return fmt.Errorf("%s %s is not gone: %w", gvr.Resource, name, err)
	}
	return nil
}

// tasJob creates an Indexed Job of pods x gpus in localQueue whose pod
// template carries annotations; its pods tolerate GKE's GPU taint and select
// nothing themselves (Kueue adds the flavor's node labels and the topology
// assignment when it admits the Job).
func tasJob(t *testing.T, cs kubernetes.Interface, ns, name, localQueue string, pods int32, gpus int64, annotations map[string]string) *batchv1.Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q := *resource.NewQuantity(gpus, resource.DecimalSI)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"kueue.x-k8s.io/queue-name": localQueue}},
		Spec: batchv1.JobSpec{
			Parallelism:    ptr.To(pods),
			Completions:    ptr.To(pods),
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			BackoffLimit:   ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name: "train", Image: "registry.example/train:1",
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{"nvidia.com/gpu": q},
							Limits:   corev1.ResourceList{"nvidia.com/gpu": q},
						},
					}},
					Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
				},
			},
		},
	}
	created, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Job %s: %v", name, err)
	}
	return created
}

// tasWaitPodsPlaced waits until the Job has n pods bound to nodes.
func tasWaitPodsPlaced(t *testing.T, cs kubernetes.Interface, ns, job string, n int) []corev1.Pod {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var placed []corev1.Pod
	var seen []string
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + job})
		if err != nil {
			return false, err
		}
		placed, seen = placed[:0], seen[:0]
		for _, p := range pods.Items {
			seen = append(seen, fmt.Sprintf("%s phase %s node %q gates %d", p.Name, p.Status.Phase, p.Spec.NodeName, len(p.Spec.SchedulingGates)))
			if p.Spec.NodeName != "" {
				placed = append(placed, p)
			}
		}
		return len(placed) == n, nil
	})
	if err != nil {
		t.Fatalf("Job %s: %d of %d pods placed: %v (pods: %s)", job, len(placed), n, err, strings.Join(seen, "; "))
	}
	return placed
}

// tasWaitPending waits until the Job's Workload is refused quota
// (QuotaReserved=False, reason Pending) and returns Kueue's message.
func tasWaitPending(t *testing.T, dyn dynamic.Interface, ns string, job *batchv1.Job) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var msg, last string
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		list, err := dyn.Resource(gvrWorkload).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: "kueue.x-k8s.io/job-uid=" + string(job.UID)})
		if err != nil {
			return false, err
		}
		for i := range list.Items {
			w := &list.Items[i]
			last = w.GetName() + ": " + tasConditionText(w, "QuotaReserved")
			if tasCondition(w, "Admitted") == "True" {
				return false, fmt.Errorf("workload %s was admitted", w.GetName())
			}
			status, reason, message := tasConditionParts(w, "QuotaReserved")
			if status == "False" && reason == "Pending" && strings.Contains(message, "topology") {
				msg = message
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("Job %s was not reported pending for its topology: %v (last: %s)", job.Name, err, last)
	}
	return msg
}

func tasConditionParts(u *unstructured.Unstructured, typ string) (status, reason, message string) {
	if u == nil {
		return "", "", ""
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		s, _ := m["status"].(string)
		r, _ := m["reason"].(string)
		msg, _ := m["message"].(string)
		return s, r, msg
	}
	return "", "", ""
}

func tasCondition(u *unstructured.Unstructured, typ string) string {
	s, _, _ := tasConditionParts(u, typ)
	return s
}

func tasConditionText(u *unstructured.Unstructured, typ string) string {
	s, r, m := tasConditionParts(u, typ)
	if s == "" {
		return typ + " not reported"
	}
	return fmt.Sprintf("%s=%s reason %s: %s", typ, s, r, m)
}
