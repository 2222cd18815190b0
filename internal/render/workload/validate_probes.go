package workload

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func validateProbes(w spec.Workload, strict bool, diags *gpudiag.Diagnostics) {
	validateProbe(w.StartupProbe, "startup_probe", w.Ports, strict, diags)
	validateProbe(w.LivenessProbe, "liveness_probe", w.Ports, strict, diags)
	validateProbe(w.ReadinessProbe, "readiness_probe", w.Ports, strict, diags)
}

func validateProbe(p *spec.Probe, attribute string, ports []int32, strict bool, diags *gpudiag.Diagnostics) {
	if p == nil {
		return
	}
	switch targets := probeTargetCount(p); {
	case targets == 0 && strict:
		diags.AddFinalError(gpudiag.At(attribute), "Probe has no target",
			"A probe needs something to check. Allowed: exactly one of http_path (with port or ports), exec, tcp_port.")
	case targets > 1:
		// Reported on the second target, the line a reader deletes.
		targets := probeTargets(p)
		diags.AddError(gpudiag.At(attribute, targets[1]), "Probe has several targets",
			attribute+" sets "+strings.Join(targets, " and ")+", but Kubernetes runs one handler per probe. "+
				"Allowed: exactly one of http_path, exec, tcp_port.")
	}
	if p.HTTPPath != "" {
		if !strings.HasPrefix(p.HTTPPath, "/") {
			diags.AddError(gpudiag.At(attribute, "http_path"), "Invalid HTTP path",
				strconv.Quote(p.HTTPPath)+" is not an absolute URL path. Allowed: a path starting with \"/\", e.g. \"/health\".")
		}
		if p.Port == 0 && len(ports) == 0 && strict {
			diags.AddFinalError(gpudiag.At(attribute, "port"), "HTTP probe without port",
				"http_path needs a port. Allowed: set port, or list the server port in ports (the first is used).")
		}
	}
	checkProbePort(p.Port, attribute, "port", diags)
	checkProbePort(p.TCPPort, attribute, "tcp_port", diags)
	if len(p.Exec) > 0 && p.Exec[0] == "" && strict {
		diags.AddFinalError(gpudiag.At(attribute, "exec", 0), "Empty probe command",
			"exec[0] is the program to run. Allowed: a command such as [\"cat\", \"/tmp/ready\"].")
	}
	checkProbeMin(diags, p.InitialDelaySeconds, 0, attribute, "initial_delay_seconds")
	checkProbeMin(diags, p.PeriodSeconds, 1, attribute, "period_seconds")
	checkProbeMin(diags, p.TimeoutSeconds, 1, attribute, "timeout_seconds")
	checkProbeMin(diags, p.FailureThreshold, 1, attribute, "failure_threshold")
}

// checkProbeMin is checkMin32 on a probe setting. The probe's attribute is
// a variable, so its path costs allocations: it is built only for a
// finding.
func checkProbeMin(diags *gpudiag.Diagnostics, v *int32, minimum int32, attribute, setting string) {
	if v != nil && *v < minimum {
		checkMin32(diags, v, minimum, gpudiag.At(attribute, setting))
	}
}

// probeTargetCount is len(probeTargets(p)) without building the list.
func probeTargetCount(p *spec.Probe) int {
	n := 0
	for _, set := range []bool{p.HTTPPath != "", len(p.Exec) > 0, p.TCPPort != 0} {
		if set {
			n++
		}
	}
	return n
}

// probeTargets names the handlers a probe sets, in schema order.
func probeTargets(p *spec.Probe) []string {
	var set []string
	if p.HTTPPath != "" {
		set = append(set, "http_path")
	}
	if len(p.Exec) > 0 {
		set = append(set, "exec")
	}
	if p.TCPPort != 0 {
		set = append(set, "tcp_port")
	}
	return set
}

func checkProbePort(port int32, attribute, setting string, diags *gpudiag.Diagnostics) {
	if port == 0 {
		return
	}
	if msgs := validation.IsValidPortNum(int(port)); len(msgs) > 0 {
		diags.AddError(gpudiag.At(attribute, setting), "Invalid port", strconv.Itoa(int(port))+": "+strings.Join(msgs, "; ")+".")
	}
}
