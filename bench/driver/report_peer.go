package main

import (
	"fmt"
	"strings"
)

// peerMeasured is the peer's bullet of "What is measured", or why there is
// none.
func peerMeasured(m meta) string {
	if m.Peer == "" {
		return "- **kubernetes_deployment_v1**: not measured in this run. " + noPeer + "\n"
	}
	return "- **kubernetes_deployment_v1** (hashicorp/terraform-provider-kubernetes, the \"peer\" above, through `dev_overrides` " +
		"in the run's CLI configuration): the Deployment gpu_workload renders for the same pool (labels, `Recreate`, " +
		"node selector, tolerations, node affinity, resource requests and limits) written as `count = N` " +
		"`kubernetes_deployment_v1` with `wait_for_rollout = true`, each in a fresh namespace per run, same four steps, " +
		"memory and CPU sampled as for gpu_workload. Its create polls the Deployment until rolled out; its destroy " +
		"deletes and polls until the Deployment is gone, not its pods (gpu_workload's also waits for the pods).\n"
}

// noPeer says why the peer is absent and how to add it.
const noPeer = "No `BENCH_PEER_KUBERNETES` was given: build terraform-provider-kubernetes with `" + peerBuildScript +
	" SOURCE` and set `BENCH_PEER_KUBERNETES` to the binary it writes."

// peerReport is the gpu_workload / kubernetes_deployment_v1 table: issue
// #24's goal is a wall-time ratio of at most 0.5 for every step and N.
func peerReport(b *strings.Builder, m meta, results []measurement) {
	b.WriteString("## Against terraform-provider-kubernetes\n\n")
	if m.Peer == "" {
		b.WriteString(noPeer + "\n\n")
		return
	}
	b.WriteString("gpu_workload divided by `kubernetes_deployment_v1` for the same Deployments, medians over runs. " +
		"The goal (issue #24) is a wall-time ratio of at most " + fmt.Sprintf("%.1f", peerGoal) + " for every step; the CPU and memory " +
		"ratios say where it comes from (\"terraform + provider\" is terraform with the providers it waited for, " +
		"\"provider\" the provider processes alone, memory the provider's peak `VmHWM`).\n\n")
	peerTable(b, m.Ns, results, m.Now)
	b.WriteString("\n")
	terraformShare(b, m.Ns, results)
}

// terraformShare is what Terraform itself spends for each subject, next to
// the state each resource leaves: the part of an apply and a destroy that
// no provider can remove.
func terraformShare(b *strings.Builder, ns []int, results []measurement) {
	b.WriteString("### Terraform's own share\n\n" +
		"Terraform's own CPU (terraform with its providers, less the providers; all of it for terraform_data) and the " +
		"state each resource leaves in `terraform.tfstate` after the apply, medians over runs. Terraform's local state " +
		"manager writes the whole file after every resource it creates or destroys, and (in Terraform v1.5.7's source) encodes the state three times per " +
		"write, so its CPU in an apply and a destroy grows with N² × the state per resource; on two cores that the control " +
		"plane shares, that CPU is wall time.\n\n")
	subjects := []string{subjectGPU, subjectPeer, subjectData}
	b.WriteString("| N | | " + strings.Join(subjects, " | ") + " |\n|---:|---|---:|---:|---:|\n")
	for _, n := range ns {
		row := fmt.Sprintf("| %d | state per resource |", n)
		for _, subject := range subjects {
			row += " " + fmtKB(stepValues(results, n, subject, stepApply, statePerResourceOf)) + " |"
		}
		b.WriteString(row + "\n")
		for _, step := range []string{stepApply, stepDestroy} {
			row := fmt.Sprintf("| %d | %s, Terraform's own CPU |", n, step)
			for _, subject := range subjects {
				row += " " + fmtSeconds(stepValues(results, n, subject, step, terraformCPUOf)) + " |"
			}
			b.WriteString(row + "\n")
		}
	}
	b.WriteString("\n")
}

// terraformCPUOf is terraform's CPU without its providers'.
func terraformCPUOf(m measurement, step string) (float64, bool) {
	all, ok := m.CPUSeconds[step]
	return all - m.ProviderCPUSeconds[step], ok
}

func statePerResourceOf(m measurement, _ string) (float64, bool) {
	return float64(m.StateBytes) / float64(m.N), m.StateBytes > 0 && m.N > 0
}

func fmtKB(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f KB", median(xs)/1000)
}

// peerTable has a row per N and step with the peer's figures (a run
// without the peer keeps an earlier run's, marked with their date).
func peerTable(b *strings.Builder, ns []int, results []measurement, now stamp) {
	b.WriteString("| N | step | gpu_workload | kubernetes_deployment_v1 | ratio | goal | met? | CPU ratio, terraform + provider | " +
		"provider CPU ratio | provider memory ratio |\n|---:|---|---:|---:|---:|---|---|---:|---:|---:|\n")
	for _, n := range ns {
		for _, c := range comparisons {
			gw, peer := seconds(results, n, subjectGPU, c.step), seconds(results, n, subjectPeer, c.step)
			if len(peer) == 0 {
				continue
			}
			ratio, met := "–", "–"
			if r, ok := ratioOf(gw, peer); ok {
				ratio, met = fmt.Sprintf("%.2f", r), yesNo(r <= peerGoal)
				if age(results, n, subjectGPU, c.step, now) != age(results, n, subjectPeer, c.step, now) {
					ratio, met = ratio+" (different runs)", "–"
				}
			}
			cpu := fmtRatio(stepValues(results, n, subjectGPU, c.step, cpuOf), stepValues(results, n, subjectPeer, c.step, cpuOf))
			prov := fmtRatio(stepValues(results, n, subjectGPU, c.step, providerCPUOf),
				stepValues(results, n, subjectPeer, c.step, providerCPUOf))
			mem := fmtRatio(stepValues(results, n, subjectGPU, c.step, providerMemOf),
				stepValues(results, n, subjectPeer, c.step, providerMemOf))
			fmt.Fprintf(b, "| %d | %s | %s | %s | %s | ≤ %.1f | %s | %s | %s | %s |\n", n, c.label,
				agedSeconds(results, n, subjectGPU, c.step, now), agedSeconds(results, n, subjectPeer, c.step, now),
				ratio, peerGoal, met, cpu, prov, mem)
		}
	}
}

func cpuOf(m measurement, step string) (float64, bool) {
	v, ok := m.CPUSeconds[step]
	return v, ok
}

func providerCPUOf(m measurement, step string) (float64, bool) {
	v, ok := m.ProviderCPUSeconds[step]
	return v, ok
}

func providerMemOf(m measurement, step string) (float64, bool) {
	v, ok := m.ProviderHWMKiB[step]
	return float64(v), ok && v > 0
}

// stepValues collects one number of a subject's step at n over the runs.
func stepValues(results []measurement, n int, subject, step string, get func(measurement, string) (float64, bool)) []float64 {
	var out []float64
	for _, m := range results {
		if m.N != n || m.Subject != subject {
			continue
		}
		if v, ok := get(m, step); ok {
			out = append(out, v)
		}
	}
	return out
}

// ratioOf is median(a) / median(b), when both have values and b's is not 0.
func ratioOf(a, b []float64) (float64, bool) {
	if len(a) == 0 || len(b) == 0 || median(b) <= 0 {
		return 0, false
	}
	return median(a) / median(b), true
}

func fmtRatio(a, b []float64) string {
	if r, ok := ratioOf(a, b); ok {
		return fmt.Sprintf("%.2f", r)
	}
	return "–"
}
