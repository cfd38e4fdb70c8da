#!/usr/bin/env bash
# AttestGuard scaling benchmark: the one command.
#
#   ./Benchmarks/scaling.sh            (from any directory)
#
# Measures the throughput of one, two and three `attestguard serve` processes (release build, simulator mode, the
# shipped Rules/) sharing ONE PostgreSQL, all on this machine, over loopback with wrk:
#   - POST /v1/assertions with VALID assertions (every one accepted exactly once: 200), closed loop;
#   - POST /v1/score for attested keys with redeemed risk metrics, closed loop.
# For each process count it prints the total req/s, p50 and p99 latency (all requests of the run, merged over the wrk
# processes), CPU per request of the servers together and of PostgreSQL, the PostgreSQL connections open and active
# (pg_stat_activity, sampled every second), the write transactions and WAL bytes per request, and the ratio to the
# first process count's figure of the same run. Client, servers and PostgreSQL share this machine's cores (the
# header prints `nproc` and the CPU model): it says how far more processes help on one box, not what a cluster does.
#
# Steps: build `attestguard` and `HTTPBenchPrep` (release, Benchmarks/.build) unless HTTP_BENCH_NO_BUILD=1; start a
# throw-away PostgreSQL (scripts/postgres-start.sh: fsync, synchronous_commit and full_page_writes off) and server 1
# (autoMigrate: true); prepare through it, as Benchmarks/http.sh does, one attested key per connection with PER_KEY
# assertion bodies in counter order, and SCORE_KEYS keys for the score bodies with redeemed receipts; then for each
# process count N (ascending): start servers until N run (each on its own free port with its own pool of POOL
# connections and autoMigrate: false, as in production), split the CONNECTIONS connections and their keys evenly
# over the N servers (as even as the division allows; one wrk per server, `-t c -c c`, all started together), and
# run an assertion warm-up, the measured assertions, a score warm-up, the measured score run. A key's bodies go to one
# server within a run and continue in counter order across runs (any server accepts any key: they share
# PostgreSQL); each server's wrk sends its own slice of the score bodies. Every server, wrk and PostgreSQL started is
# stopped on exit, also on failure or Ctrl-C. The shared pieces are in Benchmarks/http/common.sh.
#
# PostgreSQL connections: every server holds a warm pool of POOL connections (database.poolSize, minimumConnections
# defaults to it), so N processes hold N x POOL connections, plus this script's psql.
#
# Environment (defaults in brackets; the names are http.sh's where they mean the same):
#   HTTP_BENCH_PROCESSES ["1 2 3"]  process counts to measure, ascending; ratios are to the first
#   HTTP_BENCH_CONNECTIONS [18]     connections in all (= wrk threads = simulated keys), split over the servers
#   HTTP_BENCH_DURATION [10]        seconds per measured run
#   HTTP_BENCH_ASSERTION_WARMUP [2] seconds of warm-up before each measured run (not measured)
#   HTTP_BENCH_PER_KEY [7000]       assertion bodies prepared per key; must outlast every assertion run (a warm-up and
#                                   a measured run per process count; the run fails with "exhausted" otherwise)
#   HTTP_BENCH_SCORE_KEYS [1000]    attested keys the score bodies name
#   HTTP_BENCH_POOL [16]            each server's PostgreSQL pool size (database.poolSize)
#   HTTP_BENCH_DURABLE [0]          1: switch PostgreSQL to production durability (fsync, synchronous_commit and
#                                   full_page_writes on, reloaded in place) before measuring
#   HTTP_BENCH_PG_OPTIONS []        more PostgreSQL server options
#   HTTP_BENCH_NO_BUILD [0]         1: use the binaries already in Benchmarks/.build/release
#   HTTP_BENCH_KEEP [0]             1: keep the work folder (configs, server and PostgreSQL logs, wrk outputs, samples)
#   SWIFT                           swift binary (default: swift on PATH, else /opt/swift/usr/bin/swift)
# Exit status: 0 only if every measured request was answered 200, no socket errors, no connection ran out of bodies.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
processes_list="${HTTP_BENCH_PROCESSES:-1 2 3}"
connections="${HTTP_BENCH_CONNECTIONS:-18}"
duration="${HTTP_BENCH_DURATION:-10}"
warmup="${HTTP_BENCH_ASSERTION_WARMUP:-2}"
per_key="${HTTP_BENCH_PER_KEY:-7000}"
pool="${HTTP_BENCH_POOL:-16}"
score_keys="${HTTP_BENCH_SCORE_KEYS:-1000}"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
seed="attestguard-bench"
app_id="ABCDE12345.com.example.bench"
lua="$here/http/bench.lua"
started=$SECONDS
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"

previous=0
for count in $processes_list; do
    case "$count" in '' | *[!0-9]*) echo "HTTP_BENCH_PROCESSES: $count is not a number" >&2; exit 2 ;; esac
    [ "$count" -gt "$previous" ] || { echo "HTTP_BENCH_PROCESSES must ascend from 1 or more: $processes_list" >&2; exit 2; }
    [ "$count" -le "$connections" ] || { echo "$count processes need at least as many connections (HTTP_BENCH_CONNECTIONS $connections)" >&2; exit 2; }
    previous=$count
done
max_processes=$previous

# shellcheck source-path=SCRIPTDIR source=http/common.sh
. "$here/http/common.sh"
bench_require_tools
bench_binaries

# ---- everything below is cleaned up by the trap (bench_cleanup) ----
bench_begin attestguard-scaling-bench
bench_start_postgres

BENCH_API_KEY="bench-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
export BENCH_API_KEY
urls=() # urls[k-1]: server k's
# start_next_server: server k = ${#urls[@]} + 1 on a free port; only the first migrates (autoMigrate), as a fleet
# sharing one database runs `attestguard migrate` once and starts its servers with autoMigrate: false.
start_next_server() {
    local k=$((${#urls[@]} + 1)) port migrate=false
    port="$(bench_free_port)"
    [ "$k" = 1 ] && migrate=true
    bench_write_config "$work/config-$k.yaml" "$port" "$pool" "$migrate"
    bench_start_server "server-$k" "$work/config-$k.yaml" "http://127.0.0.1:$port"
    urls+=("http://127.0.0.1:$port")
}

echo "== server 1 =="
start_next_server
echo "== preparing $connections keys x $per_key assertions and $score_keys score keys (through server 1) =="
bench_prepare "${urls[0]}" "$connections" "$per_key" "$score_keys"
: >"$work/offsets-start" # no body sent yet

# share J N: connections (and keys) of server J (0-based) of N: as even as the division allows.
share() { echo $((connections / $2 + ($1 < connections % $2 ? 1 : 0))); }
# first_key J N: the first key server J of N sends.
first_key() {
    local j=0 first=0
    while [ "$j" -lt "$1" ]; do first=$((first + $(share "$j" "$2"))); j=$((j + 1)); done
    echo "$first"
}
# PostgreSQL's next transaction id (advanced only by transactions that write) and WAL position.
pg_position() { psql_ "SELECT pg_snapshot_xmax(pg_current_snapshot()), pg_current_wal_lsn()"; }
pg_connections() {
    psql_ "SELECT count(*), count(*) FILTER (WHERE state = 'active') FROM pg_stat_activity
           WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
}

# run_group NAME N SECONDS MODE [OFFSETS_IN]: one wrk per server (server j gets its share of the connections, keys
# and score bodies), started together; per wrk the RESULT line in $work/NAME-j.result and every request's start and
# latency in NAME-j.samples; CPU in NAME.cpu (cpu_mark/cpu_record); for a measured run (NAME not starting with
# "warmup-"), the connections sampled every second in NAME.connections and transaction ids and WAL before and after
# in NAME.pg. The assertion runs write how far every key got to $work/NAME.offsets.
run_group() {
    local name=$1 n=$2 seconds=$3 mode=$4 offsets_in=${5:-} j c first measured=1
    case "$name" in warmup-*) measured=0 ;; esac
    [ "$measured" = 1 ] && pg_position >"$work/$name.pg"
    cpu_mark "$name"
    child_pids=""
    for j in $(seq 0 $((n - 1))); do
        c=$(share "$j" "$n")
        first=$(first_key "$j" "$n")
        if [ "$mode" = assertions ]; then
            BENCH_FIRST_KEY=$first BENCH_SAMPLES_FILE="$work/$name-$j.samples" \
                wrk -t "$c" -c "$c" -d "${seconds}s" --latency --timeout 10s -s "$lua" "${urls[$j]}" \
                -- assertions "$work/$name-$j.result" "$work/bodies" "$offsets_in" "$work/$name-$j.offsets" \
                >"$work/$name-$j.out" 2>"$work/$name-$j.err" &
        else
            awk -v n="$n" -v j="$j" 'NR % n == j' "$work/bodies/score.txt" >"$work/score-$j-of-$n.txt"
            BENCH_SAMPLES_FILE="$work/$name-$j.samples" \
                wrk -t "$c" -c "$c" -d "${seconds}s" --latency --timeout 10s -s "$lua" "${urls[$j]}" \
                -- score "$work/$name-$j.result" "$work/score-$j-of-$n.txt" - "$c" \
                >"$work/$name-$j.out" 2>"$work/$name-$j.err" &
        fi
        child_pids="$child_pids $!"
    done
    if [ "$measured" = 1 ]; then
        : >"$work/$name.connections"
        for _ in $(seq 1 $((seconds - 1))); do
            sleep 1 & wait $! # a trapped signal interrupts `wait`, not a foreground sleep
            pg_connections >>"$work/$name.connections"
        done
    fi
    local failed=0 pid
    for pid in $child_pids; do wait "$pid" || failed=1; done
    child_pids=""
    cpu_record "$name"
    [ "$measured" = 1 ] && pg_position >>"$work/$name.pg"
    for j in $(seq 0 $((n - 1))); do
        if [ "$failed" = 1 ] || [ ! -s "$work/$name-$j.result" ]; then
            cat "$work/$name-$j.out" "$work/$name-$j.err" >&2
            echo "wrk failed or wrote no result ($name, server $((j + 1)))" >&2
            exit 1
        fi
    done
    if [ "$mode" = assertions ]; then
        for j in $(seq 0 $((n - 1))); do cat "$work/$name-$j.offsets"; done >"$work/$name.offsets"
    fi
    bench_servers_alive "$name"
}

# summarize NAME N: one line of totals over the N wrk processes in $work/NAME.sum:
# requests rps p50_ms p99_ms non200 socket_errors exhausted conns_max active_mean xacts wal_bytes
summarize() {
    local name=$1 n=$2 j requests=0 rps=0 non200=0 errors=0 exhausted=0
    for j in $(seq 0 $((n - 1))); do
        requests=$((requests + $(field "$name-$j" requests)))
        rps=$(awk -v a="$rps" -v b="$(field "$name-$j" rps)" 'BEGIN { printf "%.1f", a + b }')
        non200=$((non200 + $(field "$name-$j" non200)))
        errors=$((errors + $(field "$name-$j" socket_errors)))
        exhausted=$((exhausted + $(field "$name-$j" exhausted)))
    done
    # Percentiles over every request of the run (nearest rank), from the merged samples of all wrk processes.
    local percentiles
    percentiles=$(for j in $(seq 0 $((n - 1))); do cat "$work/$name-$j.samples"; done | awk 'NF == 2 { print $2 }' | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) { print "0 0"; exit }
             i50 = int(NR * 0.50); if (i50 < NR * 0.50) i50++; i99 = int(NR * 0.99); if (i99 < NR * 0.99) i99++
             printf "%.3f %.3f\n", v[i50], v[i99] }')
    local connections_seen pg_delta
    connections_seen=$(awk -F'|' '{ if ($1 > max) max = $1; active += $2 } END { printf "%d %.1f\n", max, (NR ? active / NR : 0) }' "$work/$name.connections")
    # NAME.pg: "xid|lsn" before and after; an LSN is two hexadecimal halves, "HIGH/LOW".
    local xid0 lsn0 xid1 lsn1
    IFS='|' read -r xid0 lsn0 < <(sed -n 1p "$work/$name.pg")
    IFS='|' read -r xid1 lsn1 < <(sed -n 2p "$work/$name.pg")
    pg_delta="$((xid1 - xid0)) $(( (16#${lsn1%/*} - 16#${lsn0%/*}) * 4294967296 + 16#${lsn1#*/} - 16#${lsn0#*/} ))"
    echo "$requests $rps $percentiles $non200 $errors $exhausted $connections_seen $pg_delta" >"$work/$name.sum"
}
sum_field() { # NAME INDEX (1-based, as in the summarize comment)
    cut -d' ' -f"$2" "$work/$1.sum"
}

store_profile="fsync=off, synchronous_commit=off, full_page_writes=off (scripts/postgres-start.sh's fast test profile)"
if [ "${HTTP_BENCH_DURABLE:-0}" = 1 ]; then
    echo "== PostgreSQL: fsync=on, synchronous_commit=on, full_page_writes=on =="
    durable_postgres
    store_profile="fsync=on, synchronous_commit=on, full_page_writes=on (production durability, HTTP_BENCH_DURABLE=1)"
fi
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
offsets="$work/offsets-start"
measured_names=""
for n in $processes_list; do
    while [ "${#urls[@]}" -lt "$n" ]; do
        echo "== server $((${#urls[@]} + 1)) =="
        start_next_server
    done
    echo "== $n process(es): POST /v1/assertions ${warmup} s warm-up, ${duration} s measured; POST /v1/score the same; connections per server: $(for j in $(seq 0 $((n - 1))); do printf '%s ' "$(share "$j" "$n")"; done)=="
    run_group "warmup-assertions-$n" "$n" "$warmup" assertions "$offsets"
    run_group "assertions-$n" "$n" "$duration" assertions "$work/warmup-assertions-$n.offsets"
    offsets="$work/assertions-$n.offsets"
    summarize "assertions-$n" "$n"
    echo "assertions: $(sum_field "assertions-$n" 2) req/s, p99 $(sum_field "assertions-$n" 4) ms"
    run_group "warmup-score-$n" "$n" "$warmup" score
    run_group "score-$n" "$n" "$duration" score
    summarize "score-$n" "$n"
    echo "score: $(sum_field "score-$n" 2) req/s, p99 $(sum_field "score-$n" 4) ms"
    measured_names="$measured_names assertions-$n score-$n"
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---- report ----
first_count=${processes_list%% *}
first_count=$(echo "$first_count" | tr -d ' ')
row() { # ROUTE N
    local name="$1-$2" cpu per_request base
    read -r wrk_cpu server_cpu_s postgres_cpu_s machine_cpu_s steal_s <"$work/$name.cpu"
    local seconds requests
    seconds=$(field "$name-0" duration_s)
    requests=$(sum_field "$name" 1)
    cpu=$(awk -v d="$seconds" -v w="$wrk_cpu" -v s="$server_cpu_s" -v p="$postgres_cpu_s" -v m="$machine_cpu_s" -v st="$steal_s" \
        'BEGIN { o = (m - s - p - w - st) / d; if (o < 0) o = 0; printf "%.2f / %.2f / %.2f / %.2f / %.2f", s / d, p / d, w / d, o, st / d }')
    per_request=$(awk -v n="$requests" -v s="$server_cpu_s" -v p="$postgres_cpu_s" \
        'BEGIN { if (n > 0) printf "%.0f / %.0f", s * 1e6 / n, p * 1e6 / n; else print "-" }')
    base=$(sum_field "$1-$first_count" 2)
    printf '| %9s | %-19s | %8.0f | %6.2fx | %6.2f | %7.2f | %8d | %7d | %8d | %-32s | %-15s | %5d / %5.1f | %8.2f | %9.0f |\n' \
        "$2" "$3" "$(sum_field "$name" 2)" "$(awk -v a="$(sum_field "$name" 2)" -v b="$base" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
        "$(sum_field "$name" 3)" "$(sum_field "$name" 4)" "$requests" "$(sum_field "$name" 5)" "$(sum_field "$name" 6)" \
        "$cpu" "$per_request" "$(sum_field "$name" 8)" "$(sum_field "$name" 9)" \
        "$(awk -v x="$(sum_field "$name" 10)" -v n="$requests" 'BEGIN { print (n > 0 ? x / n : 0) }')" \
        "$(awk -v w="$(sum_field "$name" 11)" -v n="$requests" 'BEGIN { print (n > 0 ? w / n : 0) }')"
}
echo
echo "== AttestGuard scaling benchmark: server processes on ONE PostgreSQL, all on this machine =="
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), nproc $(nproc), $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo); load average $load_start at start, $load_before before measuring, $load_after after"
echo "         client (wrk), every server and PostgreSQL share these $(nproc) cores (no pinning): not a cluster figure"
echo "software: $("$swift" --version 2>/dev/null | head -1); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-3)"
echo "servers: attestguard serve (release, $server_bin), simulator mode, logLevel warning, loopback, no TLS; database.poolSize $pool each (a warm pool: N processes hold N x $pool connections)"
echo "store: PostgreSQL $pg_version, $store_profile"
echo "load: $connections connections in all, split over the servers (one wrk per server, -t c -c c, started together), closed loop; ${duration} s measured after ${warmup} s warm-up, per route and process count"
echo "assertions: $connections simulated keys (one per connection, each sent to one server per run), $per_key prepared single-use bodies each, in counter order"
echo
echo "| processes | route               |    req/s | × first |  p50 ms |  p99 ms | requests | non-200 | sock.err | cores: server/pg/wrk/other/steal | CPU µs/req s/pg | PG conns / active | xacts/req | WAL B/req |"
echo "|----------:|---------------------|---------:|--------:|--------:|--------:|---------:|--------:|---------:|----------------------------------|-----------------|-------------------|----------:|----------:|"
for n in $processes_list; do row assertions "$n" "POST /v1/assertions"; done
for n in $processes_list; do row score "$n" "POST /v1/score"; done
echo
echo "× first: total req/s against $first_count process(es) in this run. p50/p99: every request of the run (merged over the wrk processes, timed by bench.lua)."
echo "cores: CPU used on average during the measured run by the servers together, PostgreSQL, wrk, all other processes, and stolen by the hypervisor (of $(nproc))"
echo "PG conns / active: client connections open (the most seen) and active (the mean) in pg_stat_activity, sampled every second during the run, this script's own excluded"
echo "xacts/req: PostgreSQL transactions that wrote (transaction ids assigned, including the write-behind flushes of velocity and the decision log) per answered request; WAL B/req: pg_current_wal_lsn() advance per answered request"
# statuses NAME: the non-200 statuses of every wrk of run NAME.
statuses() { local j; for j in $(seq 0 $((${1##*-} - 1))); do printf '%s ' "$(field "$1-$j" statuses)"; done; }
echo "non-200 by status: $(for name in $measured_names; do printf '%s %s; ' "$name" "$(statuses "$name")"; done)"
server_errors=0
for k in $(seq 1 "$max_processes"); do server_errors=$((server_errors + $(grep -ciE ' (error|critical) ' "$work/server-$k.err" || true))); done
echo "server logs (level warning): $server_errors lines at error/critical level; warnings other than the simulator banner:"
cat "$work"/server-*.err | grep -iE ' (error|critical|warning) ' | grep -v 'SIMULATOR MODE' | cut -d' ' -f2- | sort | uniq -c | sort -rn | head -5 || true
echo "total time: $((SECONDS - started)) s"

failed=0
for name in $measured_names; do
    if [ "$(sum_field "$name" 5)" != 0 ] || [ "$(sum_field "$name" 6)" != 0 ]; then
        first_error=$(for j in $(seq 0 $((${name##*-} - 1))); do field "$name-$j" first_error; done | grep -m1 . || true)
        echo "INVALID: $name had $(sum_field "$name" 5) non-200 responses, $(sum_field "$name" 6) socket errors; first: $first_error" >&2
        failed=1
    fi
    if [ "$(sum_field "$name" 7)" != 0 ]; then
        echo "INVALID: $(sum_field "$name" 7) connections ran out of assertion bodies in $name: raise HTTP_BENCH_PER_KEY (now $per_key)" >&2
        failed=1
    fi
done
exit "$failed"
