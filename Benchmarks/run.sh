#!/usr/bin/env bash
# AttestGuard benchmarks: the one command.
#
#   ./Benchmarks/run.sh [AttestBench options...]      (from any directory)
#
# Builds the Benchmarks package in release mode (own build dir: Benchmarks/.build) and runs the benchmark
# binary pinned to one core. The binary interleaves `openssl speed -seconds S ecdsap256` with its own runs
# (same core) and prints the table and the assertion/openssl ratio.
# Environment: BENCH_CPU (core to pin to, default 0), BENCH_SECONDS (per run, default 3),
# BENCH_RUNS (rounds, default 3; the best is reported), SWIFT (default: swift on PATH, else /opt/swift/usr/bin/swift).
# Extra arguments go to the binary, e.g. --breakdown (time each step of the assertion path) or --only assertion,p256.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cpu="${BENCH_CPU:-0}"
seconds="${BENCH_SECONDS:-3}"
runs="${BENCH_RUNS:-3}"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"

echo "== building (release) =="
# shellcheck source=scripts/shipped-build.sh
. "$here/../scripts/shipped-build.sh" # built as the shipped server is; every build of this package is
shipped_build "$swift" -c release --package-path "$here" --product AttestBench 2>&1 | grep -v '^\[' || true
bin="$("$swift" build -c release --package-path "$here" --show-bin-path)/AttestBench"
[[ -x "$bin" ]] || { echo "build failed: $bin is missing" >&2; exit 1; }

pin=()
if command -v taskset >/dev/null 2>&1; then
    pin=(taskset -c "$cpu")
    pinned="pinned to core $cpu (taskset)"
else
    pinned="NOT pinned (taskset not found)"
fi
args=(--seconds "$seconds" --runs "$runs")
if openssl="$(command -v openssl)"; then
    args+=(--openssl "$openssl")
else
    echo "note: openssl not found; no ratio" >&2
fi

echo "== machine =="
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; $pinned"
echo "$("$swift" --version 2>/dev/null | head -1); $(openssl version 2>/dev/null || true)"
echo "== AttestBench =="
exec "${pin[@]}" "$bin" "${args[@]}" "$@"
