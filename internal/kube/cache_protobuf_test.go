package kube

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The cache lists built-in resources typed, and custom resources (which
// have no protobuf encoding) through the dynamic client.
func TestBuiltinKinds_coverTheCachedBuiltinsOnly(t *testing.T) {
	for gvr, kind := range map[schema.GroupVersionResource]string{
		{Group: "apps", Version: "v1", Resource: "deployments"}:                       "Deployment",
		{Group: "apps", Version: "v1", Resource: "statefulsets"}:                      "StatefulSet",
		{Group: "batch", Version: "v1", Resource: "jobs"}:                             "Job",
		{Group: "batch", Version: "v1", Resource: "cronjobs"}:                         "CronJob",
		{Version: "v1", Resource: "pods"}:                                             "Pod",
		{Version: "v1", Resource: "services"}:                                         "Service",
		{Version: "v1", Resource: "persistentvolumeclaims"}:                           "PersistentVolumeClaim",
		{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaimtemplates"}: "ResourceClaimTemplate",
	} {
		if got := builtinKinds[gvr]; got.Kind != kind || got.GroupVersion() != gvr.GroupVersion() {
			t.Errorf("%s: kind %v, want %s", gvr, got, kind)
		}
	}
	for _, gvr := range []schema.GroupVersionResource{kueueWorkloadsGVR, {Group: "ray.io", Version: "v1", Resource: "rayclusters"}} {
		if _, ok := builtinKinds[gvr]; ok {
			t.Errorf("%s is a custom resource, listed typed", gvr)
		}
		if _, _, ok := newProtobufSource(nil, nil).listWatch(gvr, "ns", "a=b"); ok {
			t.Errorf("%s is a custom resource, but the protobuf source serves it", gvr)
		}
	}
	var none *protobufSource // client-go's fakes: no source, the dynamic client serves
	if _, _, ok := none.listWatch(podsGVR, "ns", "a=b"); ok {
		t.Error("a nil source serves pods")
	}
}

// A typed object enters the cache as the unstructured object the JSON of
// the same object would decode to, without its managed fields.
func TestCachedObject_typedIsWhatJSONGives(t *testing.T) {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "ns", UID: types.UID("u"), Generation: 3,
			Labels:        map[string]string{"app": "w"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "terraform-provider-gpu", Operation: metav1.ManagedFieldsOperationApply}}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "w"}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "w"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "cuda:12",
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
						"nvidia.com/gpu": resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1536Mi")}}}},
					Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, AvailableReplicas: 2,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"}}},
	}
	withKind := d.DeepCopy()
	withKind.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}
	data, err := json.Marshal(withKind)
	if err != nil {
		t.Fatal(err)
	}
	want := &unstructured.Unstructured{}
	if err := want.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	want.SetManagedFields(nil)

	got, err := cachedObject(d) // as protobuf decodes it: no apiVersion or kind
	if err != nil {
		t.Fatal(err)
	}
	u, ok := got.(*unstructured.Unstructured)
	if !ok {
		t.Fatalf("cached a %T, want *unstructured.Unstructured", got)
	}
	if !reflect.DeepEqual(u.Object, want.Object) {
		t.Fatalf("cached object differs from JSON's:\n got %v\nwant %v", u.Object, want.Object)
	}
}

// Against the API server: the cache lists and watches the provider's
// Deployments in protobuf, holds each as the server's JSON has it (managed
// fields aside), and a change reaches it through its watch.
func TestAccWatchCache_servesBuiltinsFromProtobuf(t *testing.T) {
	acctest.PreCheck(t)
	ns := acctest.Namespace(t)
	cs := acctest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	labels := map[string]string{"app.kubernetes.io/managed-by": "cache-test", "app": "cached"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "cached", Namespace: ns, Labels: labels},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cached"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "cached"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.example/cuda:12"}}}}}}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// What the cache asks for when it lists and watches Deployments.
	var mu sync.Mutex
	var accepts []string
	rc := acctest.RESTConfig(t)
	rc.WrapTransport = func(next http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if strings.HasSuffix(r.URL.Path, "/namespaces/"+ns+"/deployments") {
				mu.Lock()
				accepts = append(accepts, r.Header.Get("Accept"))
				mu.Unlock()
			}
			return next.RoundTrip(r)
		})
	}
	c, err := newClient(rc, DefaultFieldManager, "app.kubernetes.io/managed-by=cache-test")
	if err != nil {
		t.Fatal(err)
	}
	e, ok := c.cache.entry(ctx, appsDeployments, ns)
	if !ok {
		t.Fatal("the watch cache does not serve the provider's Deployments")
	}
	mu.Lock()
	asked := append([]string(nil), accepts...)
	mu.Unlock()
	if len(asked) == 0 {
		t.Fatal("the cache synced without listing or watching Deployments")
	}
	for _, accept := range asked {
		if !strings.HasPrefix(accept, runtime.ContentTypeProtobuf) {
			t.Fatalf("the cache asked for Deployments as %q, want protobuf first", accept)
		}
	}
	// The Deployment controller writes its status meanwhile: compare the
	// cache's copy with the server's once both are of the same version.
	var cachedCopy, live *unstructured.Unstructured
	waitFor(t, 30*time.Second, func() bool {
		got, err := c.Dynamic.Resource(appsDeployments).Namespace(ns).Get(ctx, "cached", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		live, cachedCopy = got, e.get(ns, "cached")
		return cachedCopy != nil && cachedCopy.GetResourceVersion() == live.GetResourceVersion()
	})
	live.SetManagedFields(nil)
	if !reflect.DeepEqual(cachedCopy.Object, live.Object) {
		t.Fatalf("the cache's Deployment differs from the server's JSON:\n cache %v\nserver %v", cachedCopy.Object, live.Object)
	}

	patch := []byte(`{"metadata":{"annotations":{"gpuform.io/seen":"yes"}}}`)
	if _, err := cs.AppsV1().Deployments(ns).Patch(ctx, "cached", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, func() bool {
		got := e.get(ns, "cached")
		return got != nil && got.GetAnnotations()["gpuform.io/seen"] == "yes"
	})
}
