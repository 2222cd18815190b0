#!/usr/bin/env bash
# Builds hashicorp/terraform-provider-kubernetes, the peer `make bench`
# measures gpu_workload against when BENCH_PEER_KUBERNETES is set (issue #24
# item 7), from a source tree or a git directory of that repository:
#
#   scripts/bench-peer-build.sh SOURCE [OUT]
#
# SOURCE is a checkout, or a git directory (a bare clone or a mirror), whose
# PEER_COMMIT is extracted (without its testdata directories) into a
# temporary directory first. OUT defaults to bin/terraform-provider-kubernetes;
# OUT.version records what was built (the benchmark's report shows it).
# Dependencies come from the Go module proxy (GOFLAGS=-mod=mod). Then:
#
#   BENCH_PEER_KUBERNETES=bin/terraform-provider-kubernetes make bench
#
# Tested with v3.2.1-2-g3a33fb6cc (PEER_COMMIT below) and go1.26.8: 147 s
# with GOFLAGS=-p=1 on 2 shared cores, its modules downloaded on the way.
set -euo pipefail

PEER_COMMIT="${PEER_COMMIT:-3a33fb6cc6055853584af1731b1369164c35ffc7}"
root="$(cd "$(dirname "$0")/.." && pwd)"

if [[ $# -lt 1 || $# -gt 2 ]]; then
	sed -n '2,17p' "$0" >&2
	exit 2
fi
src="$1"
out="${2:-$root/bin/terraform-provider-kubernetes}"
[[ $out == /* ]] || out="$PWD/$out"

if [[ -f $src/go.mod ]]; then
	dir="$src"
	if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
		have="$(git -C "$src" rev-parse HEAD)"
		if [[ $have != "$PEER_COMMIT" ]]; then
			echo "bench-peer-build: $src is at $have, tested with $PEER_COMMIT" >&2
		fi
		version="$(git -C "$src" describe --tags --always --dirty) ($have)"
	else
		version="source tree without git ($src)"
	fi
else
	if ! git --git-dir="$src" cat-file -e "$PEER_COMMIT^{commit}" 2>/dev/null; then
		echo "bench-peer-build: $src is neither a source tree (no go.mod) nor a git directory with $PEER_COMMIT" >&2
		exit 1
	fi
	dir="$(mktemp -d "${TMPDIR:-/tmp}/tpk-XXXXXX")"
	trap 'rm -rf "$dir"' EXIT
	# Without testdata: not needed to build, and a snapshot may lack its
	# largest files (git then still prints "invalid object" for them).
	git --git-dir="$src" archive "$PEER_COMMIT" -- . ':(exclude)**/testdata/**' | tar -x -C "$dir"
	version="$(git --git-dir="$src" describe --tags --always "$PEER_COMMIT") ($PEER_COMMIT)"
fi

mkdir -p "$(dirname "$out")"
echo "bench-peer-build: building $(basename "$out") from $dir" >&2
start=$SECONDS
(cd "$dir" && GOFLAGS="-mod=mod ${GOFLAGS:-}" go build -trimpath -o "$out" .)
echo "$version" >"$out.version"
echo "bench-peer-build: $out ($((SECONDS - start)) s)" >&2
