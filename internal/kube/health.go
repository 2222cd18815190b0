package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Probing cadence while a wait is running. Two failures in a row, so that
// one dropped connection during an API server's graceful restart does not
// fail an apply, yet an outage ends the waits within a few seconds.
const (
	probeInterval  = time.Second
	probeTimeout   = 3 * time.Second
	probeFailLimit = 2
)

// serverHealth tells waits served from the watch cache that the API server
// stopped answering. An informer retries a lost watch quietly and forever,
// so without it a wait would sit until its timeout and then blame the
// workload for an outage. One probe serves every wait in the process, and
// it runs only while a wait does.
type serverHealth struct {
	host  string
	probe func(ctx context.Context) error

	mu      sync.Mutex
	users   int
	running bool
	current *outage
}

// outage is closed when the server is found unreachable.
type outage struct {
	down chan struct{}
	err  error
}

func newServerHealth(host string, probe func(ctx context.Context) error) *serverHealth {
	return &serverHealth{host: host, probe: probe, current: &outage{down: make(chan struct{})}}
}

// watch returns the outage the caller should select on and a release func.
func (h *serverHealth) watch() (*outage, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.users++
	if !h.running {
		h.running = true
		go h.run()
	}
	o := h.current
	return o, func() {
		h.mu.Lock()
		h.users--
		h.mu.Unlock()
	}
}

func (h *serverHealth) run() {
	failures := 0
	ticker := time.NewTicker(probeInterval)
	defer ticker.Stop()
	for range ticker.C {
		h.mu.Lock()
		idle := h.users == 0
		if idle {
			h.running = false
		}
		h.mu.Unlock()
		if idle {
			return
		}
		err := h.probeOnce()
		if err == nil {
			failures = 0
			continue
		}
		failures++
		if failures >= probeFailLimit {
			h.declareOutage(err)
			failures = 0
		}
	}
}

// probeOnce asks for /version. Any HTTP answer, even an error status, means
// the server is up; only transport errors count.
func (h *serverHealth) probeOnce() error {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	err := h.probe(ctx)
	var status apierrors.APIStatus
	if err == nil || errors.As(err, &status) {
		return nil
	}
	return err
}

func (h *serverHealth) declareOutage(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.current.err = fmt.Errorf("lost contact with the Kubernetes API server at %s: %w. What was applied before "+
		"the outage is in the state; run apply again once the server answers", h.host, err)
	close(h.current.down)
	// Waits started after the server is back get a fresh outage to watch.
	h.current = &outage{down: make(chan struct{})}
}
