#!/usr/bin/env bash
# The local cluster's fake GPU nodes (fixtures/*.yaml): apply, wait until Ready, summary: sourced by cluster.sh, which sets the variables and helpers used here
# (STATE_DIR, CACHE_DIR, log, die, ...) before it sources this file.
# shellcheck disable=SC2154 # variables are set by cluster.sh before it sources this file

# The DRA pools' DeviceClasses and ResourceSlices (apply_dra, dra_devices_per_node).
# shellcheck source=dra.sh
. "$SCRIPT_DIR/dra.sh"

# ------------------------------------------------------------------------------------------- fixtures

# FIXTURE_KUBECTL is an array: kubectl binary plus connection flags of the target cluster.
FIXTURE_KUBECTL=()
fk() { "${FIXTURE_KUBECTL[@]}" "$@"; }

apply_fixtures() {
  ((${#FIXTURE_KUBECTL[@]})) || FIXTURE_KUBECTL=("$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" --context gpu-local)
  # Server-side apply creates the nodes with their status (capacity, allocatable, addresses): a Node's
  # status is accepted on create. On later runs the main resource ignores status changes, so the status
  # subresource is applied too; kwok owns the conditions, this field manager owns capacity/allocatable.
  fk apply --server-side --force-conflicts --field-manager "$FIELD_MANAGER" -f "$FIXTURES_DIR" >/dev/null ||
    { log "applying $FIXTURES_DIR failed"; return 1; }
  fk apply --server-side --force-conflicts --field-manager "$FIELD_MANAGER" --subresource status -f "$FIXTURES_DIR" >/dev/null ||
    { log "applying the status of $FIXTURES_DIR failed"; return 1; }
  apply_dra
}

# fixture_nodes_ready: every fixture node (one per document in fixtures/) exists, is Ready and carries
# none of the not-ready/unreachable taints the node lifecycle controller adds.
fixture_nodes_ready() {
  local out want
  want=$(cat "$FIXTURES_DIR"/*.yaml | grep -c '^kind: Node$')
  out=$(fk get nodes -l "$FIXTURE_SELECTOR" -o go-template='{{range .items}}{{.metadata.name}}{{" "}}{{range .status.conditions}}{{if eq .type "Ready"}}{{.status}}{{end}}{{end}}{{range .spec.taints}}{{" "}}{{.key}}{{end}}{{"\n"}}{{end}}') || return 1
  awk -v want="$want" '
    { n++ }
    $2 != "True" || /node\.kubernetes\.io\/(not-ready|unreachable)/ { bad++ }
    END { exit !(n >= want && bad == 0) }' <<<"$out"
}

wait_fixture_nodes() {
  wait_for "every fixture node to be Ready (is kwok running against this cluster?)" fixture_nodes_ready
}

summary() {
  local nodes
  # shellcheck disable=SC2016 # $k/$v are go-template variables
  nodes=$(fk get nodes -l "$FIXTURE_SELECTOR" -o go-template='{{range .items}}{{index .metadata.labels "fixtures.gpuform.io/cloud"}}{{"\t"}}{{index .metadata.labels "fixtures.gpuform.io/pool"}}{{"\t"}}{{range .status.conditions}}{{if eq .type "Ready"}}{{.status}}{{end}}{{end}}{{"\t"}}{{index .metadata.labels "node.kubernetes.io/instance-type"}}{{"\t"}}{{range $k, $v := .status.capacity}}{{$k}}={{$v}}{{" "}}{{end}}{{"\t"}}{{.metadata.name}}{{"\n"}}{{end}}') || return 1
  # The first input is the DRA devices of each node (dra_devices_per_node): a DRA node shows those instead
  # of extended resources, which it has none of.
  awk -F'\t' '
    FILENAME == ARGV[1] { dra[$1] = "DRA " $2; next }
    {
      key = $1 SUBSEP $2
      if (!(key in total)) order[++n] = key
      total[key]++
      if ($3 == "True") ready[key]++
      if (index(types[key], $4) == 0) types[key] = types[key] (types[key] == "" ? "" : ",") $4
      gpu = ""
      m = split($5, kv, " ")
      for (i = 1; i <= m; i++) if (kv[i] ~ /^(nvidia\.com|amd\.com)\//) gpu = gpu (gpu == "" ? "" : " ") kv[i]
      if ($6 in dra) gpu = dra[$6]
      if (gpu == "") gpu = "-"
      if (index("|" res[key] "|", "|" gpu "|") == 0) res[key] = res[key] (res[key] == "" ? "" : "|") gpu
    }
    END {
      printf "%-24s %-14s %-6s %-30s %s\n", "POOL", "CLOUD", "READY", "INSTANCE TYPE", "GPU CAPACITY PER NODE"
      for (i = 1; i <= n; i++) {
        split(order[i], p, SUBSEP)
        r = res[order[i]]; gsub(/\|/, " / ", r)
        printf "%-24s %-14s %-6s %-30s %s\n", p[2], p[1], ready[order[i]] + 0 "/" total[order[i]], types[order[i]], r
      }
    }' <(dra_devices_per_node) <(sort -t$'\t' -k1,1 -k2,2 <<<"$nodes")
  topology_summary
}

# TOPOLOGY_LABELS: the node labels of network and NVLink topology the fixtures carry, outermost first per
# cloud (fixtures/topology.yaml, docs/design/topology.md).
TOPOLOGY_LABELS=(
  cloud.google.com/gce-topology-block cloud.google.com/gce-topology-subblock cloud.google.com/gce-topology-host
  topology.k8s.aws/network-node-layer-1 topology.k8s.aws/network-node-layer-2 topology.k8s.aws/network-node-layer-3
  nvidia.com/gpu.clique
)

# topology_summary: for each pool whose nodes carry topology labels, how many domains of each level it has,
# e.g. "gke-h100-tas  gce-topology-block 2 > gce-topology-subblock 4 > gce-topology-host 8 (8 nodes)".
topology_summary() {
  local tmpl='{{range .items}}{{index .metadata.labels "fixtures.gpuform.io/pool"}}' label
  for label in "${TOPOLOGY_LABELS[@]}"; do
    tmpl+='{{"\t"}}{{with index .metadata.labels "'"$label"'"}}{{.}}{{end}}'
  done
  tmpl+='{{"\n"}}{{end}}'
  fk get nodes -l "$FIXTURE_SELECTOR" -o go-template="$tmpl" | awk -F'\t' -v labels="${TOPOLOGY_LABELS[*]}" '
    BEGIN { nl = split(labels, name, " ") }
    {
      for (i = 2; i <= NF; i++) if ($i != "") { has = 1; break }
      if (!has) next
      has = 0
      if (!($1 in nodes)) order[++n] = $1
      nodes[$1]++
      for (i = 2; i <= NF; i++) if ($i != "" && !(($1, i, $i) in seen)) { seen[$1, i, $i] = 1; count[$1, i]++ }
    }
    END {
      if (n == 0) exit
      print ""
      printf "%-24s %s\n", "TOPOLOGY POOL", "DOMAINS PER LEVEL (outermost first)"
      for (p = 1; p <= n; p++) {
        line = ""
        for (i = 2; i <= nl + 1; i++) if ((order[p], i) in count) {
          l = name[i - 1]; sub(/^.*\//, "", l)
          line = line (line == "" ? "" : " > ") l " " count[order[p], i]
        }
        printf "%-24s %s (%d nodes)\n", order[p], line, nodes[order[p]]
      }
    }'
}
