package kueuever

import (
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// TestRulesByRelease: each rule, release by release. The sources are the
// rules' own (rules.go) and docs/design/kueue-versions.md.
func TestRulesByRelease(t *testing.T) {
	for _, tc := range []struct {
		rule Rule
		// has is the releases with the change, lacks those without.
		has, lacks []string
		source     string
	}{
		// kueue#9742; pkg/dra/claims.go at v0.17.8 (refuses) and v0.18.0 (evaluates).
		{CELSelectors, []string{"0.18.0", "0.18.6", "0.19.0", "0.20.0", "0.21.0"}, []string{"0.17.0", "0.17.8"}, "kueue#9742"},
		// kueue#12471 in v0.18.2, kueue#12451 in v0.19.0; claims.go at v0.18.1 still refuses.
		{DeviceConstraints, []string{"0.18.2", "0.18.6", "0.19.0", "0.20.0", "0.21.0"}, []string{"0.17.8", "0.18.0", "0.18.1"}, "kueue#12451"},
		// claims.go refuses firstAvailable from v0.17.0 to main (v0.20 development).
		{FirstAvailable, nil, []string{"0.17.0", "0.18.6", "0.19.2", "0.20.0", "0.21.0"}, "kueue#13601"},
		// claims.go refuses allocationMode All from v0.17.0 to main.
		{AllocationModeAll, nil, []string{"0.17.0", "0.18.6", "0.19.2", "0.20.0", "0.21.0"}, "AllocationMode 'All'"},
		// The DRA concepts page lists "No DRA + TAS" from v0.17.0 to main.
		{DRAWithTopology, nil, []string{"0.17.0", "0.19.2", "0.21.0"}, "No DRA + Topology Aware Scheduling"},
		// kube_features.go: v0.17.0 DynamicResourceAllocation alpha/off; v0.18.0 KueueDRAIntegration beta/on (kueue#10996).
		{DRAIntegrationByDefault, []string{"0.18.0", "0.19.0", "0.21.0"}, []string{"0.17.0", "0.17.8"}, "kueue#10996"},
		// kueue#8653: fixed in v0.18.5 (#13773), v0.19.1 (#13772), v0.20.0 (#8709); never in v0.17.
		{RequeueAfterUnmanagedPods, []string{"0.18.5", "0.18.6", "0.19.1", "0.19.2", "0.20.0", "0.21.0"},
			[]string{"0.17.0", "0.17.8", "0.18.0", "0.18.4", "0.19.0"}, "kueue#13772"},
	} {
		t.Run(tc.rule.Name, func(t *testing.T) {
			for _, s := range tc.has {
				if !tc.rule.In(utilversion.MustParseSemantic(s)) {
					t.Errorf("v%s: want the change, got none", s)
				}
			}
			for _, s := range tc.lacks {
				if tc.rule.In(utilversion.MustParseSemantic(s)) {
					t.Errorf("v%s: want no change, got it", s)
				}
			}
			if !strings.Contains(tc.rule.Source, tc.source) {
				t.Errorf("source %q does not cite %q", tc.rule.Source, tc.source)
			}
		})
	}
}

// TestRulesAreWellFormed: every rule has a name and a source, and its
// release lines are in order (In relies on it).
func TestRulesAreWellFormed(t *testing.T) {
	for _, r := range Rules() {
		if r.Name == "" || r.Source == "" || !r.ordered() {
			t.Errorf("rule %+v: want a name, a source and ordered lines", r)
		}
	}
	bad := Rule{Name: "x", Source: "y", Fixed: []*utilversion.Version{v("0.19.0"), v("0.18.2")}}
	if bad.ordered() {
		t.Error("lines out of order were accepted")
	}
}

func TestSince(t *testing.T) {
	for _, tc := range []struct {
		rule Rule
		want string
	}{
		{CELSelectors, "from v0.18.0"},
		{FirstAvailable, "in no release up to v0.21"},
		{RequeueAfterUnmanagedPods, "from v0.18.5 in the v0.18 line, v0.19.1 in the v0.19 line and v0.20.0 on"},
	} {
		if got := tc.rule.Since(); got != tc.want {
			t.Errorf("%s: Since = %q, want %q", tc.rule.Name, got, tc.want)
		}
	}
}

func TestParseSetting(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want "" for refused
	}{
		{"v0.17", "0.17.0"}, {"v0.19.1", "0.19.1"}, {"v0.21", "0.21.0"}, {"v0.20.7", "0.20.7"},
		{"v0.16", ""}, {"v0.22", ""}, {"0.19", ""}, {"v0.19.01", ""}, {"v1.0", ""}, {"", ""}, {"v0.19.1-rc.0", ""},
	} {
		got, err := ParseSetting(tc.in)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%q: want refused, got %s", tc.in, got)
		case tc.want != "" && (err != nil || got.String() != tc.want):
			t.Errorf("%q: want %s, got %v, %v", tc.in, tc.want, got, err)
		}
	}
	for _, s := range Supported() {
		if _, err := ParseSetting(s); err != nil {
			t.Errorf("Supported() lists %q, which ParseSetting refuses: %v", s, err)
		}
	}
	if got := strings.Join(Supported(), ","); got != "v0.17,v0.18,v0.19,v0.20,v0.21" {
		t.Errorf("Supported = %s", got)
	}
}

func TestKnown(t *testing.T) {
	unknown := Known{From: "no cluster is configured"}
	if unknown.Effective() != Oldest || unknown.Name() != "Kueue v0.17" {
		t.Errorf("unknown: %s, %s", unknown.Effective(), unknown.Name())
	}
	for _, want := range []string{"Kueue v0.17", "assumed", "kueue_version", "v0.21", "no cluster is configured"} {
		if !strings.Contains(unknown.Describe(), want) {
			t.Errorf("Describe() = %q, missing %q", unknown.Describe(), want)
		}
	}
	set := FromSetting("v0.19")
	if set.Name() != "Kueue v0.19" || !strings.Contains(set.Describe(), "kueue_version") || set.Effective().String() != "0.19.0" {
		t.Errorf("setting: %s / %s", set.Name(), set.Describe())
	}
	cluster := FromCluster("v0.20.7", "Deployment kueue-system/kueue-controller-manager image tag")
	if cluster.Name() != "Kueue v0.20.7" || !strings.Contains(cluster.Describe(), "image tag") {
		t.Errorf("cluster: %s / %s", cluster.Name(), cluster.Describe())
	}
	if old := FromCluster("0.16.3", "label"); old.Effective() != Oldest {
		t.Errorf("a release older than v0.17 is judged as %s", old.Effective())
	}
	if bad := FromCluster("main", "image tag"); bad.Version != nil || !strings.Contains(bad.From, `"main"`) {
		t.Errorf("an image tag that is no version: %+v", bad)
	}
}
