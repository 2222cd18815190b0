#!/usr/bin/env bash
# KubeRay for the local GPU test cluster: installs the CRDs (RayCluster, RayJob, RayService) and the RBAC of
# the ray-operator module at KUBERAY_VERSION, runs the operator as a host process against the local API
# server, checks it and stops it. Sourced by cluster.sh, which owns the variables and helpers used here
# (STATE_DIR, KUBECONFIG_FILE, kc, log, wait_for, close_fds, ...) and builds the binary (build.sh).
# README.md next to this file ("KubeRay") says what differs from upstream's manifests and why.
# shellcheck disable=SC2154 # variables are set by cluster.sh before it sources this file

KUBERAY_MODULE=github.com/ray-project/kuberay/ray-operator
# The operator runs as this ServiceAccount (impersonated, see kuberay_write_kubeconfig), bound to the
# module's ClusterRole, so it has exactly the rights upstream's manifests give it.
KUBERAY_NAMESPACE=kuberay-system
KUBERAY_SA=kuberay-operator
KUBERAY_PROBE=gpu-localcluster-kuberay-probe

KUBERAY_MODULE_DIR=
# kuberay_module_dir: the unpacked module github.com/ray-project/kuberay/ray-operator@KUBERAY_VERSION (CRDs
# and RBAC), from the module cache or the module proxy, so the manifests always match the binary.
kuberay_module_dir() {
  [[ -z $KUBERAY_MODULE_DIR ]] || return 0
  command -v go >/dev/null || { log "go is needed to find the manifests of $KUBERAY_MODULE@$KUBERAY_VERSION"; return 1; }
  local json
  json=$(cd / && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$KUBERAY_MODULE@$KUBERAY_VERSION") ||
    { log "go mod download $KUBERAY_MODULE@$KUBERAY_VERSION failed"; return 1; }
  KUBERAY_MODULE_DIR=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")
  [[ -f $KUBERAY_MODULE_DIR/config/crd/bases/ray.io_rayclusters.yaml && -f $KUBERAY_MODULE_DIR/config/rbac/role.yaml ]] ||
    { log "no KubeRay CRDs or RBAC in '$KUBERAY_MODULE_DIR'"; KUBERAY_MODULE_DIR=; return 1; }
}

# kuberay_write_config [FILE]: the operator's Configuration (config.ray.io/v1alpha1, the module's
# apis/config/v1alpha1; with --config the operator ignores its other flags), to FILE (default config.yaml).
kuberay_write_config() {
  cat >"${1:-$KUBERAY_DIR/config.yaml}" <<EOF
# Written by scripts/localcluster/cluster.sh; see scripts/localcluster/README.md ("KubeRay").
apiVersion: config.ray.io/v1alpha1
kind: Configuration
# "0": no metrics server (nothing scrapes it). Health probes (/healthz, /readyz) on 127.0.0.1.
metricsAddr: "0"
probeAddr: 127.0.0.1:$KUBERAY_HEALTH_PORT
enableLeaderElection: false
# Empty: RayClusters, RayJobs and RayServices of every namespace.
watchNamespace: ""
EOF
}

# kuberay_config_current: the running operator was started with the Configuration written now.
kuberay_config_current() {
  [[ $(kuberay_write_config /dev/stdout) == "$(cat "$KUBERAY_DIR/config.yaml" 2>/dev/null)" ]]
}

# kuberay_write_kubeconfig: kwokctl's admin client certificate (as in the cluster's kubeconfig), impersonating
# the operator's ServiceAccount ("as"): the apiserver authorizes every request as
# system:serviceaccount:kuberay-system:kuberay-operator (with its groups), i.e. with upstream's ClusterRole,
# and there is no token to renew.
kuberay_write_kubeconfig() {
  local f=$KUBERAY_DIR/kubeconfig
  (umask 077 && cat >"$f.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: gpu-local
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(b64 "$PKI/ca.crt")
users:
- name: kuberay-operator
  user:
    client-certificate-data: $(b64 "$PKI/admin.crt")
    client-key-data: $(b64 "$PKI/admin.key")
    as: system:serviceaccount:$KUBERAY_NAMESPACE:$KUBERAY_SA
contexts:
- name: kuberay-operator
  context: {cluster: gpu-local, user: kuberay-operator}
current-context: kuberay-operator
EOF
  ) && mv -f "$f.tmp" "$f"
}

# kuberay_rbac: the module's ClusterRole (config/rbac/role.yaml, applied as it is) and what upstream's
# kustomization adds around it: the namespace, the ServiceAccount, the ClusterRoleBinding. Leader election is
# off, so its Role (leader_election_role.yaml) is not needed.
kuberay_rbac() {
  cat <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: $KUBERAY_NAMESPACE
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: $KUBERAY_SA
  namespace: $KUBERAY_NAMESPACE
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kuberay-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kuberay-operator
subjects:
- kind: ServiceAccount
  name: $KUBERAY_SA
  namespace: $KUBERAY_NAMESPACE
EOF
}

# kuberay_crds_established: the three CRDs are Established.
kuberay_crds_established() {
  local out
  out=$(kc get crd/rayclusters.ray.io crd/rayjobs.ray.io crd/rayservices.ray.io \
    -o 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Established")].status}{" "}{end}') || return 1
  [[ $out == "True True True " ]]
}

# kuberay_install: CRDs (server-side: each is about 1 MB, too big for client-side apply's last-applied
# annotation), RBAC, until Established. Also run before Kueue starts, so Kueue finds the Ray kinds.
kuberay_install() {
  kuberay_module_dir || return 1
  mkdir -p "$KUBERAY_DIR"
  kuberay_rbac >"$KUBERAY_DIR/rbac.yaml"
  kc apply --server-side --force-conflicts --field-manager "$KUBERAY_FIELD_MANAGER" \
    -f "$KUBERAY_MODULE_DIR/config/crd/bases" -f "$KUBERAY_MODULE_DIR/config/rbac/role.yaml" \
    -f "$KUBERAY_DIR/rbac.yaml" >/dev/null ||
    { log "applying KubeRay's CRDs and RBAC failed"; return 1; }
  wait_for "KubeRay's CRDs to be Established" kuberay_crds_established
}

kuberay_ready() { [[ $(curl -fsS --max-time 2 "http://127.0.0.1:$KUBERAY_HEALTH_PORT/readyz" 2>/dev/null) == ok ]]; }

# kuberay_pid: print the pid of this state dir's operator if it runs: the pid file names a live process
# (not a zombie) whose command line carries this state dir's config (pids get reused).
kuberay_pid() {
  local pid stat
  [[ -s $KUBERAY_PID_FILE ]] || return 1
  pid=$(<"$KUBERAY_PID_FILE")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r /proc/$pid/stat ]]; then
    stat=$(<"/proc/$pid/stat")
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]] || return 1
    [[ $(tr '\0' ' ' <"/proc/$pid/cmdline") == *" --config $KUBERAY_DIR/config.yaml "* ]] || return 1
  fi
  echo "$pid"
}

# kuberay_healthy: the operator of this KUBERAY_VERSION and Configuration runs and /readyz answers.
kuberay_healthy() {
  kuberay_pid >/dev/null && [[ $(cat "$KUBERAY_DIR/version" 2>/dev/null) == "$KUBERAY_VERSION" ]] &&
    kuberay_config_current && kuberay_ready
}

# kuberay_stop: SIGTERM, SIGKILL after STOP_TIMEOUT; then wait for its port.
kuberay_stop() {
  local pid deadline
  if pid=$(kuberay_pid); then
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$(($(now_ms) + STOP_TIMEOUT * 1000))
    while kuberay_pid >/dev/null && (($(now_ms) < deadline)); do sleep 0.1; done
    if kuberay_pid >/dev/null; then
      log "KubeRay (pid $pid) did not stop within ${STOP_TIMEOUT}s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    while port_in_use "$KUBERAY_HEALTH_PORT" && (($(now_ms) < deadline)); do sleep 0.1; done
  fi
  rm -f "$KUBERAY_PID_FILE"
}

# kuberay_launch: start the operator in the background, detached like Kueue (kueue_launch): no file
# descriptors beyond 0-2, its own session. The launcher shell writes its pid and execs the operator, so
# the pid file names the operator. Logs in console format (the operator's default is JSON).
KUBERAY_LAUNCH_PID=
kuberay_launch() {
  command -v setsid >/dev/null || { log "KubeRay needs setsid(1) (util-linux); run with GPU_CLUSTER_KUBERAY=0 instead"; return 1; }
  printf '%s\n' "$KUBERAY_VERSION" >"$KUBERAY_DIR/version"
  rm -f "$KUBERAY_PID_FILE"
  printf '\n==== cluster.sh: starting kuberay %s at %s\n' "$KUBERAY_VERSION" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$KUBERAY_LOG"
  (
    close_fds
    cd "$KUBERAY_DIR" || exit 1
    # shellcheck disable=SC2016 # expanded by the inner sh
    exec setsid -w sh -c 'echo $$ >"$1"
      shift
      exec "$@"' kuberay-launch "$KUBERAY_PID_FILE" \
      "$(bin_path kuberay)" --config "$KUBERAY_DIR/config.yaml" --kubeconfig "$KUBERAY_DIR/kubeconfig" \
      --log-stdout-encoder console \
      </dev/null >>"$KUBERAY_LOG" 2>&1
  ) &
  KUBERAY_LAUNCH_PID=$!
}

# kuberay_gone: the operator just launched has exited (asks about our child, as kueue_gone does).
kuberay_gone() {
  local stat
  stat=$(cat "/proc/$KUBERAY_LAUNCH_PID/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  [[ ${stat%% *} == Z ]]
}

# kuberay_wait DESCRIPTION COMMAND...: wait_for for the operator: gives up at once when it exits.
kuberay_wait() {
  local what=$1 deadline
  shift
  deadline=$(($(now_ms) + TIMEOUT * 1000))
  until "$@" >/dev/null 2>&1; do
    if kuberay_gone; then
      local status=0
      wait "$KUBERAY_LAUNCH_PID" 2>/dev/null || status=$?
      log "KubeRay exited (status $status) while waiting for $what"
      return 1
    fi
    if (($(now_ms) > deadline)); then
      log "timed out after ${TIMEOUT}s waiting for $what"
      return 1
    fi
    sleep 0.1
  done
}

kuberay_failed() {
  log "last lines of $KUBERAY_LOG:"
  tail -n 25 "$KUBERAY_LOG" >&2 || true
  kuberay_stop
  return 1
}

# kuberay_probe_create: a suspended RayCluster in kuberay-system (no pods, no queue label, so Kueue leaves
# it alone), created afresh so that a status from an earlier operator cannot pass the check.
kuberay_probe_create() {
  kc delete raycluster -n "$KUBERAY_NAMESPACE" "$KUBERAY_PROBE" --ignore-not-found --wait >/dev/null || return 1
  kc create -f - >/dev/null <<EOF
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: $KUBERAY_PROBE
  namespace: $KUBERAY_NAMESPACE
spec:
  suspend: true
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers:
        - name: ray-head
          image: rayproject/ray:2.46.0
EOF
}

# kuberay_probe_suspended: the operator reconciled the probe: status.state "suspended" (written only by the
# operator: apiserver -> watch -> operator -> status update works, with its RBAC).
kuberay_probe_suspended() {
  [[ $(kc get raycluster -n "$KUBERAY_NAMESPACE" "$KUBERAY_PROBE" -o 'jsonpath={.status.state}') == suspended ]]
}

# kuberay_roundtrip: the smoke check of start_kuberay (like kueue_webhook_roundtrip): create the probe, wait
# until the operator marks it suspended, delete it.
kuberay_roundtrip() {
  kuberay_probe_create || { log "creating the probe RayCluster $KUBERAY_NAMESPACE/$KUBERAY_PROBE failed"; return 1; }
  kuberay_wait "KubeRay to reconcile the probe RayCluster $KUBERAY_NAMESPACE/$KUBERAY_PROBE" kuberay_probe_suspended ||
    return 1
  kc delete raycluster -n "$KUBERAY_NAMESPACE" "$KUBERAY_PROBE" --wait=false >/dev/null || true
}

# start_kuberay: (re)start the operator: CRDs and RBAC, Configuration, kubeconfig, process; ready when
# /readyz answers and it has reconciled a probe RayCluster.
start_kuberay() {
  local t0
  t0=$(now_ms)
  kuberay_stop
  if port_in_use "$KUBERAY_HEALTH_PORT"; then
    log "127.0.0.1:$KUBERAY_HEALTH_PORT (KubeRay) is already in use; pick another with GPU_CLUSTER_KUBERAY_HEALTH_PORT"
    return 1
  fi
  kuberay_install || return 1
  kuberay_write_config
  kuberay_write_kubeconfig || { log "writing $KUBERAY_DIR/kubeconfig failed"; return 1; }
  kuberay_launch || return 1
  kuberay_wait "KubeRay /readyz on 127.0.0.1:$KUBERAY_HEALTH_PORT" kuberay_ready || { kuberay_failed; return 1; }
  kuberay_roundtrip || { kuberay_failed; return 1; }
  log "KubeRay $KUBERAY_VERSION ready ($(elapsed "$t0"), pid $(kuberay_pid))"
}

# ensure_kuberay: what GPU_CLUSTER_KUBERAY asks for: a healthy operator (restarted if it is not), or none
# (one an earlier up started is stopped; the CRDs stay, as Kueue's do).
ensure_kuberay() {
  if ((KUBERAY_ENABLED)); then
    if kuberay_healthy; then
      log "KubeRay $KUBERAY_VERSION is running (pid $(kuberay_pid))"
      return 0
    fi
    if [[ -e $KUBERAY_PID_FILE || -e $KUBERAY_DIR/version ]]; then log "KubeRay is not running or not healthy; (re)starting it"; fi
    start_kuberay
  elif [[ -e $KUBERAY_PID_FILE || -e $KUBERAY_DIR/version ]]; then
    log "GPU_CLUSTER_KUBERAY=0: stopping KubeRay"
    kuberay_stop
    rm -f "$KUBERAY_DIR/version"
  fi
}
