#!/usr/bin/env bash
# Kueue for the local GPU test cluster, its process: starts, checks and stops the real Kueue controller
# with its webhooks served to the local API server, set up by kueue_setup.sh. Sourced by cluster.sh, which
# owns the variables and helpers used here (STATE_DIR, KUBECONFIG_FILE, kc, log, wait_for, ...) and builds
# the binary (build.sh).
# shellcheck disable=SC2154 # variables are set by cluster.sh before it sources this file

kueue_ready() { [[ $(curl -fsS --max-time 2 "http://127.0.0.1:$KUEUE_HEALTH_PORT/readyz" 2>/dev/null) == ok ]]; }
# kueue_webhook_tls: the webhook port completes a TLS handshake with our CA and 127.0.0.1 (any HTTP status).
kueue_webhook_tls() {
  curl -sS --max-time 2 --cacert "$KUEUE_CERT_DIR/ca.crt" -o /dev/null "https://127.0.0.1:$KUEUE_WEBHOOK_PORT/" 2>/dev/null
}
# kueue_webhook_roundtrip: a dry-run create of a ResourceFlavor through the apiserver comes back with the
# finalizer Kueue's mutating webhook adds: apiserver -> webhook URL -> Kueue -> apiserver works.
kueue_webhook_roundtrip() {
  local out
  out=$(kc create --dry-run=server -o 'jsonpath={.metadata.finalizers}' -f - <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: gpu-localcluster-webhook-probe
EOF
  ) || return 1
  [[ $out == *kueue.x-k8s.io/resource-in-use* ]]
}

# kueue_pid: print the pid of this state dir's Kueue if it runs: the pid file names a live process (not a
# zombie) whose command line carries this state dir's Kueue config (pids get reused).
kueue_pid() {
  local pid stat
  [[ -s $KUEUE_PID_FILE ]] || return 1
  pid=$(<"$KUEUE_PID_FILE")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r /proc/$pid/stat ]]; then
    stat=$(<"/proc/$pid/stat")
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]] || return 1
    [[ $(tr '\0' ' ' <"/proc/$pid/cmdline") == *" $KUEUE_DIR/config.yaml "* ]] || return 1
  fi
  echo "$pid"
}

# kueue_healthy: Kueue of this KUEUE_VERSION and Configuration runs, is ready, and its webhook port speaks TLS.
kueue_healthy() {
  kueue_pid >/dev/null && [[ $(cat "$KUEUE_DIR/version" 2>/dev/null) == "$KUEUE_VERSION" ]] && kueue_config_current &&
    kueue_ready && kueue_webhook_tls
}

# kueue_stop: SIGTERM (Kueue shuts down cleanly), SIGKILL after STOP_TIMEOUT; then wait for its ports.
kueue_stop() {
  local pid deadline
  if pid=$(kueue_pid); then
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$(($(now_ms) + STOP_TIMEOUT * 1000))
    while kueue_pid >/dev/null && (($(now_ms) < deadline)); do sleep 0.1; done
    if kueue_pid >/dev/null; then
      log "Kueue (pid $pid) did not stop within ${STOP_TIMEOUT}s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    while { port_in_use "$KUEUE_WEBHOOK_PORT" || port_in_use "$KUEUE_HEALTH_PORT"; } && (($(now_ms) < deadline)); do
      sleep 0.1
    done
  fi
  rm -f "$KUEUE_PID_FILE"
}

# kueue_launch: start Kueue in the background, detached like kwokctl's processes: no file descriptors
# beyond 0-2 (stdin /dev/null, output to kueue.log), its own session (setsid), so it outlives this script
# and never holds a caller's pipe or our lock files.
#
# Kueue v0.17.0 with internalCertManagement disabled loads a metrics certificate from the fixed path
# /etc/kueue/metrics/certs/tls.{crt,key} and exits if it is missing, even when metrics.bindAddress "0"
# turns the metrics server off (cmd/kueue/main.go). Nothing is written to /etc: Kueue runs in a private
# mount namespace (unshare; for a non-root user also a user namespace) in which a read-only overlay adds
# $KUEUE_DIR/etc/kueue/metrics/certs (a copy of the serving certificate, never served) to /etc. The
# overlay and the namespace go away with the process.
KUEUE_LAUNCH_PID=
kueue_launch() {
  if ! command -v unshare >/dev/null || ! command -v setsid >/dev/null; then
    log "Kueue needs unshare(1) and setsid(1) (util-linux, Linux only): it must see a private /etc/kueue/metrics/certs; run with GPU_CLUSTER_KUEUE=0 instead"
    return 1
  fi
  case $KUEUE_DIR in *[,:]*) log "the state dir path must not contain ',' or ':' (overlay mount options): $KUEUE_DIR"; return 1 ;; esac
  local etc=$KUEUE_DIR/etc ns=(unshare --mount --propagation private)
  ((EUID == 0)) || ns=(unshare --user --map-root-user --mount --propagation private)
  rm -rf "$etc"
  mkdir -p "$etc/kueue/metrics/certs"
  cp "$KUEUE_CERT_DIR/tls.crt" "$KUEUE_CERT_DIR/tls.key" "$etc/kueue/metrics/certs/"
  printf '%s\n' "$KUEUE_VERSION" >"$KUEUE_DIR/version"
  rm -f "$KUEUE_PID_FILE"
  printf '\n==== cluster.sh: starting kueue %s at %s\n' "$KUEUE_VERSION" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$KUEUE_LOG"
  (
    close_fds
    cd "$KUEUE_DIR" || exit 1
    # -w: setsid forks when its caller leads a process group (a shell with job control), and without -w
    # that parent exits at once, which kueue_gone took for Kueue exiting before its pid file was written.
    # shellcheck disable=SC2016 # expanded by the inner sh
    exec setsid -w "${ns[@]}" sh -c 'mount -t overlay -o "ro,lowerdir=$1:/etc" overlay /etc || exit 1
      echo $$ >"$2"
      shift 2
      exec "$@"' kueue-launch "$etc" "$KUEUE_PID_FILE" \
      "$(bin_path kueue)" --config "$KUEUE_DIR/config.yaml" --kubeconfig "$KUBECONFIG_FILE" \
      --zap-log-level 2 \
      </dev/null >>"$KUEUE_LOG" 2>&1
  ) &
  KUEUE_LAUNCH_PID=$!
}

# kueue_gone: the Kueue just launched has exited. It asks about the launched process itself (our child, so
# its pid is not reused before we reap it), never the pid file: between the launcher writing that file and
# Kueue's exec completing, /proc/PID/cmdline is empty (the kernel sets the new program's arguments last,
# after faulting in its first pages, which takes long on a cold page cache), and kueue_pid, which checks the
# command line to survive pid reuse, then took a starting Kueue for a dead one: CI's first cluster-up after
# boot failed that way with nothing in kueue.log.
kueue_gone() {
  local stat
  stat=$(cat "/proc/$KUEUE_LAUNCH_PID/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  [[ ${stat%% *} == Z ]]
}

# kueue_wait DESCRIPTION COMMAND...: wait_for for Kueue: gives up at once when Kueue exits.
kueue_wait() {
  local what=$1 deadline
  shift
  deadline=$(($(now_ms) + TIMEOUT * 1000))
  until "$@" >/dev/null 2>&1; do
    if kueue_gone; then
      local status=0
      wait "$KUEUE_LAUNCH_PID" 2>/dev/null || status=$?
      log "Kueue exited (status $status) while waiting for $what"
      return 1
    fi
    if (($(now_ms) > deadline)); then
      log "timed out after ${TIMEOUT}s waiting for $what"
      return 1
    fi
    sleep 0.1
  done
}

kueue_failed() {
  log "last lines of $KUEUE_LOG:"
  tail -n 25 "$KUEUE_LOG" >&2 || true
  kueue_stop
  return 1
}

# start_kueue: (re)start Kueue: CRDs and namespace, certificates, Configuration, process, webhooks; ready
# when a dry-run create through the apiserver passes Kueue's webhooks.
start_kueue() {
  local t0 port manifests
  t0=$(now_ms)
  kueue_stop
  for port in "$KUEUE_WEBHOOK_PORT" "$KUEUE_HEALTH_PORT"; do
    if port_in_use "$port"; then
      log "127.0.0.1:$port (Kueue) is already in use; pick others with GPU_CLUSTER_KUEUE_WEBHOOK_PORT/GPU_CLUSTER_KUEUE_HEALTH_PORT"
      return 1
    fi
  done
  kueue_module_dir || return 1
  mkdir -p "$KUEUE_DIR"
  kueue_certs || return 1
  kueue_write_config
  manifests=$KUEUE_MODULE_DIR/config/components/webhook/manifests.yaml
  kueue_render_webhooks "$manifests" >"$KUEUE_DIR/webhooks.yaml" || { log "rendering $manifests failed"; return 1; }
  local p ray_paths=()
  if ((KUBERAY_ENABLED)); then
    ray_paths=(mutate-ray-io-v1-rayjob validate-ray-io-v1-rayjob mutate-ray-io-v1-raycluster validate-ray-io-v1-raycluster)
  fi
  for p in mutate-batch-v1-job validate-batch-v1-job mutate--v1-pod validate--v1-pod \
    mutate-apps-v1-deployment validate-apps-v1-deployment mutate-apps-v1-statefulset validate-apps-v1-statefulset \
    mutate-kueue-x-k8s-io-v1beta2-resourceflavor validate-kueue-x-k8s-io-v1beta2-clusterqueue "${ray_paths[@]}"; do
    grep -q "url: https://127.0.0.1:$KUEUE_WEBHOOK_PORT/$p\$" "$KUEUE_DIR/webhooks.yaml" ||
      { log "webhook /$p not found in $manifests (format changed?)"; return 1; }
  done
  if grep -q '^    service:' "$KUEUE_DIR/webhooks.yaml"; then log "a Service reference is left in $KUEUE_DIR/webhooks.yaml"; return 1; fi
  printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kueue-system\n' >"$KUEUE_DIR/namespace.yaml"
  kc apply --server-side --force-conflicts --field-manager "$KUEUE_FIELD_MANAGER" \
    -f "$KUEUE_MODULE_DIR/config/components/crd/bases" -f "$KUEUE_DIR/namespace.yaml" >/dev/null ||
    { log "applying Kueue's CRDs failed"; return 1; }
  KUEUE_CRDS=()
  local f
  for f in "$KUEUE_MODULE_DIR"/config/components/crd/bases/*.yaml; do # <group>_<plural>.yaml
    f=${f##*/}
    f=${f%.yaml}
    KUEUE_CRDS+=("crd/${f#*_}.${f%%_*}")
  done
  wait_for "Kueue's CRDs to be Established" kueue_crds_established || return 1
  kueue_launch || return 1
  kueue_wait "Kueue /readyz on 127.0.0.1:$KUEUE_HEALTH_PORT" kueue_ready || { kueue_failed; return 1; }
  kueue_wait "Kueue's webhook TLS on 127.0.0.1:$KUEUE_WEBHOOK_PORT" kueue_webhook_tls || { kueue_failed; return 1; }
  kc apply --server-side --force-conflicts --field-manager "$KUEUE_FIELD_MANAGER" -f "$KUEUE_DIR/webhooks.yaml" >/dev/null ||
    { log "applying $KUEUE_DIR/webhooks.yaml failed"; kueue_failed; return 1; }
  kueue_wait "a dry-run ResourceFlavor through Kueue's webhooks" kueue_webhook_roundtrip || { kueue_failed; return 1; }
  log "Kueue $KUEUE_VERSION ready ($(elapsed "$t0"), pid $(kueue_pid))"
}

# ensure_kueue: what GPU_CLUSTER_KUEUE asks for: a healthy Kueue (restarted if it is not), or none (one an
# earlier up started is stopped and its webhooks removed, so labelled objects are not refused).
ensure_kueue() {
  if ((KUEUE_ENABLED)); then
    if kueue_healthy; then
      log "Kueue $KUEUE_VERSION is running (pid $(kueue_pid))"
      return 0
    fi
    if [[ -e $KUEUE_PID_FILE || -e $KUEUE_DIR/version ]]; then log "Kueue is not running or not healthy; (re)starting it"; fi
    start_kueue
  elif [[ -e $KUEUE_PID_FILE || -e $KUEUE_DIR/version ]]; then
    log "GPU_CLUSTER_KUEUE=0: stopping Kueue and removing its webhooks"
    kueue_stop
    kc delete mutatingwebhookconfiguration kueue-mutating-webhook-configuration --ignore-not-found >/dev/null || true
    kc delete validatingwebhookconfiguration kueue-validating-webhook-configuration --ignore-not-found >/dev/null || true
    rm -f "$KUEUE_DIR/version"
  fi
}
