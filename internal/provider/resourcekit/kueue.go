package resourcekit

import (
	"context"
	"sync"
	"time"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
)

// kueueReadTimeout bounds the one read of the cluster's Kueue release: a
// plan against an unreachable cluster waits this long at most, once.
const kueueReadTimeout = 10 * time.Second

// kueueRelease remembers the cluster's Kueue release for the provider
// process: every queued workload of a plan is judged by the same one.
type kueueRelease struct {
	once  sync.Once
	known kueuever.Known
}

// Kueue is the Kueue release queued workloads are judged by
// (docs/design/kueue-versions.md, "How the release is known"): the
// provider's kueue_version; else what the cluster's Kueue install says,
// read once when a rule first needs it; else unknown, with the reason,
// and the rules of the oldest release apply.
func (d *Data) Kueue(ctx context.Context) kueuever.Known {
	if d == nil {
		return kueuever.Known{From: "the provider is not configured"}
	}
	if d.KueueVersion != "" {
		return kueuever.FromSetting(d.KueueVersion)
	}
	d.kueue.once.Do(func() { d.kueue.known = d.readKueue(ctx) })
	return d.kueue.known
}

func (d *Data) readKueue(ctx context.Context) kueuever.Known {
	if !d.Kube.Configured() {
		return kueuever.Known{From: "no cluster is configured"}
	}
	client, err := d.Kube.Client()
	if err != nil {
		return kueuever.Known{From: "the cluster cannot be reached: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, kueueReadTimeout)
	defer cancel()
	release, where := client.KueueRelease(ctx)
	if release == "" {
		return kueuever.Known{From: where}
	}
	return kueuever.FromCluster(release, where)
}
