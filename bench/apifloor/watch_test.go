package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// A watch the server closes is resumed from the last event's
// resourceVersion, not lost: the N = 1,000 floor died of exactly that.
func TestWatchFromResumesAfterTheServerClosesTheWatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	deployment := func(name, rv string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv}}
	}
	var mu sync.Mutex
	var asked []string
	watchFn := func(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, o.ResourceVersion)
		w := watch.NewFakeWithChanSize(1, false)
		switch len(asked) {
		case 1:
			w.Add(deployment("a", "11"))
		default:
			w.Add(deployment("b", "12"))
		}
		w.Stop() // the server closes the watch after one event
		return w, nil
	}
	w, err := watchFrom(ctx, "10", watchFn)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, want := range []string{"a", "b"} {
		ev, err := next(ctx, w)
		if err != nil {
			t.Fatalf("waiting for %s: %v", want, err)
		}
		if d, ok := ev.Object.(*appsv1.Deployment); !ok || d.Name != want {
			t.Fatalf("event %v, want Deployment %s", ev.Object, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) < 2 || asked[0] != "10" || asked[1] != "11" {
		t.Errorf("watches asked from %v, want 10 then 11 (the last event seen)", asked)
	}
}

// -dra must agree with the pool: the floor fails before it applies anything
// rather than measure the device-plugin floor under the DRA floor's name.
func TestApplyAll_draMustMatchThePool(t *testing.T) {
	version := utilversion.MustParseGeneric("1.34")
	for _, c := range []struct {
		poolRef string
		dra     bool
		want    string
	}{
		{spec.PoolRef("abcde"), true, "renders no ResourceClaimTemplate"},
		{spec.DRAPoolRef("abcde"), false, "renders a ResourceClaimTemplate"},
	} {
		_, err := applyAll(context.Background(), nil, "ns", c.poolRef, 1, 1, version, &Result{DRA: c.dra})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-dra=%t: got %v, want an error saying the pool %s", c.dra, err, c.want)
		}
	}
}
