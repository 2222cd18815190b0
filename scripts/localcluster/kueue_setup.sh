#!/usr/bin/env bash
# Kueue for the local GPU test cluster, its setup: the module's directory, certificates, the controller's
# Configuration, the webhooks rendered for the local API server, the CRDs. Sourced by cluster.sh before
# kueue.sh, which runs the controller. README.md next to this file says what differs from upstream's
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

# KUEUE_DRA_POOLS: the gpu_node_pool_policy names whose DRA DeviceClass (<name>.gpu.gpuform.io) this Kueue
# counts as <class>/devices, the resource gpu_queue gives a DRA pool's quota in (its output
# kueue_device_class_mappings). Kueue reads the mappings only at start, so they are the pools the acceptance
# tests queue on.
KUEUE_DRA_POOLS=(dra-h100-queued)

# kueue_dra_mappings: resources.deviceClassMappings for KUEUE_DRA_POOLS.
kueue_dra_mappings() {
  local p
  for p in "${KUEUE_DRA_POOLS[@]}"; do
    printf '  - name: %s.gpu.gpuform.io/devices\n    deviceClassNames: [%s.gpu.gpuform.io]\n' "$p" "$p"
  done
}

# kueue_ray_frameworks: Kueue's Ray integrations when KubeRay runs (GPU_CLUSTER_KUBERAY, default on):
# RayJob and RayCluster, whose CRDs kuberay.sh installs before Kueue starts (Kueue v0.17.0 sets up an
# integration's controller only once its kind exists: pkg/controller/jobframework/setup.go, waitForAPI,
# retried with backoff up to 2 minutes). Not ray.io/rayservice: Kueue v0.17.0 is built against KubeRay
# v1.6.0, and how KubeRay v1.5.0's RayService controller takes the spec.rayClusterConfig.suspend flips that
# integration makes was not checked.
kueue_ray_frameworks() {
  ((KUBERAY_ENABLED)) || return 0
  printf '\n  - ray.io/rayjob\n  - ray.io/raycluster'
}

# kueue_write_config [FILE]: Kueue's Configuration (the module's apis/config/v1beta2; upstream's example is
# config/components/manager/controller_manager_config.yaml), to FILE (default config.yaml in KUEUE_DIR).
kueue_write_config() {
  cat >"${1:-$KUEUE_DIR/config.yaml}" <<EOF
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
  - statefulset$(kueue_ray_frameworks)
# Feature gates here, not on the command line (Kueue refuses both): no visibility server, and DRA (alpha in
# v0.17.0) so that claims on the DRA pools' classes count against a ClusterQueue's quota.
featureGates:
  VisibilityOnDemand: false
  DynamicResourceAllocation: true
resources:
  deviceClassMappings:
$(kueue_dra_mappings)
EOF
}

# kueue_config_current: the running Kueue was started with the Configuration this script writes now (a
# change to it restarts Kueue on the next up).
kueue_config_current() {
  [[ $(kueue_write_config /dev/stdout) == "$(cat "$KUEUE_DIR/config.yaml" 2>/dev/null)" ]]
}

# kueue_render_webhooks MANIFESTS: upstream's webhook configurations (config/components/webhook/manifests.yaml,
# controller-gen output) made fit for this cluster, on stdout:
#   - named kueue-mutating-webhook-configuration / kueue-validating-webhook-configuration, as upstream's
#     kustomize namePrefix names them;
#   - clientConfig: url https://127.0.0.1:<port><path> and the caBundle of our CA instead of the Service;
#   - only the webhooks of the kueue.x-k8s.io API and of the enabled integrations (batch/v1 Job, apps/v1
#     Deployment and StatefulSet, v1 Pod, and with KubeRay ray.io/v1 RayJob and RayCluster); the others are
#     for resources whose CRDs are not installed or whose integration is off;
#   - the webhooks on Pods, Jobs, Deployments, StatefulSets, RayJobs and RayClusters get an objectSelector:
#     only objects labelled kueue.x-k8s.io/queue-name go through Kueue. With manageJobsWithoutQueueName:
#     false (the default) Kueue ignores the others anyway, so only latency changes: most tests and `make
#     bench` (20,000 pods) never wait for a webhook call. Side effect: the LocalQueue named "default" (LocalQueueDefaulting) is
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
  awk -v base="https://127.0.0.1:$KUEUE_WEBHOOK_PORT" -v ca="$(b64 "$KUEUE_CERT_DIR/ca.crt")" -v ray="$KUBERAY_ENABLED" '
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
      if (path ~ /-(batch-v1-job|apps-v1-deployment|apps-v1-statefulset|-v1-pod|ray-io-v1-rayjob|ray-io-v1-raycluster)$/) {
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
      } else if (ray && path ~ /^\/(mutate|validate)-ray-io-v1-(rayjob|raycluster)$/) {
        emit("", 0)
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
