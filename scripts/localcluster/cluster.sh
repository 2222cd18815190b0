#!/usr/bin/env bash
# Local Kubernetes control plane with fake (kwok) GPU nodes, no Docker needed.
#
# Builds the real etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok and kwokctl of the
# versions pinned in versions.env, and has kwokctl run them as plain processes on 127.0.0.1 (its "binary"
# runtime, configured by kwok/kwokctl.yaml and kwok/kwok.yaml): kwokctl owns certificates, processes and
# ports; this script owns the build, the fake GPU nodes of fixtures/*.yaml and the readiness waits. It also
# builds and runs the real Kueue controller (CRDs, webhooks, its own process; see "kueue" below) and the real
# KubeRay operator (CRDs, RBAC, its own process; see "kuberay" below). See README.md next to this script.
#
# Usage: scripts/localcluster/cluster.sh <command> [options]
#
#   build                  build the pinned binaries into the cache (skips those already built)
#   up                     build if needed, start the cluster (or reuse a healthy one), apply the fixtures,
#                          wait until every fixture node is Ready, start KubeRay (CRDs, RBAC, operator) and
#                          Kueue (or restart them if they are not healthy), wait until the operator has
#                          reconciled a probe RayCluster and Kueue's webhooks answer, print a summary
#   down                   stop the processes this state dir started (KubeRay and Kueue included) and
#                          delete the state dir
#   status                 exit 0 if the cluster of this state dir is running and healthy (and Kueue and
#                          KubeRay, when up started them), 1 otherwise
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
#   GPU_CLUSTER_APISERVER_PORT (26443)  GPU_CLUSTER_ETCD_PORT (26379)  GPU_CLUSTER_ETCD_PEER_PORT (26380)
#   GPU_CLUSTER_CONTROLLER_MANAGER_PORT (26257)  GPU_CLUSTER_SCHEDULER_PORT (26259)  GPU_CLUSTER_KWOK_PORT (26250)
#   GPU_CLUSTER_KUEUE_WEBHOOK_PORT (26943)  GPU_CLUSTER_KUEUE_HEALTH_PORT (26981)
#   GPU_CLUSTER_KUBERAY_HEALTH_PORT (26982)
#   GPU_CLUSTER_KUEUE      0: up runs no Kueue (and stops one an earlier up started); default 1
#   GPU_CLUSTER_KUBERAY    0: up runs no KubeRay operator (and stops one an earlier up started), and Kueue
#                          gets no Ray integrations; default 1
#   GPU_CLUSTER_SUMMARY    0: up prints no pool table (make demo prints its own); default 1
#   GPU_CLUSTER_TIMEOUT    seconds to wait for each readiness step (default 120)
#   GPU_CLUSTER_STOP_TIMEOUT  seconds down waits for the apiserver port to be released (default 10)
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/../.." && pwd -P)
# shellcheck source-path=SCRIPTDIR source=versions.env
. "$SCRIPT_DIR/versions.env"
: "${KUBE_VERSION:?versions.env must set KUBE_VERSION}" "${ETCD_VERSION:?}" "${KWOK_VERSION:?}" "${KUEUE_VERSION:?}" "${KUBERAY_VERSION:?}"
KUBE_VERSION=${GPU_CLUSTER_KUBE_VERSION:-$KUBE_VERSION}

CACHE_DIR=${GPU_CLUSTER_CACHE:-$HOME/.cache/terraform-provider-gpu/localcluster}
STATE_DIR=${GPU_CLUSTER_DIR:-$REPO_ROOT/.localcluster}
[[ $STATE_DIR == /* ]] || STATE_DIR=$PWD/$STATE_DIR
STATE_DIR=${STATE_DIR%/}
TIMEOUT=${GPU_CLUSTER_TIMEOUT:-120}
STOP_TIMEOUT=${GPU_CLUSTER_STOP_TIMEOUT:-10}

KUEUE_ENABLED=${GPU_CLUSTER_KUEUE:-1}
[[ $KUEUE_ENABLED == [01] ]] || { printf 'cluster.sh: error: GPU_CLUSTER_KUEUE must be 0 or 1\n' >&2; exit 1; }
KUBERAY_ENABLED=${GPU_CLUSTER_KUBERAY:-1}
[[ $KUBERAY_ENABLED == [01] ]] || { printf 'cluster.sh: error: GPU_CLUSTER_KUBERAY must be 0 or 1\n' >&2; exit 1; }

KUBE_BIN_DIR=$CACHE_DIR/bin/kube-$KUBE_VERSION
ETCD_BIN_DIR=$CACHE_DIR/bin/etcd-$ETCD_VERSION
KWOK_BIN_DIR=$CACHE_DIR/bin/kwok-$KWOK_VERSION
KUEUE_BIN_DIR=$CACHE_DIR/bin/kueue-$KUEUE_VERSION
KUBERAY_BIN_DIR=$CACHE_DIR/bin/kuberay-$KUBERAY_VERSION
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
# KubeRay's state: its Configuration, kubeconfig, RBAC, log and pid file.
KUBERAY_DIR=$STATE_DIR/kuberay
KUBERAY_PID_FILE=$KUBERAY_DIR/kuberay.pid
KUBERAY_LOG=$KUBERAY_DIR/kuberay.log
KUBERAY_FIELD_MANAGER=gpu-localcluster-kuberay

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

# The parts, by concern: the build, the control plane, Kueue, KubeRay, the fixture nodes.
# shellcheck source=build.sh
. "$SCRIPT_DIR/build.sh"
# shellcheck source=control_plane.sh
. "$SCRIPT_DIR/control_plane.sh"
# shellcheck source=kueue_setup.sh
. "$SCRIPT_DIR/kueue_setup.sh"
# shellcheck source=kueue.sh
. "$SCRIPT_DIR/kueue.sh"
# shellcheck source=kuberay.sh
. "$SCRIPT_DIR/kuberay.sh"
# shellcheck source=fixtures.sh
. "$SCRIPT_DIR/fixtures.sh"

# The ports from the environment (control_plane.sh); a running cluster's
# recorded ports win later (load_recorded_ports).
ports_from_env

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
    # KubeRay first: Kueue's Ray integrations want the Ray CRDs to exist when Kueue starts.
    if ! ensure_kuberay; then
      write_env # GPU_LOCAL_KUBERAY=0: the cluster runs, KubeRay does not
      die "KubeRay failed to start"
    fi
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
    ensure_kuberay || die "KubeRay failed to start"
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
    if ((KUBERAY_ENABLED)); then
      echo "  Kueue $KUEUE_VERSION (Job, Deployment, StatefulSet, Pod, RayJob, RayCluster integrations), webhooks at https://127.0.0.1:$KUEUE_WEBHOOK_PORT"
    else
      echo "  Kueue $KUEUE_VERSION (Job, Deployment, StatefulSet, Pod integrations), webhooks at https://127.0.0.1:$KUEUE_WEBHOOK_PORT"
    fi
    echo "              log $KUEUE_LOG"
  fi
  if kuberay_pid >/dev/null; then
    echo "  KubeRay $KUBERAY_VERSION operator (RayCluster, RayJob, RayService; as ServiceAccount $KUBERAY_NAMESPACE/$KUBERAY_SA), health http://127.0.0.1:$KUBERAY_HEALTH_PORT/readyz"
    echo "              log $KUBERAY_LOG"
  fi
  if [[ ${GPU_CLUSTER_SUMMARY:-1} != 0 ]]; then
    echo
    summary
  fi
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
  # Kueue and KubeRay, each: healthy; started by up (<dir>/version exists) but now dead or unhealthy (exit 1);
  # or not started (GPU_CLUSTER_KUEUE=0, GPU_CLUSTER_KUBERAY=0).
  local pid rc=0
  if kueue_healthy; then
    echo "kueue: running $(<"$KUEUE_DIR/version") (pid $(kueue_pid)), ready, webhooks at https://127.0.0.1:$KUEUE_WEBHOOK_PORT, log $KUEUE_LOG"
  elif pid=$(kueue_pid); then
    echo "kueue: unhealthy (pid $pid: /readyz or the webhook port does not answer, or not $KUEUE_VERSION or another Configuration; see $KUEUE_LOG; 'cluster.sh up' restarts it)"
    rc=1
  elif [[ -e $KUEUE_DIR/version ]]; then
    echo "kueue: not running (see $KUEUE_LOG; 'cluster.sh up' restarts it)"
    rc=1
  else
    echo "kueue: not started (GPU_CLUSTER_KUEUE=0)"
  fi
  if kuberay_healthy; then
    echo "kuberay: running $(<"$KUBERAY_DIR/version") (pid $(kuberay_pid)), ready, health http://127.0.0.1:$KUBERAY_HEALTH_PORT/readyz, log $KUBERAY_LOG"
  elif pid=$(kuberay_pid); then
    echo "kuberay: unhealthy (pid $pid: /readyz does not answer, or not $KUBERAY_VERSION or another Configuration; see $KUBERAY_LOG; 'cluster.sh up' restarts it)"
    rc=1
  elif [[ -e $KUBERAY_DIR/version ]]; then
    echo "kuberay: not running (see $KUBERAY_LOG; 'cluster.sh up' restarts it)"
    rc=1
  else
    echo "kuberay: not started (GPU_CLUSTER_KUBERAY=0)"
  fi
  return "$rc"
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
