// Command apifloor is the benchmark's API floor: what creating and deleting
// N GPU Deployments costs against the API server alone, with no Terraform.
//
// It renders the same Deployments gpu_workload applies (bench/spec, i.e.
// internal/render), server-side-applies them with -concurrency requests in
// flight and waits until every one is available, following ONE watch on
// the namespace's Deployments. The second measured phase deletes them all
// (background propagation, as the provider deletes, -concurrency in flight)
// and waits, again with a watch, until they and their pods are gone. Timings go to stdout as JSON:
//
//	apifloor -kubeconfig .localcluster/kubeconfig -namespace ns -n 100 -pool-ref "$(...)"
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// Result is the JSON printed on stdout. Seconds are wall-clock.
type Result struct {
	N             int     `json:"n"`
	Namespace     string  `json:"namespace"`
	Concurrency   int     `json:"concurrency"`
	FieldManager  string  `json:"field_manager"`
	RenderSeconds float64 `json:"render_seconds"` // part of apply_seconds
	ApplySeconds  float64 `json:"apply_seconds"`  // render + apply + wait until all available
	DeleteSeconds float64 `json:"delete_seconds"` // delete + wait until they and their pods are gone
	DRA           bool    `json:"dra"`            // each Deployment's pod claims its GPU through a ResourceClaimTemplate
}

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster")
	namespace := flag.String("namespace", "", "existing namespace to create the Deployments in")
	n := flag.Int("n", 10, "number of Deployments")
	poolRef := flag.String("pool-ref", "", "node_pool id the workloads are placed with (bench/spec.PoolID)")
	concurrency := flag.Int("concurrency", 10, "requests in flight (Terraform's default parallelism is 10)")
	qps := flag.Float64("qps", -1, "client-side rate limit; negative disables it (the floor is the server's cost)")
	timeout := flag.Duration("timeout", 20*time.Minute, "limit for each phase")
	dra := flag.Bool("dra", false, "-pool-ref is a DRA pool (bench/spec.DRAPoolID): apply each workload's ResourceClaimTemplate, then its Deployment, as gpu_workload does")
	flag.Parse()
	if *namespace == "" || *poolRef == "" || *n < 1 || *concurrency < 1 {
		fmt.Fprintln(os.Stderr, "apifloor: -namespace, -pool-ref and -n >= 1 are required")
		flag.Usage()
		os.Exit(2)
	}
	res, err := run(*kubeconfig, *namespace, *poolRef, *n, *concurrency, float32(*qps), *timeout, *dra)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apifloor:", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
}

func run(kubeconfig, ns, poolRef string, n, concurrency int, qps float32, timeout time.Duration, dra bool) (*Result, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = qps, max(int(qps)*2, concurrency)
	cfg.UserAgent = "gpu-bench-apifloor"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	info, err := cs.Discovery().ServerVersion()
	if err != nil {
		return nil, err
	}
	version, err := utilversion.ParseGeneric(strings.TrimSuffix(info.Major, "+") + "." + strings.TrimSuffix(info.Minor, "+"))
	if err != nil {
		return nil, fmt.Errorf("server version %q.%q: %w", info.Major, info.Minor, err)
	}
	res := &Result{N: n, Namespace: ns, Concurrency: concurrency, FieldManager: spec.FloorFieldManager, DRA: dra}

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	names, err := applyAll(ctx, cs, ns, poolRef, n, concurrency, version, res)
	if err != nil {
		return nil, err
	}
	res.ApplySeconds = time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "apifloor: %d Deployments available in %.2fs\n", n, res.ApplySeconds)

	ctx, cancel = context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start = time.Now()
	if err := deleteAll(ctx, cs, ns, names, concurrency); err != nil {
		return nil, err
	}
	res.DeleteSeconds = time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "apifloor: %d Deployments and their pods gone in %.2fs\n", n, res.DeleteSeconds)
	return res, nil
}

// applyAll renders, starts the one watch, applies with concurrency in
// flight and returns when every Deployment has rolled out.
func applyAll(ctx context.Context, cs kubernetes.Interface, ns, poolRef string, n, concurrency int, version *utilversion.Version, res *Result) ([]string, error) {
	renderStart := time.Now()
	names := make([]string, n)
	bodies := make([][]byte, n)
	templates := make([][]byte, n)     // nil without DRA
	templateNames := make([]string, n) // the rendered template's name
	for i := range n {
		names[i] = spec.Name(i)
		r, err := spec.Render(names[i], ns, poolRef, version)
		if err != nil {
			return nil, err
		}
		if bodies[i], err = applyBody(r.Workload()); err != nil {
			return nil, err
		}
		// -dra states what the pool must be, so a wrong -pool-ref fails
		// instead of measuring the other floor under this one's name.
		if res.DRA != (r.ResourceClaimTemplateV1 != nil) {
			return nil, fmt.Errorf("-dra=%t, but the pool of -pool-ref renders %s ResourceClaimTemplate", res.DRA,
				map[bool]string{true: "a", false: "no"}[r.ResourceClaimTemplateV1 != nil])
		}
		if r.ResourceClaimTemplateV1 != nil {
			templateNames[i] = r.ResourceClaimTemplateV1.Name
			if templates[i], err = applyBody(r.ResourceClaimTemplateV1); err != nil {
				return nil, err
			}
		}
	}
	res.RenderSeconds = time.Since(renderStart).Seconds()

	deployments := cs.AppsV1().Deployments(ns)
	list, err := deployments.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pending := map[string]bool{}
	for _, name := range names {
		pending[name] = true
	}
	w, err := watchFrom(ctx, list.ResourceVersion, deployments.Watch)
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	force := false
	templatesAPI := cs.ResourceV1().ResourceClaimTemplates(ns)
	err = spec.InParallel(ctx, n, concurrency, func(i int) error {
		opts := metav1.PatchOptions{FieldManager: spec.FloorFieldManager, Force: &force}
		// The template goes first, as in the provider's apply order: a pod
		// whose template is missing waits for it.
		if templates[i] != nil {
			if _, err := templatesAPI.Patch(ctx, templateNames[i], types.ApplyPatchType, templates[i], opts); err != nil {
				return err
			}
		}
		_, err := deployments.Patch(ctx, names[i], types.ApplyPatchType, bodies[i], opts)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("server-side apply: %w", err)
	}
	for len(pending) > 0 {
		ev, err := next(ctx, w)
		if err != nil {
			return nil, fmt.Errorf("waiting for %d Deployments to become available: %w", len(pending), err)
		}
		if d, ok := ev.Object.(*appsv1.Deployment); ok && ev.Type != watch.Deleted && rolledOut(d) {
			delete(pending, d.Name)
		}
	}
	return names, nil
}

// applyBody is the object as the provider sends it: no status, no
// creationTimestamp.
func applyBody(obj runtime.Object) ([]byte, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: content}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	return u.MarshalJSON()
}

// rolledOut is the provider's readiness rule (kube.deploymentRolledOut).
func rolledOut(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want && s.Replicas == want && s.AvailableReplicas == want
}

// deleteAll deletes with background propagation, as the provider does, and
// waits, with one watch on the Deployments, until they are gone, then until
// no pod is left.
func deleteAll(ctx context.Context, cs kubernetes.Interface, ns string, names []string, concurrency int) error {
	deployments := cs.AppsV1().Deployments(ns)
	list, err := deployments.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	remaining := map[string]bool{}
	for _, d := range list.Items {
		remaining[d.Name] = true
	}
	w, err := watchFrom(ctx, list.ResourceVersion, deployments.Watch)
	if err != nil {
		return err
	}
	defer w.Stop()
	background := metav1.DeletePropagationBackground
	err = spec.InParallel(ctx, len(names), concurrency, func(i int) error {
		err := deployments.Delete(ctx, names[i], metav1.DeleteOptions{PropagationPolicy: &background})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	for len(remaining) > 0 {
		ev, err := next(ctx, w)
		if err != nil {
			return fmt.Errorf("waiting for %d Deployments to be deleted: %w", len(remaining), err)
		}
		if d, ok := ev.Object.(*appsv1.Deployment); ok && ev.Type == watch.Deleted {
			delete(remaining, d.Name)
		}
	}
	return waitPodsGone(ctx, cs, ns)
}

// waitPodsGone waits until the garbage collector has removed every pod of
// the namespace (after their ReplicaSets).
func waitPodsGone(ctx context.Context, cs kubernetes.Interface, ns string) error {
	pods := cs.CoreV1().Pods(ns)
	list, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	left := map[string]bool{}
	for _, p := range list.Items {
		left[p.Name] = true
	}
	if len(left) == 0 {
		return nil
	}
	w, err := watchFrom(ctx, list.ResourceVersion, pods.Watch)
	if err != nil {
		return err
	}
	defer w.Stop()
	for len(left) > 0 {
		ev, err := next(ctx, w)
		if err != nil {
			return fmt.Errorf("waiting for %d pods to terminate: %w", len(left), err)
		}
		if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type == watch.Deleted {
			delete(left, p.Name)
		}
	}
	return nil
}

// watchFrom follows a kind from a resourceVersion on, and resumes from the
// last event it saw when the API server closes the watch: a run of a
// thousand Deployments outlives the server's watch timeout (at N = 1,000 the
// floor died with "the watch was closed by the server"). client-go's
// RetryWatcher does it with a new WATCH from that version, never a LIST, so
// the floor's request count stays what a watch costs.
func watchFrom(ctx context.Context, resourceVersion string, watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error)) (watch.Interface, error) {
	return watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, &cache.ListWatch{WatchFuncWithContext: watchFn})
}

// next returns the watch's next event. A closed watch or an error event is
// an error: the RetryWatcher has already resumed what it could (a
// resourceVersion too old to resume from ends it).
func next(ctx context.Context, w watch.Interface) (watch.Event, error) {
	select {
	case <-ctx.Done():
		return watch.Event{}, ctx.Err()
	case ev, ok := <-w.ResultChan():
		if !ok {
			return ev, errors.New("the watch was closed by the server")
		}
		if ev.Type == watch.Error {
			return ev, apierrors.FromObject(ev.Object)
		}
		return ev, nil
	}
}
