package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

func newClient(kubeconfig string) (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = "gpu-bench-driver"
	return kubernetes.NewForConfig(cfg)
}

func selector(id string) string { return spec.LabelKey + "=" + id }

// createNodes creates count kwok nodes that the benchmark workload fits on:
// the labels and taints its rendered placement asks for (so they follow the
// pool and the catalog), DGX H100 capacity with spec.GPUsPerNode GPUs, and
// the run's label. It waits until they are Ready.
func createNodes(ctx context.Context, cs kubernetes.Interface, id string, count int) ([]string, error) {
	sample, err := spec.Render("probe", "default", spec.PoolRef(id), nil)
	if err != nil {
		return nil, err
	}
	pod := sample.PodTemplate().Spec
	labels := map[string]string{}
	for k, v := range pod.NodeSelector {
		labels[k] = v
	}
	if a := pod.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms; len(terms) > 0 {
			for _, e := range terms[0].MatchExpressions {
				if e.Operator == corev1.NodeSelectorOpIn && len(e.Values) > 0 {
					labels[e.Key] = e.Values[0]
				}
			}
		}
	}
	var taints []corev1.Taint
	for _, t := range pod.Tolerations {
		effect := t.Effect
		if effect == "" {
			effect = corev1.TaintEffectNoSchedule
		}
		taints = append(taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: effect})
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:                       resource.MustParse("224"),
		corev1.ResourceMemory:                    resource.MustParse("2Ti"),
		corev1.ResourcePods:                      resource.MustParse("110"),
		corev1.ResourceName(sample.ResourceName): *resource.NewQuantity(spec.GPUsPerNode, resource.DecimalSI),
	}
	names := make([]string, count)
	for i := range names {
		names[i] = fmt.Sprintf("bench-%s-%d", id, i)
	}
	err = spec.InParallel(ctx, count, 10, func(i int) error {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        names[i],
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
				Labels: map[string]string{
					"kubernetes.io/hostname": names[i], "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
					"beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
					"node.kubernetes.io/instance-type": "dgx-h100", spec.LabelKey: id,
				},
			},
			Spec:   corev1.NodeSpec{Taints: taints},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		for k, v := range labels {
			node.Labels[k] = v
		}
		_, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		return names, fmt.Errorf("creating nodes: %w", err)
	}
	return names, waitNodesReady(ctx, cs, selector(id), count)
}

// waitNodesReady waits until kwok reports the count nodes of the label
// selector sel Ready and the node lifecycle controller has removed its
// not-ready taint (the scheduler refuses pods until then).
func waitNodesReady(ctx context.Context, cs kubernetes.Interface, sel string, count int) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for {
		list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel})
		ready := 0
		if err == nil {
			for i := range list.Items {
				if nodeReady(&list.Items[i]) {
					ready++
				}
			}
			if ready >= count {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d bench nodes Ready (is kwok running?): %v", ready, count, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func nodeReady(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
			return false
		}
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func createNamespace(ctx context.Context, cs kubernetes.Interface, id, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{spec.LabelKey: id}}}
	_, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	return err
}

func deleteNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	err := cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// deleteNamespaceAndWait also waits (up to two minutes) until the namespace
// controller is done with it: its sweep lists and deletes every resource
// type, which would otherwise land in the next measurement's request counts.
func deleteNamespaceAndWait(ctx context.Context, cs kubernetes.Interface, name string) error {
	if err := deleteNamespace(ctx, cs, name); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		_, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("namespace %s still terminating: %w", name, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// cleanup removes everything labelled with the run id: namespaces first,
// waiting until they are gone (their pods run on the bench nodes and kwok
// finishes their deletion), then the nodes. The pods labelled with the run
// id (the large-cluster scenario's, thousands of them, bound to its nodes)
// are deleted with a zero grace period once their namespace is
// terminating, so that nothing recreates them and the namespace controller
// does not wait for kwok to finish each one. Safe to call repeatedly.
func cleanup(ctx context.Context, cs kubernetes.Interface, id string) error {
	start := time.Now()
	sel := metav1.ListOptions{LabelSelector: selector(id)}
	namespaces, err := cs.CoreV1().Namespaces().List(ctx, sel)
	if err != nil {
		return err
	}
	for _, ns := range namespaces.Items {
		if err := deleteNamespace(ctx, cs, ns.Name); err != nil {
			return err
		}
	}
	zero := int64(0)
	for _, ns := range namespaces.Items {
		// Only a shortcut: the namespace controller deletes them anyway, so a
		// failure (one call for 1,000 pods can outlive the API server's
		// request timeout on 2 busy cores, while the server goes on) is
		// only reported.
		err := cs.CoreV1().Pods(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, sel)
		if err != nil && !apierrors.IsNotFound(err) {
			logf("cleanup: force-deleting the pods of %s: %v (waiting for the namespace anyway)\n", ns.Name, err)
		}
	}
	if len(namespaces.Items) > 0 {
		deadline := time.Now().Add(5 * time.Minute)
		for time.Now().Before(deadline) {
			left, err := cs.CoreV1().Namespaces().List(ctx, sel)
			if err != nil || len(left.Items) == 0 {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	// The DRA nodes' slices go first: the garbage collector would delete
	// them with their nodes, but only after it noticed.
	sliceCount, err := deleteDRASlices(ctx, cs, id)
	if err != nil {
		return fmt.Errorf("deleting the run's ResourceSlices: %w", err)
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: selector(id), ResourceVersion: "0"})
	if err != nil {
		return err
	}
	// One request per node, 32 in flight: the large-cluster scenario has
	// thousands, and one DeleteCollection of 5,000 nodes outlived the API
	// server's request timeout on 2 busy cores.
	err = spec.InParallel(ctx, len(nodes.Items), 32, func(i int) error {
		err := cs.CoreV1().Nodes().Delete(ctx, nodes.Items[i].Name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	// The DRA pool's DeviceClass (dra.go, setupDRA).
	if err := cs.ResourceV1().DeviceClasses().DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the run's DeviceClass: %w", err)
	}
	logf("cleanup: removed %d namespace(s), %d ResourceSlice(s) and %d node(s) labelled %s (%.0f s)\n", len(namespaces.Items),
		sliceCount, len(nodes.Items), selector(id), time.Since(start).Seconds())
	return nil
}

// requestKey is one row of the request breakdown.
type requestKey struct{ Verb, Resource string }

func (k requestKey) String() string { return k.Verb + " " + k.Resource }

// MarshalText makes requestKey usable as a JSON object key.
func (k requestKey) MarshalText() ([]byte, error) { //nolint:unparam // the signature of encoding.TextMarshaler
	return []byte(k.String()), nil
}

// UnmarshalText reads a key written by MarshalText ("VERB resource"), so
// results.json can be read back.
func (k *requestKey) UnmarshalText(text []byte) error {
	var ok bool
	if k.Verb, k.Resource, ok = strings.Cut(string(text), " "); !ok {
		return fmt.Errorf("request key %q is not \"VERB resource\"", text)
	}
	return nil
}

// nonResource names requests without a resource (/version, /api, /metrics).
const nonResource = "(non-resource)"

// scrapeRequests reads apiserver_request_total from the API server's
// /metrics with the admin credentials, summed over code, scope, group,
// version and component.
func scrapeRequests(ctx context.Context, cs kubernetes.Interface) (map[requestKey]float64, error) {
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading /metrics: %w", err)
	}
	return parseRequests(string(raw)), nil
}

func parseRequests(text string) map[requestKey]float64 {
	const metric = "apiserver_request_total{"
	out := map[requestKey]float64{}
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, metric) {
			continue
		}
		end := strings.LastIndexByte(line, '}')
		if end < 0 {
			continue
		}
		value, err := strconv.ParseFloat(strings.TrimSpace(line[end+1:]), 64)
		if err != nil {
			continue
		}
		labels := parseLabels(line[len(metric):end])
		res := labels["resource"]
		if res == "" {
			res = nonResource
		} else if sub := labels["subresource"]; sub != "" {
			res += "/" + sub
		}
		out[requestKey{Verb: labels["verb"], Resource: res}] += value
	}
	return out
}

// parseLabels reads `a="x",b="y"` (Prometheus text format; values may
// contain escaped quotes).
func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			break
		}
		key := strings.TrimLeft(s[:eq], ", ")
		i := eq + 2
		var b strings.Builder
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' && i+1 < len(s) {
				i++
			}
			b.WriteByte(s[i])
			i++
		}
		out[key] = b.String()
		if i >= len(s) {
			break
		}
		s = s[i+1:]
	}
	return out
}

func delta(before, after map[requestKey]float64) map[requestKey]float64 {
	out := map[requestKey]float64{}
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k] = math.Round(d)
		}
	}
	return out
}

// providerResources are what gpu_workload reads and writes.
var providerResources = []string{"deployments", "jobs", "pods", "persistentvolumeclaims", "resourceclaimtemplates", nonResource}

func touchedByProvider(resource string) bool {
	base, _, _ := strings.Cut(resource, "/")
	for _, r := range providerResources {
		if base == r {
			return true
		}
	}
	return false
}

func sortedKeys(sets ...map[requestKey]float64) []requestKey {
	seen := map[requestKey]bool{}
	var keys []requestKey
	for _, set := range sets {
		for k := range set {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Resource != keys[j].Resource {
			return keys[i].Resource < keys[j].Resource
		}
		return keys[i].Verb < keys[j].Verb
	})
	return keys
}
