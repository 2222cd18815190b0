// Package kubever is what the provider knows of Kubernetes minors: the
// DRA features each one has on by default (one table, features.go), and
// which version a plan is judged by (the cluster's, the provider's
// kubernetes_version, or the floor when neither is known). It is pure:
// the provider reads the cluster and passes the answer in.
// Facts and sources: docs/design/dra-versions.md.
package kubever

import (
	"fmt"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// Floor is the oldest minor the provider supports (resource.k8s.io/v1 is
// GA and served by default from 1.34); with no version known, rules are
// judged as on the floor, which has the fewest DRA features, so nothing
// is rendered that the cluster may not serve.
var Floor = utilversion.MajorMinor(1, 34)

// minors are the values kubernetes_version takes: the floor up to the
// newest minor the table has facts for.
var minors = []string{"1.34", "1.35", "1.36", "1.37", "1.38"}

// Minors lists the minors kubernetes_version accepts, oldest first.
func Minors() []string { return append([]string(nil), minors...) }

// ParseMinor reads a kubernetes_version value ("1.36"); only Minors() are
// accepted.
func ParseMinor(s string) (*utilversion.Version, error) {
	for _, m := range minors {
		if s == m {
			return utilversion.MustParseGeneric(m), nil
		}
	}
	return nil, fmt.Errorf("%q is not a Kubernetes minor the provider knows; allowed: %s", s, strings.Join(minors, ", "))
}

// MinorOf prints "1.36", whatever v carries beyond the minor.
func MinorOf(v *utilversion.Version) string {
	if v == nil {
		v = Floor
	}
	return fmt.Sprintf("%d.%d", v.Major(), v.Minor())
}

// Source says where a Version came from.
type Source int

const (
	// Assumed: no cluster answered and kubernetes_version is unset; the
	// floor's rules apply.
	Assumed Source = iota
	// FromCluster: the API server's /version.
	FromCluster
	// FromSetting: the provider's kubernetes_version.
	FromSetting
)

// Version is the Kubernetes minor a plan is judged by, and where it came
// from, so a refusal can say which version it is about.
type Version struct {
	V      *utilversion.Version
	Source Source
}

// Minor is the version judged by: V, or the floor when none is known.
func (k Version) Minor() *utilversion.Version {
	if k.V == nil {
		return Floor
	}
	return k.V
}

// Known reports whether the version came from the cluster or the setting.
func (k Version) Known() bool { return k.V != nil && k.Source != Assumed }

// Describe says which version and why, for messages: "the cluster runs
// Kubernetes 1.34", "kubernetes_version is 1.35", or "Kubernetes 1.34 is
// assumed (...)".
func (k Version) Describe() string {
	switch {
	case k.V != nil && k.Source == FromCluster:
		return "the cluster runs Kubernetes " + MinorOf(k.V)
	case k.V != nil && k.Source == FromSetting:
		return "the provider's kubernetes_version is " + MinorOf(k.V)
	default:
		return "Kubernetes " + MinorOf(Floor) + " is assumed (no cluster answered and the provider's kubernetes_version " +
			"is unset; the floor has the fewest DRA features)"
	}
}

// HowToSet is the advice that follows an assumed version.
const HowToSet = "Set kubernetes_version in the provider \"gpu\" block (e.g. \"1.36\") to plan for a cluster that cannot be reached."
