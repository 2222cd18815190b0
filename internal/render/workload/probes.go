package workload

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// probeTiming holds one probe kind's defaults, in seconds.
type probeTiming struct {
	initialDelay, period, timeout, failureThreshold int32
}

// GPU workloads are slow to start and slow to answer under load, so the
// defaults differ from Kubernetes' (period 10, timeout 1, failures 3).
var (
	// startupDefaults allow 60 × 10 s = 10 minutes for loading model weights
	// into GPU memory before liveness takes over.
	startupDefaults = probeTiming{initialDelay: 0, period: 10, timeout: 5, failureThreshold: 60}
	// livenessDefaults restart after about a minute of failures, with a long
	// timeout: a busy GPU server answers slowly, and a needless restart costs
	// a full model reload.
	livenessDefaults = probeTiming{initialDelay: 0, period: 20, timeout: 10, failureThreshold: 3}
	// readinessDefaults take a saturated replica out of rotation quickly.
	readinessDefaults = probeTiming{initialDelay: 0, period: 10, timeout: 5, failureThreshold: 3}
)

// buildProbe returns nil when the user configured no probe. Validation has
// ensured exactly one target is set.
func buildProbe(p *spec.Probe, defaults probeTiming, ports []int32) *corev1.Probe {
	if p == nil {
		return nil
	}
	handler, ok := probeHandler(p, ports)
	if !ok {
		return nil
	}
	return &corev1.Probe{
		ProbeHandler:        handler,
		InitialDelaySeconds: valueOr(p.InitialDelaySeconds, defaults.initialDelay),
		PeriodSeconds:       valueOr(p.PeriodSeconds, defaults.period),
		TimeoutSeconds:      valueOr(p.TimeoutSeconds, defaults.timeout),
		FailureThreshold:    valueOr(p.FailureThreshold, defaults.failureThreshold),
	}
}

func probeHandler(p *spec.Probe, ports []int32) (corev1.ProbeHandler, bool) {
	switch {
	case p.HTTPPath != "":
		port := probeHTTPPort(p, ports)
		if port == 0 {
			return corev1.ProbeHandler{}, false
		}
		return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: p.HTTPPath, Port: intstr.FromInt32(port)}}, true
	case len(p.Exec) > 0:
		return corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: append([]string(nil), p.Exec...)}}, true
	case p.TCPPort != 0:
		return corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(p.TCPPort)}}, true
	}
	return corev1.ProbeHandler{}, false
}

// probeHTTPPort is the probe's port, else the first container port: the
// common case is one server port, and repeating it is noise.
func probeHTTPPort(p *spec.Probe, ports []int32) int32 {
	if p.Port != 0 {
		return p.Port
	}
	if len(ports) > 0 {
		return ports[0]
	}
	return 0
}

func valueOr(v *int32, fallback int32) int32 {
	if v != nil {
		return *v
	}
	return fallback
}
