#!/usr/bin/env bash
# Prints the path of a terraform CLI for tests and the demo. Uses the one on
# PATH when present; otherwise builds the pinned version from the Go module
# proxy into the project's bin/ (1.5.7 is the last release `go install` takes).
set -euo pipefail

PINNED_TERRAFORM=v1.5.7
root="$(cd "$(dirname "$0")/.." && pwd)"
local_bin="$root/bin/terraform-$PINNED_TERRAFORM"

if [[ "${TF_ACC_TERRAFORM_PATH:-}" != "" && -x "${TF_ACC_TERRAFORM_PATH}" ]]; then
	echo "$TF_ACC_TERRAFORM_PATH"
	exit 0
fi
if [[ "${GPU_FORCE_PINNED_TERRAFORM:-}" == "" ]] && command -v terraform >/dev/null 2>&1; then
	command -v terraform
	exit 0
fi
if [[ ! -x "$local_bin/terraform" ]]; then
	echo "terraform not on PATH: building $PINNED_TERRAFORM with go install (about a minute)" >&2
	mkdir -p "$local_bin.tmp"
	GOBIN="$local_bin.tmp" go install "github.com/hashicorp/terraform@$PINNED_TERRAFORM" >&2
	rm -rf "$local_bin"
	mv "$local_bin.tmp" "$local_bin"
fi
echo "$local_bin/terraform"
