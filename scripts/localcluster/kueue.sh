#!/usr/bin/env bash
# Kueue for the local GPU test cluster: sourced by cluster.sh, which owns the
# variables and helpers used here (STATE_DIR, KUBECONFIG_FILE, kc, log, wait_for,
# ...). Builds nothing itself (cluster.sh's build_one does); starts, checks and
# stops the real Kueue controller with its webhooks served to the local API
# server. README.md next to this file says what differs from upstream's
# manifests and why.
# shellcheck disable=SC2154 # variables are set by cluster.sh before it sources this file

#
# The real Kueue controller (sigs.k8s.io/kueue/cmd/kueue at KUEUE_VERSION) runs as one more plain process
# next to kwokctl's, started and stopped by this script. README.md ("Kueue") explains what differs from
# upstream's manifests and why. In short: the CRDs of the module as they are (only v1beta2 is used, so no
# conversion webhook), the webhooks called by URL on 127.0.0.1 with a CA of our own, only the webhooks of
# the enabled integrations, no metrics server, no visibility server, no leader election.

KUEUE_MODULE_DIR=
# kueue_module_dir: the unpacked module sigs.k8s.io/kueue@KUEUE_VERSION (CRDs and webhook manifests).
kueue_module_dir() {
  [[ -z $KUEUE_MODULE_DIR ]] || return 0
  command -v go >/dev/null || { log "go is needed to find the manifests of sigs.k8s.io/kueue@$KUEUE_VERSION"; return 1; }
  local json
  json=$(cd / && GOWORK=off GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/kueue@$KUEUE_VERSION") ||
    { log "go mod download sigs.k8s.io/kueue@$KUEUE_VERSION failed"; return 1; }
  KUEUE_MODULE_DIR=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")
  [[ -d $KUEUE_MODULE_DIR/config/components/crd/bases && -f $KUEUE_MODULE_DIR/config/components/webhook/manifests.yaml ]] ||
    { log "no Kueue CRDs or webhook manifests in '$KUEUE_MODULE_DIR'"; KUEUE_MODULE_DIR=; return 1; }
}

# kueue_certs: a CA and a serving certificate for 127.0.0.1 and localhost (RSA 2048), named tls.crt and
# tls.key in the certDir Kueue reads. Kept while the state dir lives, so the webhooks' caBundle stays valid
# when Kueue restarts.
kueue_certs() {
  local d=$KUEUE_CERT_DIR
  [[ -s $d/ca.crt && -s $d/tls.crt && -s $d/tls.key ]] && return 0
  mkdir -p "$d"
  chmod 0700 "$d"
  rm -f "$d/ca.crt" "$d/ca.key" "$d/tls.crt" "$d/tls.key"
  cat >"$d/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = gpu-local-kueue
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[serving]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
  if ! {
    openssl req -x509 -new -nodes -newkey rsa:2048 -sha256 -days 3650 -config "$d/openssl.cnf" -extensions ca \
      -subj /CN=gpu-local-kueue-ca -keyout "$d/ca.key" -out "$d/ca.crt" &&
      openssl req -new -nodes -newkey rsa:2048 -config "$d/openssl.cnf" -subj /CN=127.0.0.1 \
        -keyout "$d/tls.key.tmp" -out "$d/tls.csr" &&
      openssl x509 -req -sha256 -days 3650 -in "$d/tls.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
        -set_serial "0x$(openssl rand -hex 16)" -extfile "$d/openssl.cnf" -extensions serving -out "$d/tls.crt.tmp"
  } >"$d/openssl.log" 2>&1; then
    log "creating Kueue's certificates failed:"
    cat "$d/openssl.log" >&2
    return 1
  fi
  chmod 0600 "$d/ca.key" "$d/tls.key.tmp"
  mv -f "$d/tls.key.tmp" "$d/tls.key"
  mv -f "$d/tls.crt.tmp" "$d/tls.crt"
  rm -f "$d/tls.csr"
}

# kueue_write_config: Kueue's Configuration (the module's apis/config/v1beta2; upstream's example is
# config/components/manager/controller_manager_config.yaml).
kueue_write_config() {
  cat >"$KUEUE_DIR/config.yaml" <<EOF
# Written by scripts/localcluster/cluster.sh; see scripts/localcluster/README.md ("Kueue").
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
health:
  healthProbeBindAddress: 127.0.0.1:$KUEUE_HEALTH_PORT
# "0": no metrics server. (Kueue still loads /etc/kueue/metrics/certs, see kueue_launch.)
metrics:
  bindAddress: "0"
webhook:
  host: 127.0.0.1
  port: $KUEUE_WEBHOOK_PORT
  certDir: $KUEUE_CERT_DIR
leaderElection:
  leaderElect: false
# Certificates and the webhooks' caBundle come from cluster.sh (no Service, no Secret, no cert rotator).
internalCertManagement:
  enable: false
# No client-side rate limit, like the other components (kwokctl.yaml: disableQPSLimits).
clientConnection:
  qps: -1
  burst: 100
controller:
  groupKindConcurrency:
    Job.batch: 5
    Pod: 5
    Workload.kueue.x-k8s.io: 5
    LocalQueue.kueue.x-k8s.io: 1
    Cohort.kueue.x-k8s.io: 1
    ClusterQueue.kueue.x-k8s.io: 1
    ResourceFlavor.kueue.x-k8s.io: 1
# Only objects labelled kueue.x-k8s.io/queue-name are queued (the default, spelled out).
manageJobsWithoutQueueName: false
# No waitForPodsReady section: in v1beta2 its presence enables it.
integrations:
  frameworks:
  - batch/job
  - pod
  - deployment
  - statefulset
EOF
}

# kueue_render_webhooks MANIFESTS: upstream's webhook configurations (config/components/webhook/manifests.yaml,
# controller-gen output) made fit for this cluster, on stdout:
#   - named kueue-mutating-webhook-configuration / kueue-validating-webhook-configuration, as upstream's
#     kustomize namePrefix names them;
#   - clientConfig: url https://127.0.0.1:<port><path> and the caBundle of our CA instead of the Service;
#   - only the webhooks of the kueue.x-k8s.io API and of the enabled integrations (batch/v1 Job, apps/v1
#     Deployment and StatefulSet, v1 Pod); the others are for resources whose CRDs are not installed;
#   - the webhooks on Pods, Jobs, Deployments and StatefulSets get an objectSelector: only objects labelled
#     kueue.x-k8s.io/queue-name go through Kueue. With manageJobsWithoutQueueName: false (the default)
#     Kueue ignores the others anyway, so only latency changes: most tests and `make bench` (20,000 pods)
#     never wait for a webhook call. Side effect: the LocalQueue named "default" (LocalQueueDefaulting) is
#     not applied to objects without the label;
#   - the Pod webhook must still see every pod of a queued Deployment or StatefulSet: it gates them
#     (kueue.x-k8s.io/admission) because the parent's webhook annotated the pod template with
#     kueue.x-k8s.io/pod-suspending-parent. Pods of a queued Deployment match the selector above (Kueue's
#     Deployment webhook copies the queue label onto the pod template, pkg/controller/jobs/deployment/
#     deployment_webhook.go). Kueue's StatefulSet webhook does not (statefulset_webhook.go only adds the
#     annotation), and an objectSelector cannot match annotations, so the Pod webhooks are registered a
#     second time (mpod-statefulset.kb.io, vpod-statefulset.kb.io, same URL) for pods labelled
#     statefulset.kubernetes.io/pod-name and not kueue.x-k8s.io/queue-name: every StatefulSet pod, queued
#     or not, goes through Kueue, as upstream;
#   - the webhooks on Pods, Deployments and StatefulSets skip kube-system and kueue-system
#     (namespaceSelector), as upstream's config/components/webhook/kustomization.yaml adds it.
kueue_render_webhooks() {
  awk -v base="https://127.0.0.1:$KUEUE_WEBHOOK_PORT" -v ca="$(b64 "$KUEUE_CERT_DIR/ca.crt")" '
    # emit(SUFFIX, STS): print the buffered webhook, its name with SUFFIX; STS selects StatefulSet pods
    # without a queue label instead of objects with one.
    function emit(suffix, sts,   i, inservice, hasns, line) {
      for (i = 1; i <= n; i++) {
        if (buf[i] == "    service:") {
          print "    url: " base path
          print "    caBundle: " ca
          inservice = 1
          continue
        }
        if (inservice && buf[i] ~ /^      /) continue
        inservice = 0
        if (buf[i] ~ /^  namespaceSelector:/) hasns = 1
        line = buf[i]
        if (line ~ /^  name: /) sub(/\.kb\.io$/, suffix ".kb.io", line)
        print line
      }
      if (path ~ /-(batch-v1-job|apps-v1-deployment|apps-v1-statefulset|-v1-pod)$/) {
        print "  objectSelector:"
        print "    matchExpressions:"
        if (sts) {
          print "    - key: statefulset.kubernetes.io/pod-name"
          print "      operator: Exists"
          print "    - key: kueue.x-k8s.io/queue-name"
          print "      operator: DoesNotExist"
        } else {
          print "    - key: kueue.x-k8s.io/queue-name"
          print "      operator: Exists"
        }
      }
      if (!hasns && path ~ /-(apps-v1-deployment|apps-v1-statefulset|-v1-pod)$/) {
        print "  namespaceSelector:"
        print "    matchExpressions:"
        print "    - key: kubernetes.io/metadata.name"
        print "      operator: NotIn"
        print "      values: [kube-system, kueue-system]"
      }
    }
    function flush() {
      if (!n) return
      if (path ~ /^\/(mutate|validate)-(kueue-x-k8s-io-v1beta2-[a-z]+|batch-v1-job|apps-v1-deployment|apps-v1-statefulset|-v1-pod)$/) {
        emit("", 0)
        if (path ~ /-v1-pod$/) emit("-statefulset", 1)
      }
      n = 0
      path = ""
    }
    /^---/ { flush(); initem = 0; print; next }
    /^- / { flush(); initem = 1 }
    initem {
      buf[++n] = $0
      if ($0 ~ /^      path: /) { path = $0; sub(/^      path: /, "", path) }
      next
    }
    /^  name: (mutating|validating)-webhook-configuration$/ { sub(/name: /, "name: kueue-") }
    { print }
    END { flush() }
  ' "$1"
}

# kueue_crds_established: every CRD in KUEUE_CRDS is Established (a plain get: kubectl wait takes 1.3 s here).
KUEUE_CRDS=()
kueue_crds_established() {
  local out
  out=$(kc get "${KUEUE_CRDS[@]}" -o 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Established")].status}{" "}{end}') || return 1
  out=${out//True /}
  [[ -z $out ]]
}

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

# kueue_healthy: Kueue of this KUEUE_VERSION runs, is ready, and its webhook port speaks TLS.
kueue_healthy() {
  kueue_pid >/dev/null && [[ $(cat "$KUEUE_DIR/version" 2>/dev/null) == "$KUEUE_VERSION" ]] &&
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
    # shellcheck disable=SC2016 # expanded by the inner sh
    exec setsid "${ns[@]}" sh -c 'mount -t overlay -o "ro,lowerdir=$1:/etc" overlay /etc || exit 1
      echo $$ >"$2"
      shift 2
      exec "$@"' kueue-launch "$etc" "$KUEUE_PID_FILE" \
      "$(bin_path kueue)" --config "$KUEUE_DIR/config.yaml" --kubeconfig "$KUBECONFIG_FILE" \
      --feature-gates VisibilityOnDemand=false --zap-log-level 2 \
      </dev/null >>"$KUEUE_LOG" 2>&1
  ) &
  KUEUE_LAUNCH_PID=$!
}

# kueue_gone: the Kueue just launched has exited (before or after writing its pid file).
kueue_gone() {
  if [[ -s $KUEUE_PID_FILE ]]; then
    kueue_pid >/dev/null && return 1
  else
    kill -0 "$KUEUE_LAUNCH_PID" 2>/dev/null && return 1
  fi
  return 0
}

# kueue_wait DESCRIPTION COMMAND...: wait_for for Kueue: gives up at once when Kueue exits.
kueue_wait() {
  local what=$1 deadline
  shift
  deadline=$(($(now_ms) + TIMEOUT * 1000))
  until "$@" >/dev/null 2>&1; do
    if kueue_gone; then
      log "Kueue exited while waiting for $what"
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
  local p
  for p in mutate-batch-v1-job validate-batch-v1-job mutate--v1-pod validate--v1-pod \
    mutate-apps-v1-deployment validate-apps-v1-deployment mutate-apps-v1-statefulset validate-apps-v1-statefulset \
    mutate-kueue-x-k8s-io-v1beta2-resourceflavor validate-kueue-x-k8s-io-v1beta2-clusterqueue; do
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
