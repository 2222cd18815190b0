package queue

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
)

// TestRequeueNote: the note on kueue#8653 (fixed by kueue#8709 in v0.20.0,
// kueue#13773 in v0.18.5, kueue#13772 in v0.19.1; CHANGELOG-0.18.md and
// -0.19.md) comes with a topology wait whose excluded nodes lack free
// resources, on a release without the fix, naming the release.
func TestRequeueNote(t *testing.T) {
	full := Status{State: StateQueued, Message: `couldn't assign flavors to pod set main: topology "t" doesn't allow to ` +
		`fit any of 3 pod(s). Total nodes: 8; excluded: resource "nvidia.com/gpu": 2`}
	tainted := Status{State: StateQueued, Message: `couldn't assign flavors to pod set main: topology "t" doesn't allow ` +
		`to fit any of 3 pod(s). Total nodes: 8; excluded: taint "untolerated taint": 8`}
	quota := Status{State: StateQueued, Message: pendingMessage}
	for _, tc := range []struct {
		name     string
		statuses []Status
		release  string // "" for unknown
		want     string // "" for no note
	}{
		{"v0.17", []Status{full}, "v0.17", "Kueue v0.17 does not look"},
		{"unknown release", []Status{full}, "", "assumed because kueue_version is not set"},
		{"v0.18 before the fix", []Status{full}, "v0.18.4", "Kueue v0.18.4 does not look"},
		{"v0.18.5", []Status{full}, "v0.18.5", ""},
		{"v0.19.0", []Status{full}, "v0.19.0", "kueue#8653, fixed from v0.18.5 in the v0.18 line, v0.19.1 in the v0.19 line and v0.20.0 on"},
		{"v0.19.1", []Status{full}, "v0.19.1", ""},
		{"v0.20", []Status{full}, "v0.20", ""},
		{"v0.21", []Status{full}, "v0.21", ""},
		{"excluded by taint", []Status{tainted}, "v0.17", ""},
		{"a quota wait", []Status{quota}, "v0.17", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := false
			got := RequeueNote(tc.statuses, func() kueuever.Known {
				asked = true
				if tc.release == "" {
					return kueuever.Known{From: "no cluster is configured"}
				}
				return kueuever.FromSetting(tc.release)
			})
			if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if asked && tc.statuses[0].Message != full.Message {
				t.Error("the release was asked for work the note cannot concern")
			}
		})
	}
}
