package kubever

import (
	"slices"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// Stage is a feature gate's stage in one minor.
type Stage int

const (
	// Absent: the minor has no such gate.
	Absent Stage = iota
	// AlphaOff: alpha, off unless the cluster's operator turns the gate on.
	AlphaOff
	// BetaOff: beta but still off by default.
	BetaOff
	// BetaOn: beta and on by default.
	BetaOn
	// GA: generally available (on; locked on a release or two later).
	GA
)

// On reports whether a gate in this stage is on by default.
func (s Stage) On() bool { return s == BetaOn || s == GA }

func (s Stage) String() string {
	switch s {
	case AlphaOff:
		return "alpha, off by default"
	case BetaOff:
		return "beta, off by default"
	case BetaOn:
		return "beta, on by default"
	case GA:
		return "GA"
	default:
		return "absent"
	}
}

// Feature is one DRA feature the provider's rules depend on: the gate that
// switches it, its stage in each minor, and where that was read.
type Feature struct {
	// What names the feature in messages.
	What string
	// Gate is the Kubernetes feature gate; KEP its enhancement.
	Gate, KEP string
	// Stages maps a minor ("1.36") to the gate's stage there. A newer minor
	// than the newest listed keeps the newest stage (gates move forward);
	// an older one than the oldest listed is Absent.
	Stages map[string]Stage
	// Source is where the stages were read (docs/design/dra-versions.md).
	Source string
}

// The DRA features whose defaults decide what the provider renders or
// refuses. 1.34's stages are from the versioned feature list of
// k8s.io/kubernetes v1.34.10 (pkg/features/kube_features.go); later ones
// from the release notes of 1.35 to 1.37 and the KEPs' kep.yaml.
var (
	// PrioritizedList: a claim's firstAvailable list (accelerators in
	// order).
	PrioritizedList = Feature{What: "prioritized device lists (firstAvailable)", Gate: "DRAPrioritizedList", KEP: "KEP-4816",
		Stages: map[string]Stage{"1.33": AlphaOff, "1.34": BetaOn, "1.35": BetaOn, "1.36": GA, "1.37": GA},
		Source: "kube_features.go @v1.34.10; 1.36 release notes (promoted to GA)"}
	// ExtendedResource: DeviceClass.spec.extendedResourceName, so a pod
	// asking nvidia.com/gpu gets a DRA device.
	ExtendedResource = Feature{What: "extended resources backed by DRA (DeviceClass extendedResourceName)",
		Gate: "DRAExtendedResource", KEP: "KEP-5004",
		Stages: map[string]Stage{"1.34": AlphaOff, "1.35": AlphaOff, "1.36": BetaOn, "1.37": GA},
		Source: "kube_features.go @v1.34.10; 1.36 release notes (beta, on); 1.37 release notes (GA)"}
	// DeviceTaints: taints on devices in ResourceSlices; the scheduler
	// allocates no tainted device to a claim that does not tolerate it.
	DeviceTaints = Feature{What: "device taints", Gate: "DRADeviceTaints", KEP: "KEP-5055",
		Stages: map[string]Stage{"1.33": AlphaOff, "1.34": AlphaOff, "1.35": AlphaOff, "1.36": BetaOn, "1.37": GA},
		Source: "kube_features.go @v1.34.10; KEP-5055 (beta 1.36, stable 1.37); 1.36 and 1.37 release notes"}
	// PartitionableDevices: devices that consume shared counters, how
	// NVIDIA's driver publishes dynamic MIG.
	PartitionableDevices = Feature{What: "partitionable devices (dynamic MIG)", Gate: "DRAPartitionableDevices", KEP: "KEP-4815",
		Stages: map[string]Stage{"1.33": AlphaOff, "1.34": AlphaOff, "1.35": AlphaOff, "1.36": BetaOn, "1.37": BetaOn},
		Source: "kube_features.go @v1.34.10; 1.35 release notes (incompatible change of counter sets); 1.36 release notes (beta, on)"}
)

// Features lists the table, for docs and tests.
func Features() []Feature {
	return []Feature{PrioritizedList, ExtendedResource, DeviceTaints, PartitionableDevices}
}

// StageIn is the feature's stage in v's minor (the floor for nil).
func (f Feature) StageIn(v *utilversion.Version) Stage {
	if v == nil {
		v = Floor
	}
	best, bestMinor := Absent, (*utilversion.Version)(nil)
	for minor, stage := range f.Stages {
		m := utilversion.MustParseGeneric(minor)
		if v.AtLeast(m) && (bestMinor == nil || m.GreaterThan(bestMinor)) {
			best, bestMinor = stage, m
		}
	}
	return best
}

// OnByDefault reports whether v's minor has the feature on by default.
func (f Feature) OnByDefault(v *utilversion.Version) bool { return f.StageIn(v).On() }

// FirstOn is the first minor with the feature on by default ("1.36").
func (f Feature) FirstOn() string {
	var on []*utilversion.Version
	for minor, stage := range f.Stages {
		if stage.On() {
			on = append(on, utilversion.MustParseGeneric(minor))
		}
	}
	if len(on) == 0 {
		return ""
	}
	return MinorOf(slices.MinFunc(on, func(a, b *utilversion.Version) int {
		switch {
		case a.LessThan(b):
			return -1
		case b.LessThan(a):
			return 1
		}
		return 0
	}))
}

// Lacks says why a refusal is about k's version: "the cluster runs
// Kubernetes 1.34, where extended resources backed by DRA (gate
// DRAExtendedResource, KEP-5004) are alpha, off by default; they are on by
// default from 1.36".
func (f Feature) Lacks(k Version) string {
	return k.Describe() + ", where " + f.What + " (feature gate " + f.Gate + ", " + f.KEP + ") is " +
		f.StageIn(k.Minor()).String() + "; it is on by default from Kubernetes " + f.FirstOn()
}
