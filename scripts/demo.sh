#!/usr/bin/env bash
# `make demo`: shows the simulated GPU pools of the local cluster, then applies
# examples/quickstart with the freshly built provider through a dev_overrides
# CLI configuration written under demo-output/ (the user's own ~/.terraformrc
# is never read or touched) and prints where each workload landed.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
state_dir="${GPU_CLUSTER_DIR:-$root/.localcluster}"
kubeconfig="$state_dir/kubeconfig"
out="$root/demo-output"
provider_bin="${PROVIDER_BIN:-$root/bin/terraform-provider-gpu}"
terraform="$("$root/scripts/terraform.sh")"
. "$root/scripts/localcluster/versions.env"
kubectl="${GPU_CLUSTER_CACHE:-$HOME/.cache/terraform-provider-gpu/localcluster}/bin/kube-$KUBE_VERSION/kubectl"

echo "== Simulated GPU node pools"
"$kubectl" --kubeconfig "$kubeconfig" get nodes -o json | python3 -c '
import json, sys
from collections import OrderedDict
pools = OrderedDict()
for n in sorted(json.load(sys.stdin)["items"], key=lambda n: n["metadata"]["name"]):
    labels = n["metadata"].get("labels", {})
    pool = labels.get("fixtures.gpuform.io/pool", n["metadata"]["name"])
    gpus = {k: v for k, v in n["status"].get("allocatable", {}).items() if k.startswith("nvidia.com/")}
    taints = sorted({"%s:%s" % (t["key"], t["effect"]) for t in n["spec"].get("taints", [])})
    p = pools.setdefault(pool, {"cloud": labels.get("fixtures.gpuform.io/cloud", "-"), "nodes": 0,
        "instance": labels.get("node.kubernetes.io/instance-type", "-"), "gpus": gpus, "taints": taints})
    p["nodes"] += 1
print("%-24s %-14s %-5s %-26s %-34s %s" % ("POOL", "CLOUD", "NODES", "INSTANCE", "GPU RESOURCE PER NODE", "TAINTS"))
for name, p in pools.items():
    gpu = ", ".join("%s=%s" % kv for kv in sorted(p["gpus"].items())) or "-"
    print("%-24s %-14s %-5d %-26s %-34s %s" % (name, p["cloud"], p["nodes"], p["instance"], gpu, " ".join(p["taints"]) or "-"))
'

mkdir -p "$out/quickstart"
cat >"$out/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "gpuform/gpu" = "$(dirname "$provider_bin")"
  }
  direct {}
}
RC
cp "$root/examples/quickstart/main.tf" "$out/quickstart/main.tf"
"$kubectl" --kubeconfig "$kubeconfig" create namespace gpu-demo --dry-run=client -o yaml |
	"$kubectl" --kubeconfig "$kubeconfig" apply -f - >/dev/null

echo
echo "== terraform apply examples/quickstart (provider from $provider_bin)"
cd "$out/quickstart"
export TF_CLI_CONFIG_FILE="$out/terraformrc" TF_IN_AUTOMATION=1
"$terraform" apply -auto-approve -input=false -no-color -compact-warnings -var "kubeconfig=$kubeconfig" |
	grep -E '^(gpu_workload|Apply complete)' || true

echo
echo "== Where the GPU workloads run"
"$terraform" output -no-color -json placements | python3 -c '
import json, sys
for name, p in sorted(json.load(sys.stdin).items()):
    print("%-16s cloud=%-10s resource=%-16s nodes=%s" % (name, p["cloud"], p["resource"], ",".join(p["nodes"])))
'
echo
echo "== Helm values written for the same pool (helm upgrade -f ...)"
"$terraform" output -no-color -json helm_values | python3 -c '
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
for chart, values in sorted(json.load(sys.stdin).items()):
    path = out / f"values-{chart}.yaml"
    path.write_text(values)
    print(f"{chart:20} {path}  ({len(values.splitlines())} lines)")
' "$out"

# Queues: two teams share the A100 pool through the real Kueue; team A's
# second Job waits in its queue, then is admitted when the first finishes.
echo
echo "== terraform apply examples/queues (Kueue: two teams, one pool)"
mkdir -p "$out/queues"
cp "$root/examples/queues/main.tf" "$out/queues/main.tf"
for ns in team-a team-b; do
	"$kubectl" --kubeconfig "$kubeconfig" create namespace "$ns" --dry-run=client -o yaml |
		"$kubectl" --kubeconfig "$kubeconfig" apply -f - >/dev/null
done
(
	cd "$out/queues"
	"$terraform" apply -auto-approve -input=false -no-color -var "kubeconfig=$kubeconfig" 2>&1 |
		grep -E '^(gpu_queue|gpu_workload).*(Creation complete|Creating)|is waiting in queue|Kueue Workload|Apply complete' || true
)
echo
echo "== Kueue's view of team A's Jobs until train-2 is admitted"
jobs() {
	"$kubectl" --kubeconfig "$kubeconfig" -n team-a get workloads.kueue.x-k8s.io \
		-o custom-columns='WORKLOAD:.metadata.name,QUEUE:.spec.queueName,ADMITTED:.status.conditions[?(@.type=="Admitted")].status,FINISHED:.status.conditions[?(@.type=="Finished")].status'
}
jobs
for _ in $(seq 1 300); do
	admitted=$("$kubectl" --kubeconfig "$kubeconfig" -n team-a get workloads.kueue.x-k8s.io \
		-l kueue.x-k8s.io/job-uid="$("$kubectl" --kubeconfig "$kubeconfig" -n team-a get job train-2 -o jsonpath='{.metadata.uid}')" \
		-o jsonpath='{.items[0].status.conditions[?(@.type=="Admitted")].status}' 2>/dev/null || true)
	[[ $admitted == True ]] && break
	sleep 0.2
done
echo "-- train-2 admitted: ${admitted:-no}"
jobs
"$kubectl" --kubeconfig "$kubeconfig" -n team-a get pods -o custom-columns='POD:.metadata.name,NODE:.spec.nodeName,PHASE:.status.phase'

# DRA: a pool of the dra-h100 nodes (no nvidia.com/gpu; NVIDIA's driver's
# ResourceSlices), a workload on it, and what the scheduler allocated.
echo
echo "== terraform apply examples/dra (a DRA pool and a workload whose claim asks for 2 H100s)"
mkdir -p "$out/dra"
cp "$root/examples/dra/main.tf" "$out/dra/main.tf"
(
	cd "$out/dra"
	"$terraform" apply -auto-approve -input=false -no-color -compact-warnings -var "kubeconfig=$kubeconfig" 2>&1 |
		grep -E '^(gpu_node_pool_policy|gpu_workload).*Creation complete|Apply complete' || true
	echo "-- the pod's claim, allocated by the scheduler (driver, pool = node, device):"
	"$kubectl" --kubeconfig "$kubeconfig" -n gpu-demo get resourceclaims \
		-o custom-columns='CLAIM:.metadata.name,CLASS:.spec.devices.requests[0].exactly.deviceClassName,STATE:.status.allocation.devices.results[*].pool,DEVICES:.status.allocation.devices.results[*].device'
)

# Topology: a Job of 4 pods x 8 GPUs that Kueue admits only into one block
# of the GKE topology pool, and the block each pod landed in.
echo
echo "== terraform apply examples/topology (Kueue TAS: 4 pods x 8 GPUs, one block required)"
mkdir -p "$out/topology"
cp "$root/examples/topology/main.tf" "$out/topology/main.tf"
"$kubectl" --kubeconfig "$kubeconfig" create namespace gpu-demo-tas --dry-run=client -o yaml |
	"$kubectl" --kubeconfig "$kubeconfig" apply -f - >/dev/null
(
	cd "$out/topology"
	"$terraform" apply -auto-approve -input=false -no-color -compact-warnings -var "kubeconfig=$kubeconfig" 2>&1 |
		grep -E '^(gpu_node_pool_policy|gpu_queue|gpu_workload).*Creation complete|Apply complete' || true
)
echo "-- where the Job's pods landed (node, its block and sub-block):"
"$kubectl" --kubeconfig "$kubeconfig" -n gpu-demo-tas get pods -l app.kubernetes.io/name=pretrain \
	-o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | while read -r node; do
	[[ -n $node ]] && "$kubectl" --kubeconfig "$kubeconfig" get node "$node" \
		-o jsonpath='{.metadata.name}{"  block="}{.metadata.labels.cloud\.google\.com/gce-topology-block}{"  subblock="}{.metadata.labels.cloud\.google\.com/gce-topology-subblock}{"\n"}'
done

# The real thing: helm upgrade --install of the FiftyOne chart with the
# values generated above (Helm's own library, scripts/chartinstall), then
# where its GPU runner's pods landed, next to the gpu_workload placements.
charts="${GPU_CHARTS_DIR:-$root/../shared/charts}"
echo
if [[ -d "$charts/src/fiftyone-teams-app" ]]; then
	echo "== helm upgrade --install fiftyone-teams-app with values-fiftyone-teams-app.yaml"
	"$kubectl" --kubeconfig "$kubeconfig" create namespace fiftyone-demo --dry-run=client -o yaml |
		"$kubectl" --kubeconfig "$kubeconfig" apply -f - >/dev/null
	printf 'namespace: {name: fiftyone-demo}\nteamsAppSettings: {dnsName: fiftyone.demo.test}\n' >"$out/values-fiftyone-site.yaml"
	(cd "$root" && go run ./scripts/chartinstall -kubeconfig "$kubeconfig" -chart "$charts/src/fiftyone-teams-app" \
		-release fiftyone -namespace fiftyone-demo -f "$out/values-fiftyone-site.yaml" -f "$out/values-fiftyone-teams-app.yaml")
	for _ in $(seq 1 100); do
		pending=$("$kubectl" --kubeconfig "$kubeconfig" -n fiftyone-demo get pods -l app.kubernetes.io/name=gpu-a100 \
			-o jsonpath='{range .items[?(@.spec.nodeName=="")]}{.metadata.name}{"\n"}{end}')
		[[ -z "$pending" ]] && break
		sleep 0.2
	done
	echo
	echo "== Where FiftyOne's GPU runner (delegatedOperatorDeployments.deployments.gpuA100) runs"
	"$kubectl" --kubeconfig "$kubeconfig" -n fiftyone-demo get pods -l app.kubernetes.io/name=gpu-a100 \
		-o custom-columns='POD:.metadata.name,NODE:.spec.nodeName,GPU:.spec.containers[0].resources.limits.nvidia\.com/gpu'
else
	echo "== charts: skipped: the FiftyOne chart install (no $charts/src/fiftyone-teams-app; set GPU_CHARTS_DIR)"
fi
echo
echo "State and CLI config are in $out; \`make demo-down\` removes them and the cluster."
