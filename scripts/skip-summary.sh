#!/usr/bin/env bash
# Prints, after a test run, every test that skipped because the real upstream
# charts were missing (internal/testcharts appends one line per skip to the
# log named here). Silent when nothing skipped. Never fails: the summary
# informs; GPU_REQUIRE_CHARTS=1 is what turns such skips into failures.
set -uo pipefail
log="${1:?usage: skip-summary.sh <skip log>}"
[[ -s "$log" ]] || exit 0
count=$(sort -u "$log" | wc -l)
echo
echo "=== ${count} test(s) SKIPPED: the real upstream charts were not found ==="
sort -u "$log" | sed 's/^/  /'
echo "Provide them with GPU_CHARTS_DIR=<folder> (values files at its top, whole charts under src/);"
echo "see docs/design/charts.md. CI sets GPU_REQUIRE_CHARTS=1, which makes these skips failures."
