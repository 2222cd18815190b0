#!/usr/bin/env bash
# The local cluster's control plane: ports, kwokctl, kubeconfig, state, start and stop: sourced by cluster.sh, which sets the variables and helpers used here
# (STATE_DIR, CACHE_DIR, log, die, ...) before it sources this file.
# shellcheck disable=SC2154 # variables are set by cluster.sh before it sources this file

# --------------------------------------------------------------------------------------------- cluster

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Ports of a running cluster are recorded in its state dir and win over the environment.
load_recorded_ports() {
  if [[ -f $STATE_DIR/ports.env ]]; then
    # shellcheck source=/dev/null
    . "$STATE_DIR/ports.env"
  fi
}

# The defaults lie below the kernel's ephemeral range (Linux: 32768-60999): a port inside it can be taken
# as the local end of any outgoing connection (the apiserver's to etcd, kwok's first dials) between our
# check that it is free and the daemon's bind, which failed a CI start ("bind: address already in use").
ports_from_env() {
  APISERVER_PORT=${GPU_CLUSTER_APISERVER_PORT:-26443}
  ETCD_PORT=${GPU_CLUSTER_ETCD_PORT:-26379}
  ETCD_PEER_PORT=${GPU_CLUSTER_ETCD_PEER_PORT:-26380}
  KCM_PORT=${GPU_CLUSTER_CONTROLLER_MANAGER_PORT:-26257}
  SCHEDULER_PORT=${GPU_CLUSTER_SCHEDULER_PORT:-26259}
  KWOK_PORT=${GPU_CLUSTER_KWOK_PORT:-26250}
  KUEUE_WEBHOOK_PORT=${GPU_CLUSTER_KUEUE_WEBHOOK_PORT:-26943}
  KUEUE_HEALTH_PORT=${GPU_CLUSTER_KUEUE_HEALTH_PORT:-26981}
  KUBERAY_HEALTH_PORT=${GPU_CLUSTER_KUBERAY_HEALTH_PORT:-26982}
}

check_ports_free() {
  local port ports=("$APISERVER_PORT" "$ETCD_PORT" "$ETCD_PEER_PORT" "$KCM_PORT" "$SCHEDULER_PORT" "$KWOK_PORT")
  if ((KUEUE_ENABLED)); then ports+=("$KUEUE_WEBHOOK_PORT" "$KUEUE_HEALTH_PORT"); fi
  if ((KUBERAY_ENABLED)); then ports+=("$KUBERAY_HEALTH_PORT"); fi
  local ephemeral_low=0 ephemeral_high=-1
  if [[ -r /proc/sys/net/ipv4/ip_local_port_range ]]; then
    read -r ephemeral_low ephemeral_high </proc/sys/net/ipv4/ip_local_port_range
  fi
  for port in "${ports[@]}"; do
    if port_in_use "$port"; then
      die "127.0.0.1:$port is already in use (another cluster with a different GPU_CLUSTER_DIR?); pick other ports with GPU_CLUSTER_*_PORT"
    fi
    if ((port >= ephemeral_low && port <= ephemeral_high)); then
      log "warning: port $port lies in the kernel's ephemeral range ($ephemeral_low-$ephemeral_high): an outgoing connection may take it before the daemon binds it; prefer a port below $ephemeral_low"
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
  # A cluster of another Kubernetes version (the floor run after the default one) is started again.
  [[ $(cat "$STATE_DIR/kube-version" 2>/dev/null) == "$KUBE_VERSION" ]] || return 1
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
KUBERAY_HEALTH_PORT=$KUBERAY_HEALTH_PORT
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
    if kuberay_pid >/dev/null; then
      printf 'export GPU_LOCAL_KUBERAY=1\n'
      printf 'export GPU_LOCAL_KUBERAY_VERSION=%q\n' "$KUBERAY_VERSION"
    else
      printf 'export GPU_LOCAL_KUBERAY=0\n'
    fi
  } >"$STATE_DIR/env.tmp"
  mv -f "$STATE_DIR/env.tmp" "$STATE_DIR/env"
}

start_cluster() {
  local t0
  t0=$(now_ms)
  mkdir -p "$STATE_DIR"
  touch "$STATE_DIR/$STATE_MARKER"
  printf '%s\n' "$KUBE_VERSION" >"$STATE_DIR/kube-version"
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

# stop_cluster: Kueue and KubeRay first (this script runs them, not kwokctl), then kwokctl stops the
# processes; then wait until the apiserver port is free again, so an 'up' right after a 'down' never finds it
# taken.
stop_cluster() {
  kueue_stop
  kuberay_stop
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
