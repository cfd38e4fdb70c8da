#!/usr/bin/env bash
# AttestGuard receipt batch benchmark: the one command.
#
#   ./Benchmarks/receipts.sh [--breakdown] [extra ReceiptBench run options...]      (from any directory)
#
# Builds ReceiptBench in release mode (Benchmarks/.build), starts a throw-away PostgreSQL (scripts/postgres-start.sh)
# unless ATTESTGUARD_BENCH_DATABASE_URL names one (its tables are emptied!), prepares N keys due now with ATTEST
# receipts (bulk rows, exactly what registration writes), then runs one unthrottled ReceiptRefreshScheduler.runBatch
# per concurrency against a fake Apple (its own process, loopback HTTP) and prints receipts redeemed per second,
# peak and sampled RSS, and the CPU per receipt of the bench process, the fake and PostgreSQL. Every run checks its
# outcome (report, the fake's counters, SQL: N history rows, N RECEIPTs) and fails otherwise.
#
# Environment:
#   RECEIPT_BENCH_KEYS [100000]        keys in the batch
#   RECEIPT_BENCH_CONCURRENCY ["32"]   space-separated concurrencies, one batch each (e.g. "16 32 64")
#   RECEIPT_BENCH_BREAKDOWN [0]        1 (or the argument --breakdown): also time each phase in isolation
#   RECEIPT_BENCH_OPS [4000]           receipts per phase of the breakdown
#   RECEIPT_BENCH_NO_BUILD [0]         1: use the binary already in Benchmarks/.build/release
#   RECEIPT_BENCH_RUN_WRAPPER          a command put before each `ReceiptBench run` (e.g. "heaptrack -o /tmp/ht"), for profiling
#   ATTESTGUARD_BENCH_DATABASE_URL     use this PostgreSQL instead of starting one (PostgreSQL CPU is then not measured)
#   SWIFT                              swift binary (default: swift on PATH, else /opt/swift/usr/bin/swift)
# Exit status: 0 only if every batch redeemed every key with no failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=scripts/shipped-build.sh
. "$here/../scripts/shipped-build.sh" # built as the shipped server is; every build of this package is
keys="${RECEIPT_BENCH_KEYS:-100000}"
concurrencies="${RECEIPT_BENCH_CONCURRENCY:-32}"
breakdown="${RECEIPT_BENCH_BREAKDOWN:-0}"
ops="${RECEIPT_BENCH_OPS:-4000}"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
run_args=()
for argument in "$@"; do
    if [ "$argument" = --breakdown ]; then breakdown=1; else run_args+=("$argument"); fi
done
started=$SECONDS

bin_dir="$("$swift" build -c release --package-path "$here" --show-bin-path)"
if [ "${RECEIPT_BENCH_NO_BUILD:-0}" != 1 ]; then
    echo "== building ReceiptBench (release, $here/.build) =="
    build_log="$(mktemp /tmp/attestguard-receipt-bench-build.XXXXXX)"
    if ! shipped_build "$swift" -c release --package-path "$here" --product ReceiptBench >"$build_log" 2>&1; then
        cat "$build_log" >&2; rm -f "$build_log"; echo "build of ReceiptBench failed" >&2; exit 1
    fi
    grep -E '^Build (of product|complete)|error:' "$build_log" || true
    rm -f "$build_log"
fi
bench="$bin_dir/ReceiptBench"
[ -x "$bench" ] || { echo "build failed: $bench is missing" >&2; exit 1; }

work="$(mktemp -d /tmp/attestguard-receipt-bench.XXXXXX)"
pg_state=""
child_pid=""
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [ -n "$child_pid" ]; then kill -TERM "$child_pid" 2>/dev/null || true; wait "$child_pid" 2>/dev/null || true; fi
    if [ -z "$pg_state" ] && [ -s "$work/pg-state" ]; then pg_state="$(cat "$work/pg-state")"; fi
    if [ -n "$pg_state" ] && [ -d "$pg_state" ]; then "$root/scripts/postgres-stop.sh" "$pg_state" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# run_child COMMAND...: in the background, so that a trapped signal stops it at once.
run_child() {
    "$@" &
    child_pid=$!
    local status=0
    wait "$child_pid" || status=$?
    child_pid=""
    return "$status"
}

echo "== PostgreSQL =="
pg_args=()
if [ -n "${ATTESTGUARD_BENCH_DATABASE_URL:-}" ]; then
    url="$ATTESTGUARD_BENCH_DATABASE_URL"
    echo "using ATTESTGUARD_BENCH_DATABASE_URL (PostgreSQL CPU not measured)"
    pg_version="(external)"
else
    ATTESTGUARD_PG_STATE_FILE="$work/pg-state" "$root/scripts/postgres-start.sh" >"$work/pg-url" 2>"$work/pg-start.log" ||
        { cat "$work/pg-start.log" >&2; exit 1; }
    pg_state="$(cat "$work/pg-state")"
    url="$(cat "$work/pg-url")"
    pg_version="$("$(cat "$pg_state/pgbin")/postgres" --version | sed 's/^postgres (PostgreSQL) //')"
    pg_args=(--postgres-pid "$(head -1 "$pg_state/data/postmaster.pid")")
    echo "PostgreSQL $pg_version at $url (fsync=off, synchronous_commit=off, full_page_writes=off)"
fi
export ATTESTGUARD_BENCH_DATABASE_URL="$url"

echo "== machine =="
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$("$swift" --version 2>/dev/null | head -1); PostgreSQL $pg_version"

echo "== preparing $keys keys =="
run_child "$bench" prepare --keys "$keys"

: >"$work/results"
for concurrency in $concurrencies; do
    echo
    echo "== batch: $keys keys, concurrency $concurrency (load average before: $(cut -d' ' -f1-3 /proc/loadavg)) =="
    # shellcheck disable=SC2086 # the wrapper is a command line, split on purpose
    run_child ${RECEIPT_BENCH_RUN_WRAPPER:-} "$bench" run --concurrency "$concurrency" "${pg_args[@]}" "${run_args[@]}" | tee "$work/run.out"
    grep '^RESULT ' "$work/run.out" >>"$work/results"
done

if [ "$breakdown" = 1 ]; then
    echo
    echo "== breakdown: $ops receipts per phase =="
    run_child "$bench" breakdown --ops "$ops" "${pg_args[@]}"
fi

echo
echo "== summary ($keys keys, unthrottled, fake Apple over loopback, PostgreSQL) =="
echo "| concurrency | seconds | receipts/s | steady 10-90% /s | peak RSS MiB | RSS at 10/25/50/75/90% MiB | CPU us/receipt bench/fake/pg | cores busy |"
echo "|------------:|--------:|-----------:|-----------------:|-------------:|----------------------------|------------------------------|-----------:|"
sed 's/^RESULT //' "$work/results" | while read -r line; do
    get() { tr ' ' '\n' <<<"$line" | sed -n "s/^$1=//p"; }
    printf '| %11s | %7s | %10s | %16s | %12s | %-26s | %-28s | %10s |\n' "$(get concurrency)" "$(get seconds)" "$(get rate)" \
        "$(get steady)" "$(get peak_rss_mib)" "$(get rss)" "$(get cpu_bench_us) / $(get cpu_fake_us) / $(get cpu_pg_us)" "$(get machine_cores)"
done
best="$(sed 's/.* rate=\([0-9]*\).*/\1/' "$work/results" | sort -n | tail -1)"
if [ "${best:-0}" -ge 1000 ]; then verdict=MET; else verdict="NOT MET"; fi
echo "best: $best receipts/s (goal >= 1000 receipts/s: $verdict); total time $((SECONDS - started)) s"
