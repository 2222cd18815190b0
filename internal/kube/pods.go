package kube

import (
	"context"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

var podsGVR = corev1.SchemeGroupVersion.WithResource("pods")

// cachedPods returns the watch cache of the provider's pods in a namespace.
func (c *Client) cachedPods(ctx context.Context, namespace string) (*cacheEntry, bool) {
	return c.cache.entry(ctx, podsGVR, namespace)
}

// listPods lists a workload's pods, from the watch cache when it can serve.
func (c *Client) listPods(ctx context.Context, namespace, selector string) ([]corev1.Pod, error) {
	if parsed, err := labels.Parse(selector); err == nil && c.cache.holdsAll(selector) {
		if e, ok := c.cachedPods(ctx, namespace); ok {
			return podsIn(e, namespace, parsed), nil
		}
	}
	pods, err := c.Typed.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	return pods.Items, nil
}

// podsIn converts the cached pods of a namespace that match the selector.
func podsIn(e *cacheEntry, namespace string, selector labels.Selector) []corev1.Pod {
	var out []corev1.Pod
	for _, u := range e.list(selector) {
		var pod corev1.Pod
		if u.GetNamespace() != namespace ||
			runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pod) != nil {
			continue
		}
		out = append(out, pod)
	}
	return out
}

// allRunning reports whether there are pods and every one runs or is done.
func allRunning(pods []corev1.Pod) bool {
	if len(pods) == 0 {
		return false
	}
	for _, p := range pods {
		if p.Status.Phase != corev1.PodRunning && p.Status.Phase != corev1.PodSucceeded {
			return false
		}
	}
	return true
}

// PodProblems lists the pods that are not running, with the scheduler's or
// kubelet's own reason.
func (c *Client) PodProblems(ctx context.Context, namespace, selector string) ([]PodProblem, error) {
	pods, err := c.listPods(ctx, namespace, selector)
	if err != nil {
		return nil, err
	}
	var out []PodProblem
	for i := range pods {
		if p, ok := podProblem(&pods[i]); ok {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out, nil
}

func podProblem(pod *corev1.Pod) (PodProblem, bool) {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
			return PodProblem{Pod: pod.Name, Reason: cond.Reason, Message: cond.Message, Labels: pod.Labels}, true
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
			return PodProblem{Pod: pod.Name, Reason: w.Reason, Message: w.Message, Labels: pod.Labels}, true
		}
	}
	if pod.Status.Phase == corev1.PodFailed {
		return PodProblem{Pod: pod.Name, Reason: "Failed", Message: pod.Status.Message, Labels: pod.Labels}, true
	}
	return PodProblem{}, false
}

// scheduledNodesTimeout bounds ScheduledNodes: two lists at most, so a
// server that does not answer in this time is not answering.
const scheduledNodesTimeout = 30 * time.Second

// ScheduledNodes lists the distinct nodes the selected pods run on. The
// pod watch and the workload watch are separate streams, so right after a
// rollout the cache may not have seen a pod yet; an empty answer is
// therefore checked with the server. It reads what is there and never
// waits, so it gets a deadline of its own: callers pass contexts without one
// (an apply records the nodes even when Terraform is interrupted).
func (c *Client) ScheduledNodes(ctx context.Context, namespace, selector string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, scheduledNodesTimeout)
	defer cancel()
	pods, err := c.listPods(ctx, namespace, selector)
	if err == nil && len(nodesOf(pods)) == 0 {
		var list *corev1.PodList
		list, err = c.Typed.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err == nil {
			pods = list.Items
		}
	}
	if err != nil {
		return nil, err
	}
	return nodesOf(pods), nil
}

func nodesOf(pods []corev1.Pod) []string {
	seen := map[string]bool{}
	var nodes []string
	for _, p := range pods {
		if n := p.Spec.NodeName; n != "" && !seen[n] {
			seen[n] = true
			nodes = append(nodes, n)
		}
	}
	sort.Strings(nodes)
	return nodes
}
