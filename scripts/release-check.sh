#!/usr/bin/env bash
# Checks the release configuration with goreleaser itself: `goreleaser check`
# on .goreleaser.yml, then a snapshot release (no signing, no publishing) of
# one platform, whose artifacts are checked for the layout Terraform
# registries expect. One platform keeps CI fast; the other platforms differ
# only in GOOS/GOARCH.
set -euo pipefail

GORELEASER_VERSION=v2.14.0 # newer releases need Go 1.27 or modules the proxy refuses
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/bin/goreleaser-$GORELEASER_VERSION"
cd "$root"

if [[ ! -x "$bin/goreleaser" ]]; then
	echo "building goreleaser $GORELEASER_VERSION with go install (a few minutes the first time)" >&2
	mkdir -p "$bin.tmp"
	GOBIN="$bin.tmp" go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
	rm -rf "$bin" && mv "$bin.tmp" "$bin"
fi

"$bin/goreleaser" check

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed -e 's/goos: \[.*\]/goos: [linux]/' -e 's/goarch: \[.*\]/goarch: [amd64]/' \
	-e '/^    ignore:/,/^        goarch: "386"/d' .goreleaser.yml >"$work/goreleaser.yml"
"$bin/goreleaser" release --snapshot --clean --skip=sign,publish --config "$work/goreleaser.yml" >"$work/log" 2>&1 || {
	cat "$work/log" >&2
	exit 1
}

version="$(python3 -c 'import json; print(json.load(open("dist/metadata.json"))["version"])')"
expect=(
	"dist/terraform-provider-gpu_${version}_linux_amd64.zip"
	"dist/terraform-provider-gpu_${version}_SHA256SUMS"
)
for f in "${expect[@]}"; do
	[[ -f "$f" ]] || { echo "release check: missing $f" >&2; ls dist >&2; exit 1; }
done
# The registry manifest is checksummed under its release name (it is
# uploaded only when publishing).
grep -q "terraform-provider-gpu_${version}_manifest.json" "dist/terraform-provider-gpu_${version}_SHA256SUMS" ||
	{ echo "release check: the manifest is not in SHA256SUMS" >&2; exit 1; }
# grep without -q reads the whole listing: -q stops at the first match, and
# unzip, killed by SIGPIPE while still writing, fails the pipe (pipefail).
unzip -Z1 "dist/terraform-provider-gpu_${version}_linux_amd64.zip" | grep -x "terraform-provider-gpu_v${version}" >/dev/null ||
	{ echo "release check: the zip lacks terraform-provider-gpu_v${version}" >&2; exit 1; }
echo "release check passed: ${expect[*]}"
