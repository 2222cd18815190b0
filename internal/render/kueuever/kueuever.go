// Package kueuever holds what the provider knows of each Kueue release it
// supports (v0.17 to v0.21): which claims it admits, whether its DRA
// integration is on by default, which of its bugs a report should name.
// Every rule is data here, with the release that changed it and the
// source (docs/design/kueue-versions.md), so a queued workload is judged by
// the Kueue that will run it and the diagnostics say which one that is.
package kueuever

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// The minor releases the rules cover. Oldest is also the one assumed when
// nothing says which Kueue runs: its rules are the most restrictive.
const (
	oldestMinor = 17
	newestMinor = 21
)

// Oldest is the oldest Kueue release the provider supports (and the one
// its live tests run).
var Oldest = utilversion.MajorMinor(0, oldestMinor)

// Supported is every supported minor release, as kueue_version accepts it
// ("v0.17" ... "v0.21"), oldest first.
func Supported() []string {
	out := make([]string, 0, newestMinor-oldestMinor+1)
	for m := oldestMinor; m <= newestMinor; m++ {
		out = append(out, "v0."+strconv.Itoa(m))
	}
	return out
}

// settingPattern is what kueue_version accepts: a supported minor release,
// optionally with its patch ("v0.19" or "v0.19.1").
var settingPattern = regexp.MustCompile(`^v0\.(1[7-9]|2[01])(\.(0|[1-9][0-9]{0,3}))?$`)

// SettingPattern is the kueue_version pattern, for the schema's validator.
func SettingPattern() *regexp.Regexp { return settingPattern }

// ParseSetting reads a kueue_version value. A minor release without its
// patch means its first patch (v0.18 is v0.18.0): where a fix came in a
// patch, the release is judged as the one without it.
func ParseSetting(s string) (*utilversion.Version, error) {
	if !settingPattern.MatchString(s) {
		return nil, fmt.Errorf("%q is not a supported Kueue release: allowed are %s, optionally with a patch (e.g. v0.19.1)",
			s, strings.Join(Supported(), ", "))
	}
	return utilversion.MustParseSemantic(s + strings.Repeat(".0", 2-strings.Count(s, "."))), nil
}

// Known is the Kueue release a queue is judged by, and how the provider
// knows it.
type Known struct {
	// Version is nil when nothing says which release runs: Oldest's rules
	// then apply.
	Version *utilversion.Version
	// Text is the release as it was named ("v0.19", "v0.19.1").
	Text string
	// From says where Version came from ("kueue_version", "the cluster's
	// ..."), or, when Version is nil, why it is unknown.
	From string
}

// FromSetting is the release kueue_version names (already validated).
func FromSetting(s string) Known {
	v, err := ParseSetting(s)
	if err != nil {
		return Known{From: err.Error()}
	}
	return Known{Version: v, Text: s, From: "the provider's kueue_version"}
}

// Effective is the release whose rules apply: the known one, or Oldest.
// A release newer than the newest supported one is judged as that newest
// one; an older one as Oldest.
func (k Known) Effective() *utilversion.Version {
	switch {
	case k.Version == nil:
		return Oldest
	case k.Version.Major() == 0 && k.Version.Minor() < oldestMinor:
		return Oldest
	}
	return k.Version
}

// Name is the release as a diagnostic names it: "Kueue v0.19.1", or
// "Kueue v0.17" for a minor release without a patch.
func (k Known) Name() string {
	if k.Version == nil || k.Text == "" {
		v := k.Effective()
		return fmt.Sprintf("Kueue v%d.%d", v.Major(), v.Minor())
	}
	return "Kueue " + k.Text
}

// Describe says which release a rule was judged by and how it is known;
// when it is assumed, how to name the real one. It ends with a period.
func (k Known) Describe() string {
	if k.Version == nil {
		reason := ""
		if k.From != "" {
			reason = " (" + k.From + ")"
		}
		return "Judged by " + k.Name() + ", the oldest release this provider supports, assumed because kueue_version " +
			"is not set and the cluster's Kueue version is not known" + reason + "; set kueue_version in the provider " +
			"\"gpu\" block (one of " + strings.Join(Supported(), ", ") + ") to be judged by the Kueue that runs the queue."
	}
	return "Judged by " + k.Name() + ", from " + k.From + "."
}

// FromCluster is the release a cluster's Kueue install names (a label or
// image tag such as "v0.19.2" or "0.19.2"); where is what said it.
func FromCluster(raw, where string) Known {
	v, err := utilversion.ParseSemantic(strings.TrimPrefix(strings.TrimSpace(raw), "v"))
	if err != nil {
		return Known{From: where + " says " + strconv.Quote(raw) + ", which is not a release version"}
	}
	return Known{Version: v, Text: "v" + v.String(), From: "the cluster's " + where}
}
