#!/usr/bin/env bash
# `make bench`: the scripted performance benchmark on the local cluster.
# Builds the benchmark driver and the API floor (bench/), then runs N
# gpu_workload resources, N terraform_data resources and the API floor for
# every N in BENCH_N, BENCH_RUNS times, plus the Go benchmarks of
# internal/render, then the large-cluster scenario (K kwok GPU nodes cloned
# from scripts/localcluster/fixtures, P bound GPU pods, 3 plans of a
# gpu_cluster_capacity data source), and writes BENCH_OUT (default
# bench/results.md).
#
#   BENCH_N="100 300"   numbers of workloads (default)
#   BENCH_RUNS=3        runs per N; the report shows medians
#   BENCH_N_ONCE=1000   numbers of workloads measured in the first run only:
#                       the large repository of issue #14; "" skips it
#   BENCH_OUT=...       report path (raw numbers go beside it, .json)
#   BENCH_GO_BENCHTIME  go test -benchtime (default 1s)
#   BENCH_KEEP=1        keep the terraform working directories and logs
#   BENCH_SCALE=1       large cluster: K = round(5000 x scale) nodes and
#                       P = round(20000 x scale) pods (the default 1 is the
#                       goal size of issue #14: about 8 minutes on 2 cores);
#                       0 skips it (the report keeps the previous run's
#                       section); 0.02 is a smoke run (100 nodes, 400 pods)
#   BENCH_ONLY=scale    only the large cluster: replaces its section of
#                       BENCH_OUT (and "scale" in the JSON), keeps the rest;
#                       BENCH_ONLY=workloads is everything but it
#   BENCH_SUBJECTS="gpu dra peer data floor dra-floor go"
#                       what to measure (default: all): gpu_workload, the
#                       same through DRA on DRA nodes (issue #32), the peer
#                       (with BENCH_PEER_KUBERNETES), terraform_data, the
#                       API floor, the API floor through DRA (the control
#                       plane's share of the DRA apply), the Go benchmarks. The report merges with
#                       the previous results.json: rows this run measured
#                       replace theirs, the others keep their figures and
#                       are marked with the date and commit they were
#                       measured at. A failed subject is reported and the
#                       others are still written; the exit code is then 1.
#   BENCH_PROFILE=1     after the first run's timed steps, profile an
#                       untimed plan and apply of gpu_workload and its DRA
#                       variant (the report shows the top of each; the
#                       profiles stay in the work directory with BENCH_KEEP=1)
#   BENCH_PEER_KUBERNETES=bin/terraform-provider-kubernetes
#                       also measure the same N Deployments as
#                       kubernetes_deployment_v1 of that provider binary
#                       (dev_overrides for hashicorp/kubernetes), and report
#                       gpu_workload / kubernetes ratios (issue #24: <= 0.5);
#                       scripts/bench-peer-build.sh builds it from source
#
# Everything the run creates on the cluster (kwok nodes bench-<id>-<i>,
# bench-<id>-dra-<i> and bench-<id>-<fixture>-<i>, the DRA nodes'
# ResourceSlices, namespaces bench-<id>-..., the large cluster's pods) is
# labelled gpuform.io/bench=<id> and removed at the end, also when
# the run fails or is interrupted. Every bench node is also tainted
# gpuform.io/bench=<id>:NoSchedule, so no other pod lands on it.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
state_dir="${GPU_CLUSTER_DIR:-$root/.localcluster}"
kubeconfig="$state_dir/kubeconfig"
provider_bin="${PROVIDER_BIN:-$root/bin/terraform-provider-gpu}"
driver="$root/bin/gpu-bench"
apifloor="$root/bin/gpu-bench-apifloor"

build() {
	go build -C "$root" -o "$driver" ./bench/driver
	go build -C "$root" -o "$apifloor" ./bench/apifloor
}

# run_id is 5 random lower-case letters and digits, unique enough to share
# the cluster with other runs and tests.
run_id() {
	local id
	id="$(LC_ALL=C tr -dc 'a-z0-9' </dev/urandom | head -c 5)" || true
	echo "$id"
}

cleanup() {
	# The driver cleans up after itself; this catches a driver that died.
	"$driver" cleanup -kubeconfig "$kubeconfig" -id "$id" >/dev/null 2>&1 || true
}

main() {
	if [[ ! -r $kubeconfig ]]; then
		echo "bench: no cluster kubeconfig at $kubeconfig (run make cluster-up)" >&2
		exit 1
	fi
	if [[ ! -x $provider_bin ]]; then
		echo "bench: no provider binary at $provider_bin (run make build)" >&2
		exit 1
	fi
	local peer="${BENCH_PEER_KUBERNETES:-}"
	if [[ -n $peer && ! -x $peer ]]; then
		echo "bench: BENCH_PEER_KUBERNETES=$peer is not an executable (build it with scripts/bench-peer-build.sh)" >&2
		exit 1
	fi
	build
	id="$(run_id)"
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	cd "$root"
	"$driver" run \
		-id "$id" \
		-kubeconfig "$kubeconfig" \
		-terraform "$("$root/scripts/terraform.sh")" \
		-provider "$provider_bin" \
		-apifloor "$apifloor" \
		-root "$root" \
		-n "${BENCH_N:-100 300}" \
		-runs "${BENCH_RUNS:-3}" \
		-n-once "${BENCH_N_ONCE-1000}" \
		-out "${BENCH_OUT:-$root/bench/results.md}" \
		-benchtime "${BENCH_GO_BENCHTIME:-1s}" \
		-keep="$([[ ${BENCH_KEEP:-} == 1 ]] && echo true || echo false)" \
		-scale "${BENCH_SCALE:-1}" \
		-only "${BENCH_ONLY:-}" \
		-peer-kubernetes "$peer" \
		-subjects "${BENCH_SUBJECTS:-}" \
		-profile="$([[ ${BENCH_PROFILE:-} == 1 ]] && echo true || echo false)" \
		-fixtures "$root/scripts/localcluster/fixtures"
}

main "$@"
