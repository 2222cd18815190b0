package main

// The report's DRA section (issue #32), its failures, and the untimed
// step profiles of -profile.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// draMeasured is the DRA subject's bullet of "What is measured".
func draMeasured() string {
	return fmt.Sprintf("- **%s** (issue #32): the same N Deployments on a DRA pool (`gpu_allocation = \"dra\"`, the "+
		"same pool as the device-plugin subject's otherwise), `gpu { count = %d }`, so each workload gets a "+
		"ResourceClaimTemplate asking for the pool's DeviceClass (no CEL selector) and its pod a claim from it, which "+
		"the controller manager creates and the scheduler allocates. They run on kwok nodes of their own, cloned from "+
		"the local cluster's `dra-h100` fixture (GFD labels, `nvidia.com/gpu:NoSchedule`, no `nvidia.com/gpu` "+
		"capacity), each with the one ResourceSlice NVIDIA's DRA driver would publish (pool named after the node, "+
		"devices gpu-0 … gpu-%d, owned by the Node); the bench applies the pool's DeviceClass as the pool resource "+
		"would. Same four steps; the ratio to gpu_workload is issue #32's goal.\n",
		subjectDRA, spec.GPUCount, spec.GPUsPerNode-1)
}

// draNodesNote is the header's mention of the DRA nodes.
func draNodesNote(nodes int) string {
	if nodes == 0 {
		return ""
	}
	return fmt.Sprintf(", and %d kwok DRA nodes with %d devices each in a ResourceSlice", nodes, spec.GPUsPerNode)
}

// draReport is the DRA subject against the device-plugin one, per N.
func draReport(b *strings.Builder, m meta, results []measurement) {
	if !slices.ContainsFunc(results, func(r measurement) bool { return r.Subject == subjectDRA || r.Subject == subjectDRAFloor }) {
		return
	}
	b.WriteString("## gpu_workload through DRA\n\n")
	fmt.Fprintf(b, "%s divided by gpu_workload (the device plugin), medians over runs. Issue #32's goal: plan and apply at N = %d "+
		"within %.1f× of the device-plugin Deployments, measured in the same run (a ratio of figures from different "+
		"runs says so). \"CPU\" is terraform with its providers, \"provider CPU\" the provider processes alone.\n\n",
		subjectDRA, draGoalN, draGoal)
	for _, n := range m.Ns {
		if !has(results, n, subjectDRA) && !has(results, n, subjectDRAFloor) {
			continue
		}
		fmt.Fprintf(b, "### N = %d\n\n", n)
		if has(results, n, subjectDRA) {
			draTable(b, results, n, m.Now)
			b.WriteString("\n")
		}
		if has(results, n, subjectDRAFloor) {
			draFloorTable(b, results, n, m.Now)
			b.WriteString("\n")
		}
	}
}

// has says whether results hold subject's figures at n.
func has(results []measurement, n int, subject string) bool {
	return slices.ContainsFunc(results, func(r measurement) bool { return r.Subject == subject && r.N == n })
}

// draFloorTable is the control plane's share of the DRA comparison: the
// API floor's same objects with and without DRA, no Terraform. Its ratio
// bounds what any client can reach against the device plugin on this
// cluster; the last column is what Terraform and the provider add to it.
func draFloorTable(b *strings.Builder, results []measurement, n int, now stamp) {
	fmt.Fprintf(b, "The control plane alone (`apifloor -dra`: the same ResourceClaimTemplates and Deployments, no Terraform):\n\n"+
		"| step | %s | %s | ratio | %s / %s |\n|---|---:|---:|---:|---:|\n", subjectFloor, subjectDRAFloor, subjectDRA, subjectDRAFloor)
	for _, c := range comparisons {
		if c.step != stepApply && c.step != stepDestroy {
			continue
		}
		floor, draFloor := seconds(results, n, subjectFloor, c.step), seconds(results, n, subjectDRAFloor, c.step)
		ratio := fmtRatio(draFloor, floor)
		if ratio != "–" && age(results, n, subjectFloor, c.step, now) != age(results, n, subjectDRAFloor, c.step, now) {
			ratio += " (different runs)"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", c.label, agedSeconds(results, n, subjectFloor, c.step, now),
			agedSeconds(results, n, subjectDRAFloor, c.step, now), ratio, fmtRatio(seconds(results, n, subjectDRA, c.step), draFloor))
	}
}

// draTable is one N's table of the DRA comparison.
func draTable(b *strings.Builder, results []measurement, n int, now stamp) {
	b.WriteString("| step | gpu_workload | " + subjectDRA + " | ratio | goal | met? | CPU ratio | provider CPU ratio |\n" +
		"|---|---:|---:|---:|---|---|---:|---:|\n")
	for _, c := range comparisons {
		dp, dra := seconds(results, n, subjectGPU, c.step), seconds(results, n, subjectDRA, c.step)
		stated := n == draGoalN && (c.step == stepPlan || c.step == stepApply)
		ratio, goal, met := "–", "–", "–"
		if stated {
			goal = fmt.Sprintf("≤ %.1f×", draGoal)
		}
		if r, ok := ratioOf(dra, dp); ok {
			ratio = fmt.Sprintf("%.2f×", r)
			if age(results, n, subjectGPU, c.step, now) != age(results, n, subjectDRA, c.step, now) {
				ratio += " (different runs)"
			} else if stated {
				met = yesNo(r <= draGoal)
			}
		}
		cpu := fmtRatio(stepValues(results, n, subjectDRA, c.step, cpuOf), stepValues(results, n, subjectGPU, c.step, cpuOf))
		prov := fmtRatio(stepValues(results, n, subjectDRA, c.step, providerCPUOf), stepValues(results, n, subjectGPU, c.step, providerCPUOf))
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", c.label, agedSeconds(results, n, subjectGPU, c.step, now),
			agedSeconds(results, n, subjectDRA, c.step, now), ratio, goal, met, cpu, prov)
	}
	fmt.Fprintf(b, "| state per resource after the apply | %s | %s | | | | | |\n",
		fmtKB(stepValues(results, n, subjectGPU, stepApply, statePerResourceOf)),
		fmtKB(stepValues(results, n, subjectDRA, stepApply, statePerResourceOf)))
}

// failureReport lists this run's failed subjects; their rows keep the
// figures of the run before (with its date), or are absent.
func failureReport(b *strings.Builder, fs []failure) {
	if len(fs) == 0 {
		return
	}
	b.WriteString("## Failures in this run\n\n")
	b.WriteString("These subjects failed; the steps they completed are in the tables, the others keep an earlier run's " +
		"figures (marked with its date) or are left out. `make bench` exited non-zero.\n\n")
	for _, f := range fs {
		fmt.Fprintf(b, "- %s\n", strings.ReplaceAll(firstLines(f.String(), 6), "\n", "\n  "))
	}
	b.WriteString("\n")
}

// firstLines is s cut to n lines (a terraform error carries its log's tail).
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

func earlierList(ss []stamp) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.Date.Format("2006-01-02 15:04 MST") + " at `" + s.Commit + "`"
	}
	return strings.Join(parts, "; ")
}

func subjectList(subjects []string) string {
	if len(subjects) == len(subjectNames) {
		return "every subject"
	}
	return strings.Join(subjects, ", ")
}

// stepProfileReport shows the profiles of -profile: where the provider's
// CPU goes in a plan and an apply, per subject.
func stepProfileReport(b *strings.Builder, m meta, results []measurement) {
	var profiled []measurement
	for _, r := range results {
		if len(r.Profiles) > 0 {
			profiled = append(profiled, r)
		}
	}
	if len(profiled) == 0 {
		return
	}
	b.WriteString("## Where the provider's time goes (plan and apply)\n\n")
	b.WriteString("`BENCH_PROFILE=1`: after a subject's timed steps in the first run, an untimed plan and apply of the same " +
		"configuration with the provider writing CPU profiles (`" + profileDirEnv + "`), `go tool pprof -top -cum` of the " +
		"largest profile of each.\n\n")
	for _, r := range profiled {
		for _, step := range profiledSteps {
			if top, ok := r.Profiles[step]; ok {
				fmt.Fprintf(b, "### %s, %s, N = %d%s\n\n```text\n%s\n```\n\n", r.Subject, step, r.N,
					age(results, r.N, r.Subject, step, m.Now), top)
			}
		}
	}
}
