#!/usr/bin/env bash
# Prints the path of the pinned OpenTofu CLI for the tests (make testacc-tofu),
# building it from the Go module proxy into the project's bin/ when missing.
# OpenTofu's go.mod has a replace directive, so `go install module@version`
# refuses it: the module is downloaded and ./cmd/tofu built inside it. A tofu
# on PATH is not used, so every run tests the same pinned version.
set -euo pipefail

PINNED_TOFU=v1.12.6
root="$(cd "$(dirname "$0")/.." && pwd)"
local_bin="$root/bin/tofu-$PINNED_TOFU"

if [[ ! -x "$local_bin/tofu" ]]; then
	echo "building OpenTofu $PINNED_TOFU from the module proxy (several minutes)" >&2
	start=$SECONDS
	# GOWORK=off: a go.work around the checkout must not join the build.
	# GOFLAGS is set, not inherited: -mod=mod would let go rewrite the
	# read-only module, -buildvcs would look for a repository the module
	# cache does not have.
	export GOWORK=off GOFLAGS=-buildvcs=false
	dir="$(go mod download -json "github.com/opentofu/opentofu@$PINNED_TOFU" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
	if [[ -z "$dir" || ! -d "$dir" ]]; then
		echo "go mod download did not give OpenTofu's module directory" >&2
		exit 1
	fi
	mkdir -p "$local_bin.tmp"
	# The version comes from the module's version/VERSION file; version.dev=no
	# is what OpenTofu's release build (.goreleaser.yaml) sets, without which
	# the binary calls itself 1.12.6-dev. -trimpath keeps the module cache's
	# path out of the binary.
	(cd "$dir" && go build -trimpath -ldflags "-X github.com/opentofu/opentofu/version.dev=no" \
		-o "$local_bin.tmp/tofu" ./cmd/tofu) >&2
	rm -rf "$local_bin"
	mv "$local_bin.tmp" "$local_bin"
	echo "built OpenTofu $PINNED_TOFU in $((SECONDS - start))s" >&2
fi
echo "$local_bin/tofu"
