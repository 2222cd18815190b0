package resourcekit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
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

// CheckLocalQueue: an object sent to a LocalQueue that does not exist is
// never admitted (Kueue marks it inadmissible and it waits forever), so the
// apply stops before creating it. A LocalQueue that cannot be read (no
// permission, Kueue not installed) is a warning: Kueue may still be there.
// what names the object ("workload", "Ray cluster"); an empty name is no
// queue.
func CheckLocalQueue(ctx context.Context, client *kube.Client, ns, name, what string, diags *diag.Diagnostics) bool {
	if name == "" {
		return true
	}
	live, err := client.GetFresh(ctx, kube.ObjectRef{GVK: kube.GVKLocalQueue, Namespace: ns, Name: name})
	switch {
	case err != nil:
		diags.AddWarning("Cannot check the "+what+"'s queue", fmt.Sprintf("Reading LocalQueue %s/%s failed: %v. "+
			"If it does not exist, Kueue never admits the %s.", ns, name, err, what))
		return true
	case live == nil && client.KueueMissing(ctx):
		diags.AddAttributeError(path.Root("queue"), "Kueue is not installed", fmt.Sprintf("The %s is sent to "+
			"LocalQueue %q, but the cluster serves no kueue.x-k8s.io/v1beta2 API, so nothing would ever admit it. "+
			"Allowed: install Kueue (v0.15 or later), or remove queue.", what, name))
		return false
	case live == nil:
		diags.AddAttributeError(path.Root("queue"), "No such queue", fmt.Sprintf("LocalQueue %q does not exist in namespace %q, "+
			"so Kueue would never admit the %s. Allowed: the ref of a gpu_queue with %q in its namespaces, or the name "+
			"of a LocalQueue of that namespace.", name, ns, what, ns))
		return false
	}
	return true
}
