package kube

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	apiversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// fakeEntry is a cache entry with no informer: enough for waitUntil, which
// only follows its changes and failure.
func fakeEntry() *cacheEntry {
	return &cacheEntry{failed: make(chan struct{}), stop: make(chan struct{}), followers: map[chan struct{}]bool{}}
}

// healthyClient is a Client whose outage probe always succeeds.
func healthyClient() *Client {
	return &Client{health: newServerHealth("https://fake.invalid", func(context.Context) error { return nil })}
}

// never asks waitUntil for no wake-up of its own.
var never time.Time

// A wait may follow any number of caches (a workload, its pods, its claims):
// a change to the third wakes it, and the third failing ends it.
func TestWaitUntil_followsEveryEntry(t *testing.T) {
	c := healthyClient()
	entries := []*cacheEntry{fakeEntry(), nil, fakeEntry(), fakeEntry()}
	var checks atomic.Int32
	done := make(chan error, 1)
	go func() {
		done <- c.waitUntil(context.Background(), func() (bool, time.Time, error) {
			return checks.Add(1) >= 3, never, nil
		}, entries...)
	}()
	for want := int32(2); want <= 3; want++ {
		waitFor(t, 5*time.Second, func() bool { return checks.Load() == want-1 })
		entries[3].notify()
	}
	if err := <-done; err != nil {
		t.Fatalf("wait ended with %v, want success after two changes of the last entry", err)
	}

	failing := []*cacheEntry{fakeEntry(), fakeEntry(), fakeEntry()}
	go func() {
		done <- c.waitUntil(context.Background(), func() (bool, time.Time, error) { return false, never, nil }, failing...)
	}()
	waitFor(t, 5*time.Second, func() bool { return failing[2].waiters.Load() == 1 })
	failing[2].fail(errors.New("list forbidden"))
	if err := <-done; err == nil || !strings.Contains(err.Error(), "list forbidden") {
		t.Fatalf("a failed third watch must end the wait with its reason, got %v", err)
	}
}

// A check may ask to be run again at a moment (when a refused pod reaches
// the unschedulable limit, or the next poll of an object nothing watches):
// the wait wakes then although nothing changed.
func TestWaitUntil_wakesWhenAsked(t *testing.T) {
	c := healthyClient()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var checks atomic.Int32
	start := time.Now()
	err := c.waitUntil(ctx, func() (bool, time.Time, error) {
		return checks.Add(1) == 3, time.Now().Add(20 * time.Millisecond), nil
	}, fakeEntry())
	if err != nil || time.Since(start) < 40*time.Millisecond {
		t.Fatalf("want three checks 20ms apart, got %v after %s", err, time.Since(start))
	}
}

func TestWaitUntil_endsWithContextAndOutage(t *testing.T) {
	c := healthyClient()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.waitUntil(ctx, func() (bool, time.Time, error) { return false, never, nil }, fakeEntry()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the context's error, got %v", err)
	}

	down := &Client{health: newServerHealth("https://fake.invalid", func(context.Context) error {
		return errors.New("connection refused")
	})}
	start := time.Now()
	err := down.waitUntil(context.Background(), func() (bool, time.Time, error) { return false, never, nil }, fakeEntry())
	if err == nil || !strings.Contains(err.Error(), "lost contact with the Kubernetes API server at https://fake.invalid") {
		t.Fatalf("want a lost-contact error, got %v", err)
	}
	if waited := time.Since(start); waited > time.Duration(probeFailLimit+3)*probeInterval {
		t.Fatalf("the outage took %s to end the wait", waited)
	}
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("condition not reached within %s: %v", timeout, err)
	}
}

func TestParseServerVersion(t *testing.T) {
	cases := []struct {
		info         apiversion.Info
		major, minor int
	}{
		{apiversion.Info{Major: "1", Minor: "34", GitVersion: "v1.34.2"}, 1, 34},
		{apiversion.Info{Major: "1", Minor: "33+", GitVersion: "v1.33.5-eks-113cf36"}, 1, 33},
		{apiversion.Info{GitVersion: "v1.35.0-gke.100"}, 1, 35}, // unstamped major/minor
	}
	for _, c := range cases {
		v, err := parseServerVersion(&c.info)
		if err != nil || v.Major() != uint(c.major) || v.Minor() != uint(c.minor) {
			t.Errorf("%+v: got %v, %v; want %d.%d", c.info, v, err, c.major, c.minor)
		}
	}
	if _, err := parseServerVersion(&apiversion.Info{Major: "x", Minor: "y", GitVersion: "dev"}); err == nil {
		t.Error("an unparsable version must be an error")
	}
}

// A server that accepts the connection and never answers /version must not
// hold a caller past its context, nor block a second caller behind it.
func TestServerVersion_honoursTheContext(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // tell the test the first call reached the server
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer server.Close()
	defer close(release)
	typed, err := kubernetes.NewForConfig(&rest.Config{Host: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{Host: server.URL, Typed: typed}

	hung := make(chan error, 1)
	go func() { _, err := c.ServerVersion(context.Background()); hung <- err }()
	select { // the first call is now in flight
	case <-arrived:
	case err := <-hung:
		t.Fatalf("the first call returned without an answer: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the first call never reached the server")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.ServerVersion(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the caller's deadline, got %v", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("the second caller waited %s behind the first", waited)
	}
}
