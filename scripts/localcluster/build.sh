#!/usr/bin/env bash
# The local cluster's build of the pinned binaries into the cache: sourced by cluster.sh, which sets the variables and helpers used here
# (STATE_DIR, CACHE_DIR, log, die, ...) before it sources this file.
# shellcheck disable=SC2154 # variables are set by cluster.sh before it sources this file

# ----------------------------------------------------------------------------------------------- build

bin_path() {
  case $1 in
    etcd) echo "$ETCD_BIN_DIR/etcd" ;;
    kwok | kwokctl) echo "$KWOK_BIN_DIR/$1" ;;
    kueue) echo "$KUEUE_BIN_DIR/kueue" ;;
    kuberay) echo "$KUBERAY_BIN_DIR/ray-operator" ;;
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
    kuberay)
      # go install straight from the module proxy, like Kueue: the module root is the operator's main
      # package (upstream's Makefile builds it as bin/manager) and has no replace directives. Its version
      # is a constant in the source (utils.KUBERAY_VERSION), so no -X is needed.
      tmp=$(mktemp -d "$dest.tmp.XXXXXX")
      BUILD_TMP=$tmp
      if ! (cd "$tmp" && GOWORK=off GOBIN="$tmp" go install -trimpath -ldflags "-s -w" \
        "github.com/ray-project/kuberay/ray-operator@$KUBERAY_VERSION"); then
        rm -rf "$tmp"
        die "building kuberay failed"
      fi
      mv -f "$tmp/ray-operator" "$tmp.bin"
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
      # One wrapper module per minor pins k8s.io/kubernetes and its staging modules.
      local module_dir=$SCRIPT_DIR/build/kubernetes-$major.$minor
      [[ -f $module_dir/go.mod ]] || die "no build module for Kubernetes $major.$minor ($module_dir): copy another minor's and pin $KUBE_VERSION"
      if ! (cd "$module_dir" && GOWORK=off go build -trimpath -ldflags "$ldflags" -o "$tmp" "k8s.io/kubernetes/cmd/$name"); then
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

ALL_BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok kwokctl kueue kuberay)

# up_binaries: what 'up' needs; Kueue and KubeRay only when they are to run.
up_binaries() {
  local name
  for name in "${ALL_BINARIES[@]}"; do
    if [[ $name == kueue ]] && ((!KUEUE_ENABLED)); then continue; fi
    if [[ $name == kuberay ]] && ((!KUBERAY_ENABLED)); then continue; fi
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
