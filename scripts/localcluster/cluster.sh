#!/usr/bin/env bash
# Local Kubernetes control plane with fake (kwok) GPU nodes, no Docker needed.
#
# Runs the real etcd, kube-apiserver, kube-controller-manager and kube-scheduler of the versions pinned in
# versions.env as plain processes on 127.0.0.1, plus kwok, which plays the kubelets of the fake GPU nodes
# declared in fixtures/*.yaml. See README.md next to this script.
#
# Usage: scripts/localcluster/cluster.sh <command> [options]
#
#   build                  build the pinned binaries into the cache (skips those already built)
#   up                     build if needed, start the cluster (or reuse a healthy one), apply the fixtures,
#                          wait until every fixture node is Ready, print a summary
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
#   GPU_CLUSTER_DIR        state dir (default <repo>/.localcluster): pids, logs, certs, etcd data, kubeconfig
#   GPU_CLUSTER_CACHE      binary cache (default ~/.cache/terraform-provider-gpu/localcluster)
#   GPU_CLUSTER_APISERVER_PORT (36443)  GPU_CLUSTER_ETCD_PORT (36379)  GPU_CLUSTER_ETCD_PEER_PORT (36380)
#   GPU_CLUSTER_CONTROLLER_MANAGER_PORT (36257)  GPU_CLUSTER_SCHEDULER_PORT (36259)  GPU_CLUSTER_KWOK_PORT (36250)
#   GPU_CLUSTER_TIMEOUT    seconds to wait for each readiness step (default 120)
#   GPU_CLUSTER_STOP_TIMEOUT  seconds between TERM and KILL on down (default 10)
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/../.." && pwd -P)
# shellcheck source=versions.env
. "$SCRIPT_DIR/versions.env"
: "${KUBE_VERSION:?versions.env must set KUBE_VERSION}" "${ETCD_VERSION:?}" "${KWOK_VERSION:?}"

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

KUBE_BIN_DIR=$CACHE_DIR/bin/kube-$KUBE_VERSION
ETCD_BIN_DIR=$CACHE_DIR/bin/etcd-$ETCD_VERSION
KWOK_BIN_DIR=$CACHE_DIR/bin/kwok-$KWOK_VERSION
KUBECTL=$KUBE_BIN_DIR/kubectl

FIXTURES_DIR=$SCRIPT_DIR/fixtures
KWOK_CONFIG=$SCRIPT_DIR/kwok/kwok.yaml
FIXTURE_SELECTOR=fixtures.gpuform.io/pool
FIELD_MANAGER=gpu-localcluster-fixtures

# Start order.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)
STATE_MARKER=.gpu-localcluster-state

PKI=$STATE_DIR/pki
KUBECONFIG_FILE=$STATE_DIR/kubeconfig

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
    kwok) echo "$KWOK_BIN_DIR/kwok" ;;
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
    kwok)
      tmp=$(mktemp -d "$dest.tmp.XXXXXX")
      BUILD_TMP=$tmp
      if ! (cd "$tmp" && GOWORK=off GOBIN="$tmp" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"); then
        rm -rf "$tmp"
        die "building kwok failed"
      fi
      mv -f "$tmp/kwok" "$tmp.bin"
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

cmd_build() {
  ensure_binaries etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok
  local name
  for name in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok; do
    printf '%s\n' "$(bin_path "$name")"
  done
}

# ------------------------------------------------------------------------------------------- processes

pidfile() { echo "$STATE_DIR/pids/$1.pid"; }

# our_pid NAME: print the PID from NAME's pid file if that process is alive, runs the binary NAME and has
# this state dir on its command line (so a recycled PID is never mistaken for ours).
our_pid() {
  local name=$1 f pid exe args
  f=$(pidfile "$name")
  [[ -s $f ]] || return 1
  pid=$(<"$f")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  if [[ -d /proc/$pid ]]; then
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1 # unreadable for zombies and foreign users
    exe=${exe% (deleted)}
    args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  elif [[ ! -d /proc/self ]] && command -v ps >/dev/null; then # no procfs (macOS)
    args=$(ps -p "$pid" -o args= 2>/dev/null) || return 1
    exe=${args%% *}
  else
    return 1
  fi
  [[ ${exe##*/} == "$name" && $args == *"$STATE_DIR/"* ]] || return 1
  echo "$pid"
}

# start NAME ARGS...: start the binary NAME detached: own session, no terminal, output to logs/NAME.log and
# no other file descriptor inherited (a daemon holding the caller's pipe or our lock files open would make
# callers wait for it forever). The wrapper shell writes its own PID and then execs the binary, so the pid
# file holds the binary's PID whether or not setsid had to fork.
start() {
  local name=$1 bin f deadline
  shift
  bin=$(bin_path "$name")
  f=$(pidfile "$name")
  rm -f "$f"
  # shellcheck disable=SC2016 # expanded by the wrapper shell
  nohup setsid bash -c '
    if [[ -d /proc/$$/fd ]]; then
      for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
      done
    fi
    echo "$$" >"$1.tmp" && mv -f "$1.tmp" "$1" && shift && exec "$@"' \
    start-wrapper "$f" "$bin" "$@" </dev/null >"$STATE_DIR/logs/$name.log" 2>&1 8>&- 9>&- &
  deadline=$(($(now_ms) + 5000))
  until [[ -s $f ]]; do
    (($(now_ms) < deadline)) || { log "$name did not start (see $STATE_DIR/logs/$name.log)"; return 1; }
    sleep 0.01
  done
  STARTED+=("$name")
}

# stop_group NAME...: TERM those processes of this state dir, KILL what is left after STOP_TIMEOUT.
stop_group() {
  local name pid pids=() names=() deadline i alive
  for name in "$@"; do
    if pid=$(our_pid "$name"); then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
      names+=("$name")
    fi
  done
  ((${#pids[@]})) || return 0
  deadline=$(($(now_ms) + STOP_TIMEOUT * 1000))
  while (($(now_ms) < deadline)); do
    alive=0
    for name in "${names[@]}"; do
      if our_pid "$name" >/dev/null; then alive=1; fi
    done
    ((alive)) || return 0
    sleep 0.05
  done
  for i in "${!names[@]}"; do
    if our_pid "${names[$i]}" >/dev/null; then
      log "${names[$i]} (pid ${pids[$i]}) still running ${STOP_TIMEOUT}s after TERM, sending KILL"
      kill -KILL "${pids[$i]}" 2>/dev/null || true
    fi
  done
}

# stop_all: etcd last. Stopped together, kube-apiserver can hang in its shutdown retrying the vanished etcd,
# and etcd waits for the apiserver's open watches.
stop_all() {
  stop_group kwok kube-scheduler kube-controller-manager kube-apiserver
  stop_group etcd
}

remove_state() {
  [[ -d $STATE_DIR ]] || return 0
  if [[ ! -e $STATE_DIR/$STATE_MARKER ]] && [[ -n $(ls -A "$STATE_DIR") ]]; then
    die "$STATE_DIR exists but was not created by cluster.sh; not deleting it"
  fi
  rm -rf -- "$STATE_DIR"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ------------------------------------------------------------------------------------------------- pki

pki_key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/$1.key" 2>/dev/null; }

# pki_ca NAME CN
pki_ca() {
  pki_key "$1"
  openssl req -x509 -new -key "$PKI/$1.key" -subj "/CN=$2" -days 3650 -sha256 -out "$PKI/$1.crt" \
    -config <(printf '%s\n' '[req]' 'distinguished_name=dn' '[dn]' '[v3_ca]' \
      'basicConstraints=critical,CA:TRUE' 'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign' \
      'subjectKeyIdentifier=hash') -extensions v3_ca 2>/dev/null
}

# pki_cert NAME SIGNER SUBJECT EXTENDED_KEY_USAGE [SUBJECT_ALT_NAMES]
pki_cert() {
  local name=$1 ca=$2 subj=$3 eku=$4 san=${5:-}
  pki_key "$name"
  openssl req -new -key "$PKI/$name.key" -subj "$subj" -out "$PKI/$name.csr" 2>/dev/null
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/$ca.crt" -CAkey "$PKI/$ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days 3650 -sha256 -out "$PKI/$name.crt" \
    -extfile <(
      printf '%s\n' 'basicConstraints=critical,CA:FALSE' 'keyUsage=critical,digitalSignature,keyEncipherment' \
        "extendedKeyUsage=$eku" 'authorityKeyIdentifier=keyid'
      if [[ -n $san ]]; then printf 'subjectAltName=%s\n' "$san"; fi
    ) 2>/dev/null
  rm -f "$PKI/$name.csr"
}

gen_pki() {
  mkdir -p "$PKI"
  chmod 0700 "$PKI"
  pki_ca ca gpu-local-ca
  pki_ca front-proxy-ca gpu-local-front-proxy-ca
  # Leaf keys are independent: generate them in parallel (RSA keygen dominates).
  pki_cert apiserver ca "/CN=kube-apiserver" serverAuth \
    "IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local" &
  pki_cert admin ca "/O=system:masters/CN=gpu-local-admin" clientAuth &
  pki_cert controller-manager ca "/CN=system:kube-controller-manager" clientAuth &
  pki_cert scheduler ca "/CN=system:kube-scheduler" clientAuth &
  pki_cert front-proxy-client front-proxy-ca "/CN=front-proxy-client" clientAuth &
  (openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/sa.key" 2>/dev/null &&
    openssl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null) &
  local p rc=0
  for p in $(jobs -p); do wait "$p" || rc=1; done
  ((rc == 0)) || die "generating certificates with openssl failed"
}

b64() { base64 <"$1" | tr -d '\n'; }

# write_kubeconfig FILE USER ... : USER entries are "name=cert" (client cert pki/<cert>.crt/.key) or
# "name=token:<token>". The first user is the current context, named gpu-local, the others gpu-local-<name>.
write_kubeconfig() {
  local file=$1 entry uname kind first=1 ctx
  shift
  {
    echo "apiVersion: v1"
    echo "kind: Config"
    echo "clusters:"
    echo "- name: gpu-local"
    echo "  cluster:"
    echo "    server: https://127.0.0.1:$APISERVER_PORT"
    echo "    certificate-authority-data: $(b64 "$PKI/ca.crt")"
    echo "users:"
    for entry in "$@"; do
      uname=${entry%%=*}
      kind=${entry#*=}
      echo "- name: $uname"
      echo "  user:"
      if [[ $kind == token:* ]]; then
        echo "    token: ${kind#token:}"
      else
        echo "    client-certificate-data: $(b64 "$PKI/$kind.crt")"
        echo "    client-key-data: $(b64 "$PKI/$kind.key")"
      fi
    done
    echo "contexts:"
    for entry in "$@"; do
      uname=${entry%%=*}
      if ((first)); then ctx=gpu-local; else ctx=$uname; fi
      echo "- name: $ctx"
      echo "  context:"
      echo "    cluster: gpu-local"
      echo "    user: $uname"
      echo "    namespace: default"
      first=0
    done
    echo "current-context: gpu-local"
  } >"$file.tmp"
  chmod 0600 "$file.tmp"
  mv -f "$file.tmp" "$file"
}

# --------------------------------------------------------------------------------------------- cluster

# Ports of a running cluster are recorded in its state dir and win over the environment.
load_recorded_ports() {
  if [[ -f $STATE_DIR/ports.env ]]; then
    # shellcheck source=/dev/null
    . "$STATE_DIR/ports.env"
  fi
}

curl_api() {
  curl -fsS --max-time 2 --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
    "https://127.0.0.1:$APISERVER_PORT$1" 2>/dev/null
}

kc() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" --context gpu-local "$@"; }

# healthy: every process alive and ours, the apiserver ready. Prints nothing.
healthy() {
  local name
  [[ -e $STATE_DIR/$STATE_MARKER ]] || return 1
  for name in "${COMPONENTS[@]}"; do
    our_pid "$name" >/dev/null || return 1
  done
  [[ $(curl_api /readyz) == ok ]]
}

# wait_for DESCRIPTION COMMAND...: poll COMMAND every 0.1 s until it succeeds or TIMEOUT passes.
wait_for() {
  local what=$1 deadline
  shift
  deadline=$(($(now_ms) + TIMEOUT * 1000))
  until "$@" >/dev/null 2>&1; do
    if (($(now_ms) > deadline)); then
      log "timed out after ${TIMEOUT}s waiting for $what"
      return 1
    fi
    check_processes || return 1
    sleep 0.1
  done
}

# check_processes: fail fast when a started component died.
check_processes() {
  local name
  for name in "${STARTED[@]}"; do
    if ! our_pid "$name" >/dev/null; then
      log "$name exited; last lines of $STATE_DIR/logs/$name.log:"
      tail -n 20 "$STATE_DIR/logs/$name.log" >&2 || true
      return 1
    fi
  done
}
STARTED=()

etcd_healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" 2>/dev/null | grep -q '"health":"true"'; }
apiserver_ready() { [[ $(curl_api /readyz) == ok ]]; }
secure_healthz() { [[ $(curl -ksS --max-time 2 "https://127.0.0.1:$1/healthz" 2>/dev/null) == ok ]]; }
kwok_healthz() { [[ $(curl -sS --max-time 2 "http://127.0.0.1:$KWOK_PORT/healthz" 2>/dev/null) == ok ]]; }
default_sa_exists() { kc get serviceaccount default -n default -o name; }

write_configs() {
  local token
  token=$(openssl rand -hex 32)
  printf '%s' "$token" >"$STATE_DIR/admin.token"
  chmod 0600 "$STATE_DIR/admin.token"
  # Static token file: token,user,uid,"groups"
  printf '%s,gpu-local-token-admin,gpu-local-token-admin,"system:masters"\n' "$token" >"$PKI/tokens.csv"
  cp "$PKI/ca.crt" "$STATE_DIR/ca.crt"
  write_kubeconfig "$KUBECONFIG_FILE" gpu-local-admin=admin "gpu-local-token=token:$token"
  write_kubeconfig "$STATE_DIR/controller-manager.kubeconfig" system:kube-controller-manager=controller-manager
  write_kubeconfig "$STATE_DIR/scheduler.kubeconfig" system:kube-scheduler=scheduler
  write_kubeconfig "$STATE_DIR/kwok.kubeconfig" gpu-local-admin=admin
  # kube-scheduler's --kube-api-qps/--kube-api-burst flags are deprecated in favour of this file.
  cat >"$STATE_DIR/scheduler.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: $STATE_DIR/scheduler.kubeconfig
  qps: 300
  burst: 600
leaderElection:
  leaderElect: false
EOF
  cat >"$STATE_DIR/ports.env" <<EOF
APISERVER_PORT=$APISERVER_PORT
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
KCM_PORT=$KCM_PORT
SCHEDULER_PORT=$SCHEDULER_PORT
KWOK_PORT=$KWOK_PORT
EOF
}

write_env() {
  {
    printf 'export GPU_LOCAL_HOST=%q\n' "https://127.0.0.1:$APISERVER_PORT"
    printf 'export GPU_LOCAL_CA_FILE=%q\n' "$STATE_DIR/ca.crt"
    printf 'export GPU_LOCAL_TOKEN_FILE=%q\n' "$STATE_DIR/admin.token"
    printf 'export GPU_LOCAL_KUBECONFIG=%q\n' "$KUBECONFIG_FILE"
    printf 'export GPU_LOCAL_CONTEXT=%q\n' gpu-local
    printf 'export GPU_LOCAL_TOKEN_CONTEXT=%q\n' gpu-local-token
  } >"$STATE_DIR/env.tmp"
  mv -f "$STATE_DIR/env.tmp" "$STATE_DIR/env"
}

check_ports_free() {
  local port
  for port in "$APISERVER_PORT" "$ETCD_PORT" "$ETCD_PEER_PORT" "$KCM_PORT" "$SCHEDULER_PORT" "$KWOK_PORT"; do
    if port_in_use "$port"; then
      die "127.0.0.1:$port is already in use (another cluster with a different GPU_CLUSTER_DIR?); pick other ports with GPU_CLUSTER_*_PORT"
    fi
  done
}

start_cluster() {
  local t0
  t0=$(now_ms)
  mkdir -p "$STATE_DIR"/{pids,logs,etcd,kwok}
  chmod 0700 "$STATE_DIR/etcd"
  touch "$STATE_DIR/$STATE_MARKER"
  gen_pki
  write_configs
  log "certificates and configs ready ($(elapsed "$t0"))"

  start etcd \
    --name gpu-local --data-dir "$STATE_DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "gpu-local=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
    --unsafe-no-fsync --auto-compaction-retention 1 --log-level warn
  wait_for "etcd /health" etcd_healthy || return 1
  log "etcd healthy ($(elapsed "$t0"))"

  start kube-apiserver \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 127.0.0.1 --secure-port "$APISERVER_PORT" --advertise-address 127.0.0.1 \
    --endpoint-reconciler-type none \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --client-ca-file "$PKI/ca.crt" \
    --token-auth-file "$PKI/tokens.csv" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
    --service-cluster-ip-range 10.96.0.0/16 \
    --authorization-mode Node,RBAC \
    --allow-privileged=true \
    --requestheader-client-ca-file "$PKI/front-proxy-ca.crt" \
    --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User \
    --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$PKI/front-proxy-client.crt" --proxy-client-key-file "$PKI/front-proxy-client.key"
  wait_for "kube-apiserver /readyz" apiserver_ready || return 1
  log "kube-apiserver ready ($(elapsed "$t0"))"

  local kcm_kubeconfig=$STATE_DIR/controller-manager.kubeconfig
  start kube-controller-manager \
    --kubeconfig "$kcm_kubeconfig" \
    --authentication-kubeconfig "$kcm_kubeconfig" --authorization-kubeconfig "$kcm_kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$KCM_PORT" \
    --leader-elect=false \
    --use-service-account-credentials \
    --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
    --cluster-signing-cert-file "$PKI/ca.crt" --cluster-signing-key-file "$PKI/ca.key" \
    --cluster-name gpu-local \
    --kube-api-qps 300 --kube-api-burst 600 \
    --concurrent-deployment-syncs 20 --concurrent-replicaset-syncs 20 --concurrent-job-syncs 20

  local sched_kubeconfig=$STATE_DIR/scheduler.kubeconfig
  start kube-scheduler \
    --config "$STATE_DIR/scheduler.yaml" \
    --authentication-kubeconfig "$sched_kubeconfig" --authorization-kubeconfig "$sched_kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$SCHEDULER_PORT"

  KWOK_WORKDIR=$STATE_DIR/kwok start kwok \
    --kubeconfig "$STATE_DIR/kwok.kubeconfig" \
    --config "$KWOK_CONFIG" \
    --server-address "127.0.0.1:$KWOK_PORT"

  apply_fixtures || return 1
  wait_for "ServiceAccount default/default (created by kube-controller-manager)" default_sa_exists || return 1
  log "default ServiceAccount present ($(elapsed "$t0"))"
  wait_for "kube-controller-manager /healthz" secure_healthz "$KCM_PORT" || return 1
  wait_for "kube-scheduler /healthz" secure_healthz "$SCHEDULER_PORT" || return 1
  wait_for "kwok /healthz" kwok_healthz || return 1
  wait_fixture_nodes || return 1
  log "cluster up in $(elapsed "$t0")"
}

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
  ensure_binaries etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok
  load_recorded_ports
  if healthy; then
    log "cluster in $STATE_DIR is already running; re-applying fixtures"
    STARTED=("${COMPONENTS[@]}")
    apply_fixtures || die "applying fixtures failed"
    wait_fixture_nodes || die "fixture nodes not Ready"
    write_env
  else
    if [[ -d $STATE_DIR ]]; then
      log "found a stale or unhealthy cluster in $STATE_DIR; cleaning it up"
      stop_all
      remove_state
    fi
    # Fresh start: the environment decides the ports again.
    APISERVER_PORT=${GPU_CLUSTER_APISERVER_PORT:-36443}
    ETCD_PORT=${GPU_CLUSTER_ETCD_PORT:-36379}
    ETCD_PEER_PORT=${GPU_CLUSTER_ETCD_PEER_PORT:-36380}
    KCM_PORT=${GPU_CLUSTER_CONTROLLER_MANAGER_PORT:-36257}
    SCHEDULER_PORT=${GPU_CLUSTER_SCHEDULER_PORT:-36259}
    KWOK_PORT=${GPU_CLUSTER_KWOK_PORT:-36250}
    check_ports_free
    CLEANUP_ON_EXIT=1
    start_cluster
    write_env
    CLEANUP_ON_EXIT=0
  fi
  echo "Local GPU test cluster is up ($(elapsed "$t0")): Kubernetes $KUBE_VERSION, etcd $ETCD_VERSION, kwok $KWOK_VERSION"
  echo "  server      https://127.0.0.1:$APISERVER_PORT"
  echo "  kubeconfig  $KUBECONFIG_FILE  (contexts: gpu-local = admin client cert, gpu-local-token = bearer token)"
  echo "  env         . $STATE_DIR/env   # GPU_LOCAL_HOST, GPU_LOCAL_CA_FILE, GPU_LOCAL_TOKEN_FILE, GPU_LOCAL_KUBECONFIG"
  echo "  kubectl     $KUBECTL --kubeconfig $KUBECONFIG_FILE get nodes"
  echo
  summary
}

cmd_down() {
  lock_state
  load_recorded_ports
  if [[ ! -d $STATE_DIR ]]; then
    log "nothing to do: $STATE_DIR does not exist"
    return 0
  fi
  stop_all
  remove_state
  log "stopped and removed $STATE_DIR"
}

cmd_status() {
  load_recorded_ports
  if [[ ! -e $STATE_DIR/$STATE_MARKER ]]; then
    echo "not running (no cluster state in $STATE_DIR)"
    return 1
  fi
  local name pid bad=0
  for name in "${COMPONENTS[@]}"; do
    if pid=$(our_pid "$name"); then
      printf '  %-24s running (pid %s)\n' "$name" "$pid"
    else
      printf '  %-24s NOT RUNNING\n' "$name"
      bad=1
    fi
  done
  if apiserver_ready; then
    printf '  %-24s ok\n' "apiserver /readyz"
  else
    printf '  %-24s NOT READY\n' "apiserver /readyz"
    bad=1
  fi
  if ((bad)); then
    echo "unhealthy: cluster in $STATE_DIR (run 'cluster.sh up' to restart it, 'cluster.sh down' to remove it)"
    return 1
  fi
  echo "running: https://127.0.0.1:$APISERVER_PORT, kubeconfig $KUBECONFIG_FILE"
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

# A failed or interrupted start stops whatever it started; the state dir (with logs) stays for inspection
# and the next 'up' cleans it up.
CLEANUP_ON_EXIT=0
BUILD_TMP=
on_exit() {
  local rc=$?
  if [[ -n $BUILD_TMP ]]; then rm -rf -- "$BUILD_TMP"; fi
  if ((rc != 0 && CLEANUP_ON_EXIT)); then
    CLEANUP_ON_EXIT=0
    log "start failed; stopping what was started (logs stay in $STATE_DIR/logs)"
    stop_all
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
