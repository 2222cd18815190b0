#!/usr/bin/env bash
# Local Kubernetes control plane with fake (kwok) GPU nodes, no Docker needed.
#
# Builds the real etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok and kwokctl of the
# versions pinned in versions.env, and has kwokctl run them as plain processes on 127.0.0.1 (its "binary"
# runtime, configured by kwok/kwokctl.yaml and kwok/kwok.yaml): kwokctl owns certificates, processes and
# ports; this script owns the build, the fake GPU nodes of fixtures/*.yaml and the readiness waits. It also
# builds and runs the real Kueue controller (CRDs, webhooks, its own process; see "kueue" below). See
# README.md next to this script.
#
# Usage: scripts/localcluster/cluster.sh <command> [options]
#
#   build                  build the pinned binaries into the cache (skips those already built)
#   up                     build if needed, start the cluster (or reuse a healthy one), apply the fixtures,
#                          wait until every fixture node is Ready, start Kueue (or restart it if it is not
#                          healthy) and wait until its webhooks answer, print a summary
#   down                   stop the processes this state dir started and delete the state dir
#   status                 exit 0 if the cluster of this state dir is running and healthy, 1 otherwise
#   fixtures [options]     (re)apply the fake GPU nodes to any cluster (default: $KUBECONFIG, else the
#                          local cluster if it runs, else ~/.kube/config) and wait until they are Ready
#       --kubeconfig PATH  target cluster
#       --context NAME     kubeconfig context
#       --no-wait          do not wait for the nodes to become Ready (kwok must run against that cluster)
#       --delete           delete the fixture nodes instead
#
# Environment (all optional):
#   GPU_CLUSTER_DIR        state dir (default <repo>/.localcluster): kwokctl's workdir (certificates, etcd
#                          data, logs), the kubeconfig, the env file
#   GPU_CLUSTER_CACHE      binary cache (default ~/.cache/terraform-provider-gpu/localcluster)
#   GPU_CLUSTER_APISERVER_PORT (36443)  GPU_CLUSTER_ETCD_PORT (36379)  GPU_CLUSTER_ETCD_PEER_PORT (36380)
#   GPU_CLUSTER_CONTROLLER_MANAGER_PORT (36257)  GPU_CLUSTER_SCHEDULER_PORT (36259)  GPU_CLUSTER_KWOK_PORT (36250)
#   GPU_CLUSTER_KUEUE_WEBHOOK_PORT (36943)  GPU_CLUSTER_KUEUE_HEALTH_PORT (36981)
#   GPU_CLUSTER_KUEUE      0: up runs no Kueue (and stops one an earlier up started); default 1
#   GPU_CLUSTER_TIMEOUT    seconds to wait for each readiness step (default 120)
#   GPU_CLUSTER_STOP_TIMEOUT  seconds down waits for the apiserver port to be released (default 10)
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/../.." && pwd -P)
# shellcheck source-path=SCRIPTDIR source=versions.env
. "$SCRIPT_DIR/versions.env"
: "${KUBE_VERSION:?versions.env must set KUBE_VERSION}" "${ETCD_VERSION:?}" "${KWOK_VERSION:?}" "${KUEUE_VERSION:?}"

CACHE_DIR=${GPU_CLUSTER_CACHE:-$HOME/.cache/terraform-provider-gpu/localcluster}
STATE_DIR=${GPU_CLUSTER_DIR:-$REPO_ROOT/.localcluster}
[[ $STATE_DIR == /* ]] || STATE_DIR=$PWD/$STATE_DIR
STATE_DIR=${STATE_DIR%/}
TIMEOUT=${GPU_CLUSTER_TIMEOUT:-120}
STOP_TIMEOUT=${GPU_CLUSTER_STOP_TIMEOUT:-10}

APISERVER_PORT=${GPU_CLUSTER_APISERVER_PORT:-36443}
ETCD_PORT=${GPU_CLUSTER_ETCD_PORT:-36379}
ETCD_PEER_PORT=${GPU_CLUSTER_ETCD_PEER_PORT:-36380}
KCM_PORT=${GPU_CLUSTER_CONTROLLER_MANAGER_PORT:-36257}
SCHEDULER_PORT=${GPU_CLUSTER_SCHEDULER_PORT:-36259}
KWOK_PORT=${GPU_CLUSTER_KWOK_PORT:-36250}
KUEUE_WEBHOOK_PORT=${GPU_CLUSTER_KUEUE_WEBHOOK_PORT:-36943}
KUEUE_HEALTH_PORT=${GPU_CLUSTER_KUEUE_HEALTH_PORT:-36981}
KUEUE_ENABLED=${GPU_CLUSTER_KUEUE:-1}
[[ $KUEUE_ENABLED == [01] ]] || { printf 'cluster.sh: error: GPU_CLUSTER_KUEUE must be 0 or 1\n' >&2; exit 1; }

KUBE_BIN_DIR=$CACHE_DIR/bin/kube-$KUBE_VERSION
ETCD_BIN_DIR=$CACHE_DIR/bin/etcd-$ETCD_VERSION
KWOK_BIN_DIR=$CACHE_DIR/bin/kwok-$KWOK_VERSION
KUEUE_BIN_DIR=$CACHE_DIR/bin/kueue-$KUEUE_VERSION
KWOKCTL=$KWOK_BIN_DIR/kwokctl
KUBECTL=$KUBE_BIN_DIR/kubectl

FIXTURES_DIR=$SCRIPT_DIR/fixtures
KWOK_CONFIG=$SCRIPT_DIR/kwok/kwok.yaml
FIXTURE_SELECTOR=fixtures.gpuform.io/pool
FIELD_MANAGER=gpu-localcluster-fixtures

KWOKCTL_CONFIG=$SCRIPT_DIR/kwok/kwokctl.yaml
CLUSTER_NAME=gpu-local
STATE_MARKER=.gpu-localcluster-state

# kwokctl keeps each cluster under $KWOK_WORKDIR/clusters/<name>; its certificates are in pki/ there.
export KWOK_WORKDIR=$STATE_DIR/kwokctl
PKI=$KWOK_WORKDIR/clusters/$CLUSTER_NAME/pki
KWOK_LOGS=$KWOK_WORKDIR/clusters/$CLUSTER_NAME/logs
KUBECONFIG_FILE=$STATE_DIR/kubeconfig
# Kueue's state: certificates, its Configuration, rendered webhooks, log and pid file.
KUEUE_DIR=$STATE_DIR/kueue
KUEUE_CERT_DIR=$KUEUE_DIR/certs
KUEUE_PID_FILE=$KUEUE_DIR/kueue.pid
KUEUE_LOG=$KUEUE_DIR/kueue.log
KUEUE_FIELD_MANAGER=gpu-localcluster-kueue

log() { printf 'cluster.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
now_ms() {
  if [[ -n ${EPOCHREALTIME:-} ]]; then
    local t=${EPOCHREALTIME/[.,]/}
    echo $((t / 1000))
  else
    date +%s%3N
  fi
}
elapsed() { local t=$(($(now_ms) - $1)); printf '%d.%01ds' $((t / 1000)) $((t % 1000 / 100)); }

# ----------------------------------------------------------------------------------------------- build

bin_path() {
  case $1 in
    etcd) echo "$ETCD_BIN_DIR/etcd" ;;
    kwok | kwokctl) echo "$KWOK_BIN_DIR/$1" ;;
    kueue) echo "$KUEUE_BIN_DIR/kueue" ;;
    *) echo "$KUBE_BIN_DIR/$1" ;;
  esac
}

have_bin() { [[ -x $1 && -s $1 ]]; }

# build_one NAME: build one binary into the cache unless it is there. Output goes to a temporary name in
# the same directory and is renamed at the end, so an interrupted build never looks like a cached binary.
build_one() {
  local name=$1 dest tmp major minor ldflags
  dest=$(bin_path "$name")
  have_bin "$dest" && return 0
  command -v go >/dev/null || die "go is needed to build $name (not found in PATH)"
  mkdir -p "$(dirname "$dest")"
  local t0
  t0=$(now_ms)
  log "building $name ($(basename "$(dirname "$dest")")) ..."
  case $name in
    etcd)
      tmp=$(mktemp "$dest.tmp.XXXXXX")
      BUILD_TMP=$tmp
      if ! (cd "$SCRIPT_DIR/build/etcd" && GOWORK=off go build -trimpath -ldflags "-s -w" -o "$tmp" go.etcd.io/etcd/server/v3); then
        rm -f "$tmp"
        die "building etcd failed"
      fi
      ;;
    kwok | kwokctl)
      tmp=$(mktemp -d "$dest.tmp.XXXXXX")
      BUILD_TMP=$tmp
      if ! (cd "$tmp" && GOWORK=off GOBIN="$tmp" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/$name@$KWOK_VERSION"); then
        rm -rf "$tmp"
        die "building $name failed"
      fi
      mv -f "$tmp/$name" "$tmp.bin"
      rmdir "$tmp"
      tmp=$tmp.bin
      BUILD_TMP=$tmp
      ;;
    kueue)
      # go install straight from the module proxy, no replace directives: the binary upstream's Makefile
      # builds (cmd/kueue), with the version its Makefile stamps in (shown in Kueue's first log line).
      tmp=$(mktemp -d "$dest.tmp.XXXXXX")
      BUILD_TMP=$tmp
      if ! (cd "$tmp" && GOWORK=off GOBIN="$tmp" go install -trimpath \
        -ldflags "-s -w -X sigs.k8s.io/kueue/pkg/version.GitVersion=$KUEUE_VERSION" \
        "sigs.k8s.io/kueue/cmd/kueue@$KUEUE_VERSION"); then
        rm -rf "$tmp"
        die "building kueue failed"
      fi
      mv -f "$tmp/kueue" "$tmp.bin"
      rmdir "$tmp"
      tmp=$tmp.bin
      BUILD_TMP=$tmp
      ;;
    kube-apiserver | kube-controller-manager | kube-scheduler | kubectl)
      major=${KUBE_VERSION#v}
      major=${major%%.*}
      minor=${KUBE_VERSION#v*.}
      minor=${minor%%.*}
      ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION"
      ldflags+=" -X k8s.io/component-base/version.gitMajor=$major -X k8s.io/component-base/version.gitMinor=$minor"
      ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
      tmp=$(mktemp "$dest.tmp.XXXXXX")
      BUILD_TMP=$tmp
      if ! (cd "$SCRIPT_DIR/build/kubernetes" && GOWORK=off go build -trimpath -ldflags "$ldflags" -o "$tmp" "k8s.io/kubernetes/cmd/$name"); then
        rm -f "$tmp"
        die "building $name failed"
      fi
      ;;
    *) die "unknown binary $name" ;;
  esac
  chmod 0755 "$tmp"
  mv -f "$tmp" "$dest"
  BUILD_TMP=
  log "built $name in $(elapsed "$t0")"
}

# ensure_binaries NAME...: build what is missing. A lock serialises concurrent builds into the same cache;
# whoever waits re-checks the cache afterwards and finds the binaries built by the other one.
ensure_binaries() {
  local name missing=()
  for name in "$@"; do
    have_bin "$(bin_path "$name")" || missing+=("$name")
  done
  ((${#missing[@]})) || return 0
  mkdir -p "$CACHE_DIR"
  if command -v flock >/dev/null; then
    exec 9>"$CACHE_DIR/.build.lock"
    if ! flock -n 9; then
      log "another build into $CACHE_DIR is running, waiting for it ..."
      flock 9
    fi
  fi
  for name in "${missing[@]}"; do
    build_one "$name"
  done
  if command -v flock >/dev/null; then
    flock -u 9
    exec 9>&-
  fi
}

ALL_BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok kwokctl kueue)

# up_binaries: what 'up' needs; Kueue only when it is to run.
up_binaries() {
  local name
  for name in "${ALL_BINARIES[@]}"; do
    if [[ $name == kueue ]] && ((!KUEUE_ENABLED)); then continue; fi
    printf '%s\n' "$name"
  done
}

cmd_build() {
  ensure_binaries "${ALL_BINARIES[@]}"
  local name
  for name in "${ALL_BINARIES[@]}"; do
    printf '%s\n' "$(bin_path "$name")"
  done
}

# --------------------------------------------------------------------------------------------- cluster

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Ports of a running cluster are recorded in its state dir and win over the environment.
load_recorded_ports() {
  if [[ -f $STATE_DIR/ports.env ]]; then
    # shellcheck source=/dev/null
    . "$STATE_DIR/ports.env"
  fi
}

ports_from_env() {
  APISERVER_PORT=${GPU_CLUSTER_APISERVER_PORT:-36443}
  ETCD_PORT=${GPU_CLUSTER_ETCD_PORT:-36379}
  ETCD_PEER_PORT=${GPU_CLUSTER_ETCD_PEER_PORT:-36380}
  KCM_PORT=${GPU_CLUSTER_CONTROLLER_MANAGER_PORT:-36257}
  SCHEDULER_PORT=${GPU_CLUSTER_SCHEDULER_PORT:-36259}
  KWOK_PORT=${GPU_CLUSTER_KWOK_PORT:-36250}
  KUEUE_WEBHOOK_PORT=${GPU_CLUSTER_KUEUE_WEBHOOK_PORT:-36943}
  KUEUE_HEALTH_PORT=${GPU_CLUSTER_KUEUE_HEALTH_PORT:-36981}
}

check_ports_free() {
  local port ports=("$APISERVER_PORT" "$ETCD_PORT" "$ETCD_PEER_PORT" "$KCM_PORT" "$SCHEDULER_PORT" "$KWOK_PORT")
  if ((KUEUE_ENABLED)); then ports+=("$KUEUE_WEBHOOK_PORT" "$KUEUE_HEALTH_PORT"); fi
  for port in "${ports[@]}"; do
    if port_in_use "$port"; then
      die "127.0.0.1:$port is already in use (another cluster with a different GPU_CLUSTER_DIR?); pick other ports with GPU_CLUSTER_*_PORT"
    fi
  done
}

# close_fds: in a subshell that is about to exec a daemon, close every file descriptor above 2.
close_fds() {
  local fd
  [[ -d /proc/$BASHPID/fd ]] || return 0
  for fd in "/proc/$BASHPID/fd/"*; do
    fd=${fd##*/}
    if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
}

# kwokctl runs with the binaries this script built: it downloads nothing. The processes it starts outlive
# it and inherit its file descriptors, so it gets none beyond stdin, stdout and stderr: a daemon holding our
# lock files would make every later up/down wait forever, and one holding a caller's pipe (make, CI, a test
# capturing our output) would keep that caller waiting for EOF.
kwokctl() {
  (
    close_fds
    KWOK_KUBE_VERSION=$KUBE_VERSION KWOK_ETCD_VERSION=$ETCD_VERSION KWOK_KUBECTL_BINARY=$KUBECTL \
      exec "$KWOKCTL" "$@"
  )
}

curl_api() {
  curl -fsS --max-time 2 --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
    "https://127.0.0.1:$APISERVER_PORT$1" 2>/dev/null
}

kc() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" --context gpu-local "$@"; }

apiserver_ready() { [[ $(curl_api /readyz) == ok ]]; }
default_sa_exists() { kc get serviceaccount default -n default -o name; }

# healthy: this state dir's cluster is known to kwokctl and its apiserver is ready. Prints nothing.
healthy() {
  [[ -e $STATE_DIR/$STATE_MARKER && -f $PKI/ca.crt ]] || return 1
  kwokctl get clusters 2>/dev/null | grep -qx "$CLUSTER_NAME" || return 1
  apiserver_ready
}

# wait_for DESCRIPTION COMMAND...: poll COMMAND every 0.1 s until it succeeds or TIMEOUT passes.
wait_for() {
  local what=$1 deadline
  shift
  deadline=$(($(now_ms) + TIMEOUT * 1000))
  until "$@" >/dev/null 2>&1; do
    if (($(now_ms) > deadline)); then
      log "timed out after ${TIMEOUT}s waiting for $what"
      show_logs
      return 1
    fi
    sleep 0.1
  done
}

# show_logs: the last lines of every component's log, for a start that failed.
show_logs() {
  local f
  for f in "$KWOK_LOGS"/*.log; do
    [[ -f $f ]] || continue
    log "last lines of $f:"
    tail -n 15 "$f" >&2 || true
  done
}

b64() { base64 <"$1" | tr -d '\n'; }

# write_kubeconfig FILE TOKEN: context gpu-local authenticates with kwokctl's admin client certificate,
# gpu-local-token with the static bearer token; both embed their data, so the file works on its own.
write_kubeconfig() {
  local file=$1 token=$2
  cat >"$file.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: gpu-local
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(b64 "$PKI/ca.crt")
users:
- name: gpu-local-admin
  user:
    client-certificate-data: $(b64 "$PKI/admin.crt")
    client-key-data: $(b64 "$PKI/admin.key")
- name: gpu-local-token
  user:
    token: $token
contexts:
- name: gpu-local
  context: {cluster: gpu-local, user: gpu-local-admin, namespace: default}
- name: gpu-local-token
  context: {cluster: gpu-local, user: gpu-local-token, namespace: default}
current-context: gpu-local
EOF
  chmod 0600 "$file.tmp"
  mv -f "$file.tmp" "$file"
}

# render_config: kwok/kwokctl.yaml with this run's ports and token file filled in.
render_config() {
  sed -e "s|@APISERVER_PORT@|$APISERVER_PORT|" -e "s|@ETCD_PORT@|$ETCD_PORT|" \
    -e "s|@ETCD_PEER_PORT@|$ETCD_PEER_PORT|" -e "s|@KCM_PORT@|$KCM_PORT|" \
    -e "s|@SCHEDULER_PORT@|$SCHEDULER_PORT|" -e "s|@KWOK_PORT@|$KWOK_PORT|" \
    -e "s|@TOKEN_FILE@|$STATE_DIR/tokens.csv|" "$KWOKCTL_CONFIG" >"$STATE_DIR/kwokctl.yaml"
  if grep -q '@[A-Z_]*@' "$STATE_DIR/kwokctl.yaml"; then
    die "$KWOKCTL_CONFIG has a placeholder render_config does not fill"
  fi
}

write_state() {
  local token
  token=$(openssl rand -hex 32)
  printf '%s' "$token" >"$STATE_DIR/admin.token"
  chmod 0600 "$STATE_DIR/admin.token"
  # Static token file: token,user,uid,"groups"
  printf '%s,gpu-local-token-admin,gpu-local-token-admin,"system:masters"\n' "$token" >"$STATE_DIR/tokens.csv"
  chmod 0600 "$STATE_DIR/tokens.csv"
  cat >"$STATE_DIR/ports.env" <<EOF
APISERVER_PORT=$APISERVER_PORT
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
KCM_PORT=$KCM_PORT
SCHEDULER_PORT=$SCHEDULER_PORT
KWOK_PORT=$KWOK_PORT
KUEUE_WEBHOOK_PORT=$KUEUE_WEBHOOK_PORT
KUEUE_HEALTH_PORT=$KUEUE_HEALTH_PORT
EOF
  render_config
}

write_env() {
  {
    printf 'export GPU_LOCAL_HOST=%q\n' "https://127.0.0.1:$APISERVER_PORT"
    printf 'export GPU_LOCAL_CA_FILE=%q\n' "$STATE_DIR/ca.crt"
    printf 'export GPU_LOCAL_TOKEN_FILE=%q\n' "$STATE_DIR/admin.token"
    printf 'export GPU_LOCAL_KUBECONFIG=%q\n' "$KUBECONFIG_FILE"
    printf 'export GPU_LOCAL_CONTEXT=%q\n' gpu-local
    printf 'export GPU_LOCAL_TOKEN_CONTEXT=%q\n' gpu-local-token
    if kueue_pid >/dev/null; then
      printf 'export GPU_LOCAL_KUEUE=1\n'
      printf 'export GPU_LOCAL_KUEUE_VERSION=%q\n' "$KUEUE_VERSION"
    else
      printf 'export GPU_LOCAL_KUEUE=0\n'
    fi
  } >"$STATE_DIR/env.tmp"
  mv -f "$STATE_DIR/env.tmp" "$STATE_DIR/env"
}

start_cluster() {
  local t0
  t0=$(now_ms)
  mkdir -p "$STATE_DIR"
  touch "$STATE_DIR/$STATE_MARKER"
  write_state
  # kwokctl waits for the control plane itself; the waits below are what the tests need on top.
  if ! kwokctl create cluster --name "$CLUSTER_NAME" --config "$STATE_DIR/kwokctl.yaml" --config "$KWOK_CONFIG" \
    --kube-apiserver-binary "$(bin_path kube-apiserver)" \
    --kube-controller-manager-binary "$(bin_path kube-controller-manager)" \
    --kube-scheduler-binary "$(bin_path kube-scheduler)" \
    --etcd-binary "$(bin_path etcd)" --kwok-controller-binary "$(bin_path kwok)" \
    --kubeconfig "$STATE_DIR/kwokctl.kubeconfig" --wait "${TIMEOUT}s" >"$STATE_DIR/kwokctl.log" 2>&1; then
    log "kwokctl create cluster failed:"
    tail -n 20 "$STATE_DIR/kwokctl.log" >&2 || true
    show_logs
    return 1
  fi
  cp "$PKI/ca.crt" "$STATE_DIR/ca.crt"
  write_kubeconfig "$KUBECONFIG_FILE" "$(<"$STATE_DIR/admin.token")"
  wait_for "kube-apiserver /readyz" apiserver_ready || return 1
  log "control plane ready ($(elapsed "$t0"))"
  apply_fixtures || return 1
  wait_for "ServiceAccount default/default (created by kube-controller-manager)" default_sa_exists || return 1
  wait_fixture_nodes || return 1
  log "cluster up in $(elapsed "$t0")"
}

# stop_cluster: Kueue first (this script runs it, not kwokctl), then kwokctl stops the processes; then wait
# until the apiserver port is free again, so an 'up' right after a 'down' never finds it taken.
stop_cluster() {
  kueue_stop
  if have_bin "$KWOKCTL" && [[ -d $KWOK_WORKDIR/clusters/$CLUSTER_NAME ]]; then
    kwokctl delete cluster --name "$CLUSTER_NAME" >"$STATE_DIR/kwokctl-delete.log" 2>&1 ||
      log "kwokctl delete cluster failed (see $STATE_DIR/kwokctl-delete.log)"
  fi
  local deadline=$(($(now_ms) + STOP_TIMEOUT * 1000))
  while port_in_use "$APISERVER_PORT" && (($(now_ms) < deadline)); do sleep 0.1; done
}

remove_state() {
  [[ -d $STATE_DIR ]] || return 0
  if [[ ! -e $STATE_DIR/$STATE_MARKER ]] && [[ -n $(ls -A "$STATE_DIR") ]]; then
    die "$STATE_DIR exists but was not created by cluster.sh; not deleting it"
  fi
  rm -rf -- "$STATE_DIR"
}

# ---------------------------------------------------------------------------------------------- kueue

# shellcheck source=kueue.sh
. "$SCRIPT_DIR/kueue.sh"

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
  nodes=$(fk get nodes -l "$FIXTURE_SELECTOR" -o go-template='{{range .items}}{{index .metadata.labels "fixtures.gpuform.io/cloud"}}{{"\t"}}{{index .metadata.labels "fixtures.gpuform.io/pool"}}{{"\t"}}{{range .status.conditions}}{{if eq .type "Ready"}}{{.status}}{{end}}{{end}}{{"\t"}}{{index .metadata.labels "node.kubernetes.io/instance-type"}}{{"\t"}}{{range $k, $v := .status.capacity}}{{$k}}={{$v}}{{" "}}{{end}}{{"\n"}}{{end}}') || return 1
  awk -F'\t' '
    {
      key = $1 SUBSEP $2
      if (!(key in total)) order[++n] = key
      total[key]++
      if ($3 == "True") ready[key]++
      if (index(types[key], $4) == 0) types[key] = types[key] (types[key] == "" ? "" : ",") $4
      gpu = ""
      m = split($5, kv, " ")
      for (i = 1; i <= m; i++) if (kv[i] ~ /^(nvidia\.com|amd\.com)\//) gpu = gpu (gpu == "" ? "" : " ") kv[i]
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
    }' <<<"$(sort -t$'\t' -k1,1 -k2,2 <<<"$nodes")"
}

# ------------------------------------------------------------------------------------------- commands

# lock_state: serialise up/down on one state dir (e.g. several test packages calling 'up' at once: the
# first starts the cluster, the others wait and then find it healthy). The lock file lives in the cache
# dir, keyed by the state dir path, so nothing is left behind next to the state dir.
lock_state() {
  command -v flock >/dev/null || return 0
  local key
  key=$(printf '%s' "$STATE_DIR" | cksum | cut -d' ' -f1)
  mkdir -p "$CACHE_DIR/locks"
  exec 8>"$CACHE_DIR/locks/state-$key.lock"
  if ! flock -n 8; then
    log "another cluster.sh up/down on $STATE_DIR is running, waiting for it ..."
    flock 8
  fi
}

cmd_up() {
  local t0
  t0=$(now_ms)
  lock_state
  local binaries
  mapfile -t binaries < <(up_binaries)
  ensure_binaries "${binaries[@]}"
  ports_from_env
  load_recorded_ports
  if healthy; then
    log "cluster in $STATE_DIR is already running; re-applying fixtures"
    apply_fixtures || die "applying fixtures failed"
    wait_fixture_nodes || die "fixture nodes not Ready"
    if ! ensure_kueue; then
      write_env # GPU_LOCAL_KUEUE=0: the cluster runs, Kueue does not
      die "Kueue failed to start"
    fi
    write_env
  else
    if [[ -d $STATE_DIR ]]; then
      log "found a stale or unhealthy cluster in $STATE_DIR; cleaning it up"
      stop_cluster
      remove_state
    fi
    # Fresh start: the environment decides the ports again.
    ports_from_env
    check_ports_free
    CLEANUP_ON_EXIT=1
    start_cluster
    ensure_kueue || die "Kueue failed to start"
    write_env
    CLEANUP_ON_EXIT=0
  fi
  echo "Local GPU test cluster is up ($(elapsed "$t0")): Kubernetes $KUBE_VERSION, etcd $ETCD_VERSION, kwok and kwokctl $KWOK_VERSION"
  echo "  server      https://127.0.0.1:$APISERVER_PORT"
  echo "  kubeconfig  $KUBECONFIG_FILE  (contexts: gpu-local = admin client cert, gpu-local-token = bearer token)"
  echo "  env         . $STATE_DIR/env   # GPU_LOCAL_HOST, GPU_LOCAL_CA_FILE, GPU_LOCAL_TOKEN_FILE, GPU_LOCAL_KUBECONFIG"
  echo "  kubectl     $KUBECTL --kubeconfig $KUBECONFIG_FILE get nodes"
  echo "  logs        $KWOK_LOGS"
  if kueue_pid >/dev/null; then
    echo "  Kueue $KUEUE_VERSION (Job, Deployment, StatefulSet, Pod integrations), webhooks at https://127.0.0.1:$KUEUE_WEBHOOK_PORT"
    echo "              log $KUEUE_LOG"
  fi
  echo
  summary
}

cmd_down() {
  lock_state
  ports_from_env
  load_recorded_ports
  if [[ ! -d $STATE_DIR ]]; then
    log "nothing to do: $STATE_DIR does not exist"
    return 0
  fi
  stop_cluster
  remove_state
  log "stopped and removed $STATE_DIR"
}

cmd_status() {
  ports_from_env
  load_recorded_ports
  if [[ ! -e $STATE_DIR/$STATE_MARKER ]]; then
    echo "not running (no cluster state in $STATE_DIR)"
    return 1
  fi
  if ! healthy; then
    echo "unhealthy: cluster in $STATE_DIR (run 'cluster.sh up' to restart it, 'cluster.sh down' to remove it)"
    return 1
  fi
  kwokctl get components --name "$CLUSTER_NAME" 2>/dev/null || true
  echo "running: https://127.0.0.1:$APISERVER_PORT, kubeconfig $KUBECONFIG_FILE"
  # Kueue: healthy; started by up (kueue/version exists) but now dead or unhealthy (exit 1); or not started
  # (GPU_CLUSTER_KUEUE=0).
  local pid
  if kueue_healthy; then
    echo "kueue: running $(<"$KUEUE_DIR/version") (pid $(kueue_pid)), ready, webhooks at https://127.0.0.1:$KUEUE_WEBHOOK_PORT, log $KUEUE_LOG"
  elif pid=$(kueue_pid); then
    echo "kueue: unhealthy (pid $pid: /readyz or the webhook port does not answer, or not $KUEUE_VERSION; see $KUEUE_LOG; 'cluster.sh up' restarts it)"
    return 1
  elif [[ -e $KUEUE_DIR/version ]]; then
    echo "kueue: not running (see $KUEUE_LOG; 'cluster.sh up' restarts it)"
    return 1
  else
    echo "kueue: not started (GPU_CLUSTER_KUEUE=0)"
  fi
}

cmd_fixtures() {
  local kubeconfig=${KUBECONFIG:-} context="" wait=1 delete=0
  while (($#)); do
    case $1 in
      --kubeconfig) kubeconfig=${2:?--kubeconfig needs a path}; shift 2 ;;
      --kubeconfig=*) kubeconfig=${1#*=}; shift ;;
      --context) context=${2:?--context needs a name}; shift 2 ;;
      --context=*) context=${1#*=}; shift ;;
      --no-wait) wait=0; shift ;;
      --delete) delete=1; shift ;;
      *) die "fixtures: unknown option $1" ;;
    esac
  done
  ports_from_env
  load_recorded_ports
  if [[ -z $kubeconfig ]] && healthy; then
    kubeconfig=$KUBECONFIG_FILE
  fi
  local kubectl=$KUBECTL
  if ! have_bin "$kubectl"; then
    if command -v kubectl >/dev/null; then kubectl=$(command -v kubectl); else
      ensure_binaries kubectl
    fi
  fi
  FIXTURE_KUBECTL=("$kubectl")
  if [[ -n $kubeconfig ]]; then FIXTURE_KUBECTL+=(--kubeconfig "$kubeconfig"); fi
  if [[ -n $context ]]; then FIXTURE_KUBECTL+=(--context "$context"); fi
  local server
  server=$(fk config view --minify -o 'jsonpath={.clusters[0].cluster.server}' 2>/dev/null) || server="?"
  if ((delete)); then
    log "deleting fixture nodes from $server"
    fk delete -f "$FIXTURES_DIR" --ignore-not-found
    return
  fi
  log "applying fixture nodes to $server"
  apply_fixtures || exit 1
  if ((wait)); then
    wait_fixture_nodes || exit 1
  fi
  summary
}

# A failed or interrupted start stops whatever it started; the state dir (with kwokctl's logs) stays for
# inspection and the next 'up' cleans it up.
CLEANUP_ON_EXIT=0
BUILD_TMP=
on_exit() {
  local rc=$?
  if [[ -n $BUILD_TMP ]]; then rm -rf -- "$BUILD_TMP"; fi
  if ((rc != 0 && CLEANUP_ON_EXIT)); then
    CLEANUP_ON_EXIT=0
    log "start failed; stopping what was started (logs stay in $KWOK_LOGS)"
    stop_cluster
  fi
  return "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

usage() { sed -n '2,/^set -euo pipefail/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

main() {
  local cmd=${1:-help}
  (($#)) && shift
  case $cmd in
    build) cmd_build "$@" ;;
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    status) cmd_status "$@" ;;
    fixtures) cmd_fixtures "$@" ;;
    help | -h | --help) usage ;;
    *)
      usage >&2
      exit 2
      ;;
  esac
}

main "$@"
