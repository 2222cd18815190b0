package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// workloadIntent is a gpu_workload as render sees it: the configuration,
// placed on its node pool (node_pool), with the provider's default cloud.
// Every path (validate, plan, apply, read, delete) builds it the same way.
type workloadIntent struct {
	// raw is the workload as configured, before the pool filled anything:
	// what import must restore.
	raw      spec.Workload
	workload spec.Workload
	pool     *spec.PoolPolicy
	// findings are ApplyPool's and Validate's diagnostics.
	findings gpudiag.Diagnostics
	unknown  bool
	diags    diag.Diagnostics
}

func intentOf(ctx context.Context, m workloadModel, defaultCloud string) workloadIntent {
	conv := &converter{ctx: ctx}
	raw := conv.toWorkload(m, "")
	in := workloadIntent{raw: raw, workload: raw}
	nodePool := conv.str(m.NodePool)
	if nodePool != "" {
		decoded, err := pool.DecodeID(nodePool)
		if err != nil {
			in.findings = append(in.findings, gpudiag.Diagnostic{Severity: gpudiag.SeverityError, Path: []any{"node_pool"},
				Summary: "Invalid node_pool", Detail: err.Error() + ". Allowed: the id of a gpu_node_pool_policy, e.g. gpu_node_pool_policy.a100.id."})
		} else {
			placed, findings := pool.Apply(raw, decoded)
			in.workload, in.pool = placed, &decoded
			in.findings = append(in.findings, findings...)
		}
	}
	if in.workload.Cloud == "" && !m.Cloud.IsUnknown() {
		in.workload.Cloud = defaultCloud
	}
	in.findings = append(in.findings, notAt(workload.Validate(in.workload), in.findings)...)
	in.unknown, in.diags = conv.unknown, conv.diags
	return in
}

// notAt drops findings on attributes that already have an error: the pool's
// explanation of "count = 2" is more useful than the generic rule's, and
// one line should not get two errors.
func notAt(findings, earlier gpudiag.Diagnostics) gpudiag.Diagnostics {
	taken := map[string]bool{}
	for _, d := range earlier {
		if d.Severity == gpudiag.SeverityError {
			taken[d.PathString()] = true
		}
	}
	var out gpudiag.Diagnostics
	for _, d := range findings {
		if !taken[d.PathString()] {
			out = append(out, d)
		}
	}
	return out
}

// options are the render options for this intent.
func (in workloadIntent) options(version *workload.ServerVersion) workload.Options {
	// The provider encodes the manifest itself (workload.EncodeManifest), the same
	// way for plan and refresh, so render's copy would be wasted work.
	return workload.Options{ServerVersion: version, Pool: in.pool, SkipManifest: true}
}
