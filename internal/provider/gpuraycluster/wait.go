package gpuraycluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/clustercapacity"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/ray"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// waitCluster waits as wait_for says, on the machinery gpu_workload's
// waits run on: kube.WaitReady judges a Ray object by KubeRay's status
// (kube.judgeRay) and follows its pods for the scheduler's refusals;
// admission is Kueue's Workload of the Ray object.
func waitCluster(ctx context.Context, client *kube.Client, m clusterModel, rendered *ray.Rendered, main *unstructured.Unstructured) error {
	target, err := kube.TargetOf(main)
	if err != nil {
		return err
	}
	mode := waitMode(m)
	if mode == kube.WaitAdmitted {
		return client.WaitAdmitted(ctx, target.Ref, main.GetUID(), "", 1)
	}
	return client.WaitReady(ctx, target, mode, podSelector(rendered), m.UnschedulableTimeout())
}

// reportWait reports a wait that ended without success. A cluster Kueue
// still holds (or preempted back into its queue) is a warning with Kueue's
// reason: it stays in the state and runs when admitted, like a queued
// gpu_workload. Anything else is an error with what the scheduler and
// KubeRay said, and what each group asked for.
func reportWait(ctx context.Context, client *kube.Client, data *resourcekit.Data, m clusterModel, rendered *ray.Rendered,
	main *unstructured.Unstructured, waitErr error, diags *diag.Diagnostics) {
	ref, _ := kube.RefOf(main)
	if name := queueName(rendered); name != "" {
		statuses, err := queueStatuses(ctx, client, rendered, main.GetUID())
		if err == nil && slices.ContainsFunc(statuses, queue.Status.Waiting) {
			resourcekit.QueuedWarning(ref, name, statuses, func() kueuever.Known { return data.Kueue(ctx) }, diags)
			return
		}
		if err == nil && waitMode(m) == kube.WaitAdmitted && queue.AllAdmitted(statuses) {
			return // admitted just as the wait ended
		}
	}
	summary := fmt.Sprintf("gpu_ray_cluster %s did not become ready", ref)
	if !errors.As(waitErr, new(*kube.NotReadyError)) {
		summary = fmt.Sprintf("Waiting for gpu_ray_cluster %s failed", ref)
	}
	diags.AddError(summary, waitErr.Error()+describeStatus(ctx, client, ref)+describeGroups(rendered)+
		explainRefusedGroups(ctx, client, rendered, waitErr))
}

// explainRefusedGroups says, for each group with GPUs whose pods the
// scheduler refused, which of the cluster's GPU pools could take them and
// why the others cannot (gpu_workload's explanation, per group). A group's
// pods are told apart by the instance label the render gives them.
func explainRefusedGroups(ctx context.Context, client *kube.Client, rendered *ray.Rendered, waitErr error) string {
	var notReady *kube.NotReadyError
	if !errors.As(waitErr, &notReady) || !notReady.Unschedulable() {
		return ""
	}
	var b strings.Builder
	for _, g := range rendered.Groups {
		refused := refusedPods(notReady.Pods, g.Pod.Pod.Labels[spec.LabelInstance])
		if refused == 0 || g.GPUs == 0 || g.Pod.Rendered == nil {
			continue
		}
		fmt.Fprintf(&b, "\n\nGroup %s (%d pod(s) refused):\n", g.Name, refused)
		b.WriteString(clustercapacity.ExplainPools(ctx, client, clustercapacity.AskOf(g.Pod.Rendered, &g.Pod.Pod.Spec)))
	}
	return b.String()
}

// refusedPods counts the pods of instance the scheduler refused.
func refusedPods(pods []kube.PodProblem, instance string) int {
	n := 0
	for _, p := range pods {
		if p.Reason == corev1.PodReasonUnschedulable && instance != "" && p.Labels[spec.LabelInstance] == instance {
			n++
		}
	}
	return n
}

// describeStatus is KubeRay's status of the object as the wait left it.
func describeStatus(ctx context.Context, client *kube.Client, ref kube.ObjectRef) string {
	live, err := client.GetFresh(ctx, ref)
	if err != nil || live == nil {
		return ""
	}
	status := kube.DescribeRayStatus(live, ref.GVK.Kind)
	if status == "" {
		status = "(none yet: the operator has not reported on it; is KubeRay running?)"
	}
	return "\n\nKubeRay's status: " + status
}

// describeGroups lists what each group's pods ask for, to compare with
// the node pools the scheduler refused them on.
func describeGroups(rendered *ray.Rendered) string {
	var b strings.Builder
	b.WriteString("\n\nThe groups asked for:")
	for _, g := range rendered.Groups {
		fmt.Fprintf(&b, "\n  %s: %d GPUs", g.Name, g.GPUs)
		if g.ResourceName != "" {
			fmt.Fprintf(&b, " of %s", g.ResourceName)
		}
		if g.DRA {
			b.WriteString(" through a DRA claim")
		}
		selector := g.Pod.Pod.Spec.NodeSelector
		for _, k := range slices.Sorted(maps.Keys(selector)) {
			fmt.Fprintf(&b, ", node label %s=%s", k, selector[k])
		}
	}
	b.WriteString("\n\nCheck that a node pool carries these labels and has these GPUs free; raise the timeout if " +
		"nodes are still being provisioned.")
	return b.String()
}

// liveStatus is KubeRay's status of the Ray object now, "" when unread.
func liveStatus(ctx context.Context, client *kube.Client, rendered *ray.Rendered) string {
	ref, err := kube.RefOf(rendered.Object())
	if err != nil {
		return ""
	}
	live, err := client.GetFresh(ctx, ref)
	if err != nil {
		return ""
	}
	return kube.RayStatus(live, ref.GVK.Kind)
}

// queueStatuses is Kueue's view of the Ray object: its Workload (one for
// the whole cluster, every group a pod set of it).
func queueStatuses(ctx context.Context, client *kube.Client, rendered *ray.Rendered, uid k8stypes.UID) ([]queue.Status, error) {
	return resourcekit.QueueStatuses(ctx, client, rendered.Object().GetNamespace(), uid, "")
}

// kueueWorkloadNames names, before a destroy, the Kueue Workloads of a
// queued Ray object, so that the destroy waits until Kueue releases their
// quota. Best effort (resourcekit.KueueWorkloadNames).
func kueueWorkloadNames(ctx context.Context, client *kube.Client, rendered *ray.Rendered, ref kube.ObjectRef, uid k8stypes.UID) []string {
	if queueName(rendered) == "" {
		return nil
	}
	return resourcekit.KueueWorkloadNames(ctx, client, ref.Namespace, uid, "")
}
