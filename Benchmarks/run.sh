#!/usr/bin/env bash
# AttestGuard benchmarks: the one command.
#
#   ./Benchmarks/run.sh [AttestBench options...]     (from the repository root, or from anywhere)
#
# Builds the Benchmarks package in release mode (its own build dir, Benchmarks/.build), measures
# openssl's raw P-256 verify rate, then runs the benchmarks pinned to one core and prints the table.
# Environment: BENCH_CPU (core to pin to, default 0), BENCH_SECONDS (per run, default 3),
# BENCH_RUNS (default 3; best is reported), SWIFT (swift binary; default: swift on PATH or /opt/swift/usr/bin/swift).
# Extra arguments go to the benchmark binary (e.g. --breakdown, --only assertion,p256).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cpu="${BENCH_CPU:-0}"
seconds="${BENCH_SECONDS:-3}"
runs="${BENCH_RUNS:-3}"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"

pin=()
if command -v taskset >/dev/null 2>&1; then
    pin=(taskset -c "$cpu")
else
    echo "note: taskset not found; not pinning to a core" >&2
fi

echo "== building (release) =="
"$swift" build -c release --package-path "$here" --product AttestBench 2>&1 | grep -v '^\[' || true
bin="$("$swift" build -c release --package-path "$here" --show-bin-path)/AttestBench"
[[ -x "$bin" ]] || { echo "build failed: $bin missing" >&2; exit 1; }

echo "== machine =="
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//') ($(nproc) cores), pinned to core ${pin:+$cpu}"
echo "$(openssl version 2>/dev/null || echo 'openssl: not found'); $("$swift" --version 2>/dev/null | head -1)"
echo "load before: $(uptime | sed 's/.*load average/load average/')"

# openssl's raw P-256 verify rate: best of $runs runs of `openssl speed -seconds $seconds ecdsap256`
# (the verify/s column of the "256 bits ecdsa (nistp256)" line).
openssl_best=""
if command -v openssl >/dev/null 2>&1; then
    echo "== openssl speed -seconds $seconds ecdsap256 =="
    for _ in $(seq "$runs"); do
        if ! out="$("${pin[@]}" openssl speed -seconds "$seconds" ecdsap256 2>/dev/null)"; then
            # Very old openssl without -seconds: it runs its own fixed duration.
            out="$("${pin[@]}" openssl speed ecdsap256 2>/dev/null)"
        fi
        v="$(awk '/nistp256\)/ { print $NF }' <<<"$out" | tail -1)"
        echo "  openssl verify/s: ${v:-?}"
        if [[ -n "$v" ]] && { [[ -z "$openssl_best" ]] || awk -v a="$v" -v b="$openssl_best" 'BEGIN { exit !(a > b) }'; }; then
            openssl_best="$v"
        fi
    done
fi

echo "== AttestBench =="
args=(--seconds "$seconds" --runs "$runs")
[[ -n "$openssl_best" ]] && args+=(--openssl-verify "$openssl_best")
"${pin[@]}" "$bin" "${args[@]}" "$@"
echo ""
echo "load after: $(uptime | sed 's/.*load average/load average/')"
