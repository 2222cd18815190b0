package gpuworkload

import (
	"context"
	"reflect"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// kueueQueue is the LocalQueue a rendered workload is labelled with, ""
// when Kueue does not manage it. CronJobs are left out: Kueue manages the
// Jobs they start, which the provider does not wait for.
func kueueQueue(rendered *workload.Rendered) string {
	return rendered.Objects[len(rendered.Objects)-1].GetLabels()[workload.LabelKueueQueueName]
}

// kueueWorkloadNames names, before a destroy, the Kueue Workloads of a
// queued workload (its own, or one per pod of a Deployment), so that the
// destroy can wait for Kueue to release their quota. Best effort
// (resourcekit.KueueWorkloadNames).
func kueueWorkloadNames(ctx context.Context, client *kube.Client, rendered *workload.Rendered, ref kube.ObjectRef, uid k8stypes.UID, selector string) []string {
	if kueueQueue(rendered) == "" {
		return nil
	}
	return resourcekit.KueueWorkloadNames(ctx, client, ref.Namespace, uid, selector)
}

// keepKueueFields carries over, from the live object, what Kueue owns
// before the provider applies over it: a Job's spec.suspend (Kueue's
// webhook sets it, its controller flips it at admission and back at
// eviction), and the tolerations and node labels Kueue added from the
// admitted flavor. The apply then writes the values Kueue wrote, so
// server-side apply neither conflicts nor takes them back (nodeSelector is
// an atomic map: applying ours alone would drop the flavor's labels); an
// admitted Job's template cannot change.
func keepKueueFields(ctx context.Context, client *kube.Client, rendered *workload.Rendered) error {
	main := rendered.Objects[len(rendered.Objects)-1]
	ref, err := kube.RefOf(main)
	if err != nil {
		return err
	}
	live, err := client.GetFresh(ctx, ref)
	if err != nil || live == nil {
		return err
	}
	if setSuspend := rendered.Kind.Kueue.SetSuspend; setSuspend != nil {
		if suspend, found, _ := unstructured.NestedBool(live.Object, "spec", "suspend"); found {
			setSuspend(main, suspend)
		}
	}
	template := rendered.PodTemplate()
	template.Spec.Tolerations = append(template.Spec.Tolerations, addedTolerations(live, template.Spec.Tolerations)...)
	for k, v := range addedNodeSelector(live, template.Spec.NodeSelector) {
		if template.Spec.NodeSelector == nil {
			template.Spec.NodeSelector = map[string]string{}
		}
		template.Spec.NodeSelector[k] = v
	}
	return nil
}

// addedNodeSelector are the live pod template's nodeSelector entries whose
// keys the rendered template lacks: Kueue's, from the admitted flavor's node
// labels. A key the provider renders keeps the provider's value.
func addedNodeSelector(live *unstructured.Unstructured, rendered map[string]string) map[string]string {
	got, _, _ := unstructured.NestedStringMap(live.Object, "spec", "template", "spec", "nodeSelector")
	added := map[string]string{}
	for k, v := range got {
		if _, ours := rendered[k]; !ours {
			added[k] = v
		}
	}
	return added
}

// addedTolerations are the live pod template's tolerations the rendered
// template lacks: Kueue's, from the flavor it admitted the workload to.
func addedTolerations(live *unstructured.Unstructured, rendered []corev1.Toleration) []corev1.Toleration {
	raw, found, _ := unstructured.NestedSlice(live.Object, "spec", "template", "spec", "tolerations")
	if !found {
		return nil
	}
	var added []corev1.Toleration
	for _, item := range raw {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		var t corev1.Toleration
		if runtime.DefaultUnstructuredConverter.FromUnstructured(m, &t) != nil {
			continue
		}
		if !slices.ContainsFunc(rendered, func(r corev1.Toleration) bool { return reflect.DeepEqual(r, t) }) {
			added = append(added, t)
		}
	}
	return added
}

// withoutKueueAdditions drops, from a projected live object, the
// tolerations and nodeSelector keys the rendered one does not have: Kueue
// adds the admitted flavor's, which is not drift. Either side that cannot be
// read as a map leaves the projection as it is, so a difference shows as
// drift rather than being hidden.
func withoutKueueAdditions(projected, desired map[string]any) {
	withoutAddedTolerations(projected, desired)
	want, _, wantErr := unstructured.NestedMap(desired, "spec", "template", "spec", "nodeSelector")
	got, found, gotErr := unstructured.NestedMap(projected, "spec", "template", "spec", "nodeSelector")
	if !found || wantErr != nil || gotErr != nil {
		return
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			delete(got, k)
		}
	}
	if len(got) == 0 && len(want) == 0 {
		unstructured.RemoveNestedField(projected, "spec", "template", "spec", "nodeSelector")
		return
	}
	// Cannot fail: NestedMap just found a map at this path, so every step
	// on the way is a map, which is all SetNestedMap needs.
	_ = unstructured.SetNestedMap(projected, got, "spec", "template", "spec", "nodeSelector")
}

// withoutAddedTolerations drops, from a projected live object, the
// tolerations the rendered one does not have; as above, a side that cannot
// be read leaves the projection as it is.
func withoutAddedTolerations(projected, desired map[string]any) {
	want, _, wantErr := unstructured.NestedSlice(desired, "spec", "template", "spec", "tolerations")
	got, found, gotErr := unstructured.NestedSlice(projected, "spec", "template", "spec", "tolerations")
	if !found || wantErr != nil || gotErr != nil {
		return
	}
	kept := slices.DeleteFunc(got, func(item any) bool {
		return !slices.ContainsFunc(want, func(w any) bool { return reflect.DeepEqual(w, item) })
	})
	// Cannot fail: NestedSlice just found a slice at this path (see above).
	_ = unstructured.SetNestedSlice(projected, kept, "spec", "template", "spec", "tolerations")
}

// refreshQueued is the refresh of a workload in a Kueue queue: what Kueue
// added at admission is not drift, and a preemption is reported.
func refreshQueued(ctx context.Context, client *kube.Client, rendered *workload.Rendered, ref kube.ObjectRef, uid k8stypes.UID,
	projected, desired map[string]any, diags *diag.Diagnostics) {
	if kueueQueue(rendered) == "" {
		return
	}
	withoutKueueAdditions(projected, desired)
	statuses, err := queueStatuses(ctx, client, rendered, uid)
	if err != nil {
		diags.AddWarning("Cannot read the workload's queue", err.Error())
	}
	resourcekit.EvictionWarning(ref, statuses, diags)
}

// queueStatuses is Kueue's view of a queued workload: its Workload objects
// (one per pod for a kind Kueue admits pod by pod, a Deployment).
func queueStatuses(ctx context.Context, client *kube.Client, rendered *workload.Rendered, uid k8stypes.UID) ([]queue.Status, error) {
	main := rendered.Workload()
	selector := ""
	if rendered.Kind.Kueue.PodByPod {
		selector = podSelector(rendered)
	}
	return resourcekit.QueueStatuses(ctx, client, main.GetNamespace(), uid, selector)
}

// reportQueued looks at Kueue's view of a workload whose wait ended
// without success. Still queued (or preempted back into the queue): a
// warning naming Kueue's reason, and done is true. Admitted by now, when
// the wait was for admission: the wait ended just as Kueue admitted it, so
// admitted is true and nothing is reported.
func reportQueued(ctx context.Context, client *kube.Client, rendered *workload.Rendered, uid k8stypes.UID, ref kube.ObjectRef,
	release func() kueuever.Known, diags *diag.Diagnostics) (done, admitted bool) {
	name := kueueQueue(rendered)
	if name == "" {
		return false, false
	}
	statuses, err := queueStatuses(ctx, client, rendered, uid)
	if err != nil {
		return false, false
	}
	if slices.ContainsFunc(statuses, queue.Status.Waiting) {
		resourcekit.QueuedWarning(ref, name, statuses, release, diags)
		return true, false
	}
	return false, queue.AllAdmitted(statuses)
}

// checkLocalQueue: the LocalQueue the workload is sent to exists
// (resourcekit.CheckLocalQueue).
func checkLocalQueue(ctx context.Context, client *kube.Client, rendered *workload.Rendered, diags *diag.Diagnostics) bool {
	ns := rendered.Objects[len(rendered.Objects)-1].GetNamespace()
	return resourcekit.CheckLocalQueue(ctx, client, ns, kueueQueue(rendered), "workload", diags)
}

// waitAdmitted waits for Kueue's admission of every Workload the object
// makes: one for a Job or StatefulSet, one per replica of a kind Kueue
// admits pod by pod (a Deployment).
func waitAdmitted(ctx context.Context, client *kube.Client, rendered *workload.Rendered, uid k8stypes.UID, ref kube.ObjectRef) error {
	want, selector := 1, ""
	if k := rendered.Kind; k.Kueue.PodByPod {
		selector = podSelector(rendered)
		if k.Replicas != nil {
			if replicas := k.Replicas(rendered.Workload()); replicas != nil {
				want = int(*replicas)
			}
		}
	}
	return client.WaitAdmitted(ctx, ref, uid, selector, want)
}
