#!/usr/bin/env bash
# `make demo`: shows the simulated GPU pools of the local cluster, then applies
# examples/quickstart (and the queues, DRA, topology, distributed and Ray
# examples) with the freshly built provider through a dev_overrides
# CLI configuration written under demo-output/ (the user's own ~/.terraformrc
# is never read or touched) and prints where each workload landed.
#
# Every step that fails stops the demo with a non-zero exit and shows that
# step's whole output: terraform's output is captured to a log under
# demo-output/logs and filtered for display only after it succeeded.
# demo_test.go runs the failure paths with a stub terraform and kubectl.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
state_dir="${GPU_CLUSTER_DIR:-$root/.localcluster}"
kubeconfig="$state_dir/kubeconfig"
out="${GPU_DEMO_OUTPUT:-$root/demo-output}"
provider_bin="${PROVIDER_BIN:-$root/bin/terraform-provider-gpu}"
terraform="$("$root/scripts/terraform.sh")"
. "$root/scripts/localcluster/versions.env"
kubectl="${GPU_CLUSTER_CACHE:-$HOME/.cache/terraform-provider-gpu/localcluster}/bin/kube-$KUBE_VERSION/kubectl"

# fail WHAT [LOG]: stops the demo saying what failed, with the log's content.
fail() {
	echo "demo: FAILED: $1" >&2
	if [[ -n ${2:-} ]]; then
		sed 's/^/  | /' "$2" >&2
		echo "demo: the whole output is in $2" >&2
	fi
	exit 1
}

# tf_step NAME FILTER ARGS...: runs terraform ARGS with stdout and stderr
# captured in $out/logs/NAME.log. On failure the demo stops with all of it;
# on success only the lines matching FILTER are shown (none matching is fine:
# the filter only shortens what is shown, the exit status decides).
tf_step() {
	local name=$1 filter=$2 log rc=0
	shift 2
	log="$out/logs/$name.log"
	"$terraform" "$@" >"$log" 2>&1 || rc=$?
	((rc == 0)) || fail "terraform $1 ($name) exited with $rc" "$log"
	grep -E "$filter" "$log" || true
}

# kc ARGS...: kubectl on the local cluster; set -e stops the demo when it
# fails, and its error is on stderr.
kc() { "$kubectl" --kubeconfig "$kubeconfig" "$@"; }

ensure_namespace() { kc create namespace "$1" --dry-run=client -o yaml | kc apply -f - >/dev/null; }

mkdir -p "$out/logs"

# One table of the simulated pools (`make demo` starts the cluster with
# GPU_CLUSTER_SUMMARY=0, so this is the only one): a pool whose nodes differ
# (GKE Autopilot's two machine sizes) lists every instance type and every
# per-node GPU resource, a DRA node shows what its ResourceSlices hold, and
# taints are shown as kubectl writes them, key=value:effect.
echo "== Simulated GPU node pools"
kc get nodes -l fixtures.gpuform.io/pool -o json >"$out/logs/nodes.json"
kc get resourceslices -o json >"$out/logs/resourceslices.json"
python3 - "$out/logs/nodes.json" "$out/logs/resourceslices.json" <<'PY'
import json, sys
from collections import Counter, OrderedDict

nodes = json.load(open(sys.argv[1]))["items"]
dra = {}  # node -> Counter of (driver, device type)
for s in json.load(open(sys.argv[2]))["items"]:
    spec = s.get("spec", {})
    for d in spec.get("devices", []):
        attrs = d.get("attributes", {})
        kind = attrs.get("type", {}).get("string", "device")
        if "profile" in attrs:
            kind += " " + attrs["profile"].get("string", "")
        dra.setdefault(spec.get("nodeName", ""), Counter())[(spec.get("driver", "?"), kind)] += 1

def add(seq, item):
    if item not in seq:
        seq.append(item)

pools = OrderedDict()
for n in sorted(nodes, key=lambda n: n["metadata"]["name"]):
    name, labels = n["metadata"]["name"], n["metadata"].get("labels", {})
    p = pools.setdefault(labels["fixtures.gpuform.io/pool"], {
        "cloud": labels.get("fixtures.gpuform.io/cloud", "-"), "nodes": 0, "instances": [], "gpus": [], "taints": []})
    p["nodes"] += 1
    add(p["instances"], labels.get("node.kubernetes.io/instance-type", "-"))
    gpus = ", ".join("%s=%s" % kv for kv in sorted(n["status"].get("allocatable", {}).items())
                     if kv[0].startswith(("nvidia.com/", "amd.com/")))
    if name in dra:
        gpus = "DRA " + ", ".join("%s: %d %s" % (drv, c, kind) for (drv, kind), c in sorted(dra[name].items()))
    add(p["gpus"], gpus or "-")
    for t in n["spec"].get("taints", []):
        add(p["taints"], "%s%s:%s" % (t["key"], "=" + t["value"] if t.get("value") else "", t["effect"]))

print("%-22s %-13s %-5s %-36s %-44s %s" % ("POOL", "CLOUD", "NODES", "INSTANCE TYPES", "GPU RESOURCES PER NODE", "TAINTS"))
for name, p in pools.items():
    print("%-22s %-13s %-5d %-36s %-44s %s" % (name, p["cloud"], p["nodes"], ",".join(p["instances"]),
                                             " / ".join(p["gpus"]), " ".join(p["taints"]) or "-"))
PY

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
ensure_namespace gpu-demo

echo
echo "== terraform apply examples/quickstart (provider from $provider_bin)"
cd "$out/quickstart"
export TF_CLI_CONFIG_FILE="$out/terraformrc" TF_IN_AUTOMATION=1
tf_step quickstart '^(gpu_workload|Apply complete)' \
	apply -auto-approve -input=false -no-color -compact-warnings -var "kubeconfig=$kubeconfig"

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
ensure_namespace team-a
ensure_namespace team-b
(
	cd "$out/queues"
	tf_step queues '^(gpu_queue|gpu_workload).*(Creation complete|Creating)|is waiting in queue|Kueue Workload|Apply complete' \
		apply -auto-approve -input=false -no-color -var "kubeconfig=$kubeconfig"
)
echo
echo "== Kueue's view of team A's Jobs until train-2 is admitted"
team_a_workloads() {
	kc -n team-a get workloads.kueue.x-k8s.io \
		-o custom-columns='WORKLOAD:.metadata.name,QUEUE:.spec.queueName,ADMITTED:.status.conditions[?(@.type=="Admitted")].status,FINISHED:.status.conditions[?(@.type=="Finished")].status'
}
team_a_workloads
train2_uid=$(kc -n team-a get job train-2 -o jsonpath='{.metadata.uid}')
admitted=
for _ in $(seq 1 300); do
	# A poll: the Workload may not exist yet, so a failed read is retried.
	admitted=$(kc -n team-a get workloads.kueue.x-k8s.io -l kueue.x-k8s.io/job-uid="$train2_uid" \
		-o jsonpath='{.items[0].status.conditions[?(@.type=="Admitted")].status}' 2>/dev/null || true)
	[[ $admitted == True ]] && break
	sleep 0.2
done
team_a_workloads
[[ $admitted == True ]] || fail "Kueue did not admit team A's train-2 within 60 s (Admitted=${admitted:-none}); see the table above"
echo "-- train-2 admitted"
kc -n team-a get pods -o custom-columns='POD:.metadata.name,NODE:.spec.nodeName,PHASE:.status.phase'

# DRA: a pool of the dra-h100 nodes (no nvidia.com/gpu; NVIDIA's driver's
# ResourceSlices), a workload on it, and what the scheduler allocated.
echo
echo "== terraform apply examples/dra (a DRA pool and a workload whose claim asks for 2 H100s)"
mkdir -p "$out/dra"
cp "$root/examples/dra/main.tf" "$out/dra/main.tf"
(
	cd "$out/dra"
	tf_step dra '^(gpu_node_pool_policy|gpu_workload).*Creation complete|Apply complete' \
		apply -auto-approve -input=false -no-color -compact-warnings -var "kubeconfig=$kubeconfig"
)
echo "-- the pod's claim as the scheduler allocated it (the DRA driver's pool is the node):"
kc -n gpu-demo get resourceclaims \
	-o custom-columns='CLAIM:.metadata.name,CLASS:.spec.devices.requests[0].exactly.deviceClassName,DRIVER:.status.allocation.devices.results[*].driver,POOL:.status.allocation.devices.results[*].pool,DEVICES:.status.allocation.devices.results[*].device'

# Topology: a Job of 4 pods x 8 GPUs that Kueue admits only into one block
# of the GKE topology pool, and the block each pod landed in.
echo
echo "== terraform apply examples/topology (Kueue TAS: 4 pods x 8 GPUs, one block required)"
mkdir -p "$out/topology"
cp "$root/examples/topology/main.tf" "$out/topology/main.tf"
ensure_namespace gpu-demo-tas
(
	cd "$out/topology"
	tf_step topology '^(gpu_node_pool_policy|gpu_queue|gpu_workload).*Creation complete|Apply complete' \
		apply -auto-approve -input=false -no-color -compact-warnings -var "kubeconfig=$kubeconfig"
)
echo "-- where the Job's pods landed (node, its block and sub-block):"
mapfile -t tas_nodes < <(kc -n gpu-demo-tas get pods -l app.kubernetes.io/name=pretrain -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}')
((${#tas_nodes[@]})) || fail "the topology example's Job has no pods"
for node in "${tas_nodes[@]}"; do
	[[ -n $node ]] || fail "a pod of the topology example's Job is not scheduled"
	kc get node "$node" \
		-o jsonpath='{.metadata.name}{"  block="}{.metadata.labels.cloud\.google\.com/gce-topology-block}{"  subblock="}{.metadata.labels.cloud\.google\.com/gce-topology-subblock}{"\n"}'
done

# A distributed job that forms: 4 pods x 8 GPUs on the EKS p5 pool, one
# Kueue workload; each pod's node rank is its completion index and every
# pod names pod 0 under the headless Service as torchrun's master. (kwok
# completes the pods at once; the acceptance tests keep them running and
# read the Service's EndpointSlice.)
echo
echo "== terraform apply examples/distributed (a 4-node torchrun job: Indexed Job + headless Service)"
mkdir -p "$out/distributed"
cp "$root/examples/distributed/main.tf" "$out/distributed/main.tf"
ensure_namespace gpu-demo-dist
(
	cd "$out/distributed"
	tf_step distributed '^(gpu_node_pool_policy|gpu_queue|gpu_workload).*Creation complete|Apply complete' \
		apply -auto-approve -input=false -no-color -compact-warnings -var "kubeconfig=$kubeconfig" -var namespace=gpu-demo-dist
)
echo "-- each pod: its node, its node rank (the completion index) and the master address it was given:"
kc -n gpu-demo-dist get pods -l app.kubernetes.io/name=pretrain --sort-by=.spec.hostname \
	-o custom-columns='POD:.spec.hostname,NODE:.spec.nodeName,NODE_RANK:.metadata.annotations.batch\.kubernetes\.io/job-completion-index,MASTER:.spec.containers[0].env[?(@.name=="PET_MASTER_ADDR")].value'

# A Ray cluster through the real KubeRay operator: a CPU head and two GPU
# worker groups, each on its own EKS node group, and what Ray is told each
# group's pods have (num-gpus). Ray itself does not run on kwok's nodes.
echo
echo "== terraform apply examples/ray (KubeRay: a CPU head, A100 training and A10G serving groups)"
mkdir -p "$out/ray"
cp "$root/examples/ray/main.tf" "$out/ray/main.tf"
ensure_namespace gpu-demo-ray
(
	cd "$out/ray"
	tf_step ray '^(gpu_node_pool_policy|gpu_ray_cluster).*Creation complete|Apply complete' \
		apply -auto-approve -input=false -no-color -compact-warnings -var "kubeconfig=$kubeconfig" -var namespace=gpu-demo-ray
)
echo "-- where each group's pods landed, the GPUs they ask for, and what Ray is told:"
kc -n gpu-demo-ray get pods -l ray.io/cluster=llm --sort-by='.metadata.labels.ray\.io/group' \
	-o custom-columns='GROUP:.metadata.labels.ray\.io/group,POD:.metadata.name,NODE:.spec.nodeName,GPU:.spec.containers[0].resources.limits.nvidia\.com/gpu'
kc -n gpu-demo-ray get raycluster llm \
	-o jsonpath='{"num-gpus: head="}{.spec.headGroupSpec.rayStartParams.num-gpus}{range .spec.workerGroupSpecs[*]}{"  "}{.groupName}{"="}{.rayStartParams.num-gpus}{end}{"\n"}'

# The real thing: helm upgrade --install of the FiftyOne chart with the
# values generated above (Helm's own library, scripts/chartinstall), then
# where its GPU runner's pods landed, next to the gpu_workload placements.
charts="${GPU_CHARTS_DIR:-$root/../shared/charts}"
echo
if [[ -d "$charts/src/fiftyone-teams-app" ]]; then
	echo "== helm upgrade --install fiftyone-teams-app with values-fiftyone-teams-app.yaml"
	ensure_namespace fiftyone-demo
	printf 'namespace: {name: fiftyone-demo}\nteamsAppSettings: {dnsName: fiftyone.demo.test}\n' >"$out/values-fiftyone-site.yaml"
	(cd "$root" && go run ./scripts/chartinstall -kubeconfig "$kubeconfig" -chart "$charts/src/fiftyone-teams-app" \
		-release fiftyone -namespace fiftyone-demo -f "$out/values-fiftyone-site.yaml" -f "$out/values-fiftyone-teams-app.yaml")
	pending=unknown
	for _ in $(seq 1 100); do
		pending=$(kc -n fiftyone-demo get pods -l app.kubernetes.io/name=gpu-a100 \
			-o jsonpath='{range .items[?(@.spec.nodeName=="")]}{.metadata.name}{"\n"}{end}')
		[[ -z "$pending" ]] && break
		sleep 0.2
	done
	echo
	echo "== Where FiftyOne's GPU runner (delegatedOperatorDeployments.deployments.gpuA100) runs"
	kc -n fiftyone-demo get pods -l app.kubernetes.io/name=gpu-a100 \
		-o custom-columns='POD:.metadata.name,NODE:.spec.nodeName,GPU:.spec.containers[0].resources.limits.nvidia\.com/gpu'
	[[ -z "$pending" ]] || fail "FiftyOne's GPU runner is not scheduled after 20 s: $pending"
else
	echo "== charts: skipped: the FiftyOne chart install (no $charts/src/fiftyone-teams-app; set GPU_CHARTS_DIR)"
fi
echo
echo "State and CLI config are in $out; \`make demo-down\` removes them and the cluster."
