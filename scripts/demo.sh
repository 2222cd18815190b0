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
"$kubectl" --kubeconfig "$kubeconfig" get nodes -L fixtures.gpuform.io/cloud,fixtures.gpuform.io/pool \
	-o custom-columns='NODE:.metadata.name,CLOUD:.metadata.labels.fixtures\.gpuform\.io/cloud,POOL:.metadata.labels.fixtures\.gpuform\.io/pool,INSTANCE:.metadata.labels.node\.kubernetes\.io/instance-type,GPU:.status.allocatable.nvidia\.com/gpu,TAINTS:.spec.taints[*].key' \
	--sort-by=.metadata.name

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
"$terraform" apply -auto-approve -input=false -compact-warnings -var "kubeconfig=$kubeconfig" |
	grep -E '^(gpu_workload|Apply complete)' || true

echo
echo "== Where the GPU workloads run"
"$terraform" output -json placements | python3 -c '
import json, sys
for name, p in sorted(json.load(sys.stdin).items()):
    print(f"{name:16} cloud={p[\"cloud\"]:10} resource={p[\"resource\"]:16} nodes={\",\".join(p[\"nodes\"])}")
'
echo
echo "State and CLI config are in $out; \`make demo-down\` removes them and the cluster."
