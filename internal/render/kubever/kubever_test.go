package kubever

import (
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// Each feature's default per minor, as docs/design/dra-versions.md records it.
func TestFeaturesByMinor(t *testing.T) {
	cases := []struct {
		f    Feature
		want map[string]bool // minor → on by default
	}{
		{PrioritizedList, map[string]bool{"1.33": false, "1.34": true, "1.35": true, "1.36": true, "1.37": true, "1.38": true}},
		{ExtendedResource, map[string]bool{"1.33": false, "1.34": false, "1.35": false, "1.36": true, "1.37": true, "1.38": true}},
		{DeviceTaints, map[string]bool{"1.34": false, "1.35": false, "1.36": true, "1.37": true, "1.38": true}},
		{PartitionableDevices, map[string]bool{"1.34": false, "1.35": false, "1.36": true, "1.37": true}},
	}
	for _, c := range cases {
		for minor, want := range c.want {
			if got := c.f.OnByDefault(utilversion.MustParseGeneric(minor)); got != want {
				t.Errorf("%s on %s: on by default = %v, want %v", c.f.Gate, minor, got, want)
			}
		}
	}
	// Patch releases and managed services' "+" suffixes are the minor's.
	if !ExtendedResource.OnByDefault(utilversion.MustParseGeneric("1.36.3")) || ExtendedResource.OnByDefault(utilversion.MustParseGeneric("1.35.9")) {
		t.Error("patch releases must follow their minor")
	}
	// Unknown version: the floor's rules, the most restrictive.
	if ExtendedResource.OnByDefault(nil) || DeviceTaints.OnByDefault(nil) || !PrioritizedList.OnByDefault(nil) {
		t.Error("nil must mean the floor, 1.34")
	}
	if ExtendedResource.StageIn(utilversion.MustParseGeneric("1.37")) != GA || ExtendedResource.StageIn(utilversion.MustParseGeneric("1.32")) != Absent {
		t.Error("stages of DRAExtendedResource")
	}
}

func TestFirstOnAndLacks(t *testing.T) {
	for f, want := range map[string]string{ExtendedResource.Gate: "1.36", PrioritizedList.Gate: "1.34", PartitionableDevices.Gate: "1.36"} {
		for _, feature := range Features() {
			if feature.Gate == f && feature.FirstOn() != want {
				t.Errorf("%s first on %q, want %q", f, feature.FirstOn(), want)
			}
		}
	}
	msg := ExtendedResource.Lacks(Version{V: utilversion.MustParseGeneric("1.35"), Source: FromSetting})
	for _, want := range []string{"kubernetes_version is 1.35", "DRAExtendedResource", "alpha, off by default", "from Kubernetes 1.36"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	msg = ExtendedResource.Lacks(Version{})
	if !strings.Contains(msg, "1.34 is assumed") {
		t.Errorf("assumed version not said: %s", msg)
	}
	if !strings.Contains(ExtendedResource.Lacks(Version{V: utilversion.MustParseGeneric("1.34"), Source: FromCluster}), "the cluster runs Kubernetes 1.34") {
		t.Error("cluster version not said")
	}
}

func TestParseMinor(t *testing.T) {
	for _, ok := range Minors() {
		v, err := ParseMinor(ok)
		if err != nil || MinorOf(v) != ok {
			t.Errorf("ParseMinor(%q) = %v, %v", ok, v, err)
		}
	}
	for _, bad := range []string{"", "1.33", "1.36.2", "v1.36", "1.39", "2.0"} {
		if _, err := ParseMinor(bad); err == nil {
			t.Errorf("ParseMinor(%q) accepted", bad)
		}
	}
	if (Version{}).Known() || !(Version{V: Floor, Source: FromCluster}).Known() {
		t.Error("Known")
	}
}
