#!/usr/bin/env bash
# The Python peer's HTTP benchmark: the peer's half of a sitting of Benchmarks/peer.sh.
#
#   ./Benchmarks/peer/run.sh            (from any directory)
#
# Measures Benchmarks/peer/app.py (Starlette on uvicorn, asyncpg; POST /v1/assertions verified and committed as
# AttestGuard does, with a constant verdict) under the load Benchmarks/http.sh puts on AttestGuard, counted the same
# way: the same wrk script (Benchmarks/http/bench.lua) with `-t C -c C` (one connection per thread, so each
# connection sends its key's bodies one after another, in counter order), the same warm-ups and durations, a
# throw-away PostgreSQL from scripts/postgres-start.sh (the fast test profile: fsync, synchronous_commit and
# full_page_writes off), and the CPU of the server, PostgreSQL, wrk and the whole machine around each measured run
# (the functions of Benchmarks/http/common.sh). The runs, in http.sh's order: GET /healthz warm-up and measured;
# POST /v1/assertions warm-up and measured (continuing after the bodies the warm-up sent); then with PostgreSQL
# switched to production durability (fsync, synchronous_commit, full_page_writes on, reloaded in place) an
# assertion warm-up and the measured durable run. Prints a table in http.sh's columns.
#
# Steps: the peer's virtualenv (Benchmarks/peer/venv.sh: .build-peer/venv, created from requirements.txt
# when missing); wrk (Debian package, installed when missing); PostgreSQL; prep.py (database `peer`, schema.sql, one
# software App Attest key per connection, PER_KEY challenges and single-use assertion bodies per key, VACUUM
# ANALYZE); `uvicorn app:app` with PEER_WORKERS worker processes, uvloop and httptools, an asyncpg pool per worker;
# wrk. Everything it started is stopped on exit, also on failure or Ctrl-C.
#
# Environment (defaults in brackets; the HTTP_BENCH_ names are http.sh's and mean the same):
#   HTTP_BENCH_CONNECTIONS [16]       connections = wrk threads = keys
#   HTTP_BENCH_DURATION [20]          seconds per measured run
#   HTTP_BENCH_WARMUP [3]             seconds of /healthz warm-up
#   HTTP_BENCH_ASSERTION_WARMUP [2]   seconds of assertion warm-up (not measured), before each assertion run
#   HTTP_BENCH_PER_KEY [10000]        assertion bodies per key; must outlast the four assertion runs (the run fails
#                                     with "exhausted" otherwise)
#   HTTP_BENCH_POOL [16]              PostgreSQL connections in all, split over the workers (AttestGuard's poolSize)
#   HTTP_BENCH_PG_OPTIONS []          more PostgreSQL server options
#   HTTP_BENCH_KEEP [0]               1: keep the work folder (server and PostgreSQL logs, wrk outputs and RESULT lines,
#                                     CPU seconds, bodies, and the assertion runs' NAME.samples)
#   PEER_WORKERS [nproc]              uvicorn worker processes (one per core)
#   PEER_POOL_SIZE [POOL / WORKERS]   asyncpg connections per worker
#   PEER_PYTHON                       a python with the packages of requirements.txt, instead of the virtualenv's
# Exit status: 0 only if every measured request was answered 200, no socket errors, no connection ran out of bodies.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ beside app.py and prep.py in the working tree

peer="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
here="$(cd "$peer/.." && pwd)"
root="$(cd "$here/.." && pwd)"
connections="${HTTP_BENCH_CONNECTIONS:-16}"
duration="${HTTP_BENCH_DURATION:-20}"
warmup="${HTTP_BENCH_WARMUP:-3}"
assertion_warmup="${HTTP_BENCH_ASSERTION_WARMUP:-2}"
per_key="${HTTP_BENCH_PER_KEY:-10000}"
pool="${HTTP_BENCH_POOL:-16}"
workers="${PEER_WORKERS:-$(nproc)}"
worker_pool="${PEER_POOL_SIZE:-$(((pool + workers - 1) / workers))}"
app_id="ABCDE12345.com.example.bench"
lua="$here/http/bench.lua"
started=$SECONDS
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"

# shellcheck source-path=SCRIPTDIR source=../http/common.sh
. "$here/http/common.sh"
bench_require_tools
python="${PEER_PYTHON:-$("$peer/venv.sh")}"

# ---- everything below is cleaned up by the trap (bench_cleanup) ----
bench_begin attestguard-peer-bench
bench_start_postgres

echo "== preparing $connections keys x $per_key assertions (prep.py, straight into the database) =="
prep_started=$SECONDS
run_child "$python" "$peer/prep.py" --url "$pg_url" --keys "$connections" --per-key "$per_key" --out "$work/bodies" \
    --app-id "$app_id" >"$work/peer-url"
peer_url="$(cat "$work/peer-url")"
echo "prepared in $((SECONDS - prep_started)) s"
peer_psql() { "$pg_bin/psql" "$peer_url" -X -q -t -A -v ON_ERROR_STOP=1 -c "$1"; }

port="$(bench_free_port)"
url="http://127.0.0.1:$port"
BENCH_API_KEY="bench-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
export BENCH_API_KEY

echo "== server: uvicorn, $workers workers, uvloop + httptools, asyncpg pool of $worker_pool per worker =="
PEER_DATABASE_URL="$peer_url" PEER_API_KEY="$BENCH_API_KEY" PEER_APP_ID="$app_id" PEER_POOL_SIZE="$worker_pool" \
    "$python" -m uvicorn app:app --app-dir "$peer" --host 127.0.0.1 --port "$port" --workers "$workers" \
    --loop uvloop --http httptools --no-access-log --log-level warning >"$work/server.out" 2>"$work/server.err" &
supervisor=$!
server_pids="$supervisor"
server_names="server"
bench_await_200 "$url/healthz" "$supervisor" 30 "the server"
# The workers: uvicorn's supervisor spawns them (multiprocessing spawn_main); each opens its pool in its lifespan
# before it accepts, so every worker is ready once all of them listen.
descendants() { local child; for child in $(ps -o pid= --ppid "$1"); do echo "$child"; descendants "$child"; done; }
worker_pids=""
for _ in $(seq 1 300); do
    worker_pids="$(for pid in $(descendants "$supervisor"); do
        grep -qa spawn_main "/proc/$pid/cmdline" 2>/dev/null && printf '%s ' "$pid"; done)"
    [ "$(wc -w <<<"$worker_pids")" -ge "$workers" ] && break
    sleep 0.1
done
[ "$(wc -w <<<"$worker_pids")" -ge "$workers" ] || { echo "uvicorn started $(wc -w <<<"$worker_pids") of $workers workers" >&2; exit 1; }
sleep 2 # every worker's pool open
# The cleanup trap stops the supervisor and the workers together, each within 10 s.
server_pids="$supervisor $worker_pids"
echo "server pid $supervisor, workers $worker_pids"

# The server's CPU: uvicorn's supervisor (with its exited children) and every live descendant (the workers). It
# replaces common.sh's server_cpu, which counts AttestGuard's single process.
server_cpu() {
    local total child
    total=$(proc_stat "$supervisor" | awk '{ print $12 + $13 + $14 + $15 } END { if (NR == 0) print 0 }')
    for child in $(descendants "$supervisor"); do total=$((total + $(proc_ticks "$child"))); done
    awk -v t="$total" -v hz="$ticks_per_second" 'BEGIN { printf "%.3f\n", t / hz }'
}
consumed_assertions() { peer_psql "SELECT count(*) FROM challenges WHERE purpose = 'assertion' AND consumed_at IS NOT NULL"; }

# connection_split NAME DELAY: how many of wrk's connections each worker holds, DELAY seconds into run NAME (the
# kernel hands the shared socket's connections to the workers; an uneven split loads one core more than the other).
connection_split() {
    sleep "$2"
    ss -tnpH state established "( sport = :$port )" 2>/dev/null | grep -o 'pid=[0-9]*' | sort | uniq -c |
        awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }' >"$work/$1.split" || true
}

# run_wrk NAME SECONDS MODE [ARGS...]: as http.sh's: wrk output in $work/NAME.out, the RESULT line in
# $work/NAME.result, CPU seconds (wrk, server, PostgreSQL, machine, steal) in $work/NAME.cpu.
run_wrk() {
    local name=$1 seconds=$2 mode=$3 split_pid
    shift 3
    connection_split "$name" "$(awk -v s="$seconds" 'BEGIN { print s / 2 }')" &
    split_pid=$!
    cpu_mark "$name"
    run_child wrk -t "$connections" -c "$connections" -d "${seconds}s" --latency --timeout 10s -s "$lua" "$url" \
        -- "$mode" "$work/$name.result" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
        { cat "$work/$name.err" >&2; echo "wrk failed ($name)" >&2; exit 1; }
    cpu_record "$name"
    wait "$split_pid" 2>/dev/null || true
    [ -s "$work/$name.result" ] || { cat "$work/$name.out" "$work/$name.err" >&2; echo "wrk wrote no result ($name)" >&2; exit 1; }
    bench_servers_alive "$name"
}

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "== GET /healthz: ${warmup} s warm-up, ${duration} s measured =="
run_wrk healthz-warmup "$warmup" healthz
run_wrk healthz "$duration" healthz
cat "$work/healthz.out"

echo "== POST /v1/assertions: ${assertion_warmup} s warm-up, ${duration} s measured =="
run_wrk assertions-warmup "$assertion_warmup" assertions "$work/bodies" - "$work/offsets-warmup"
sleep 0.5 # let the warm-up's last in-flight requests commit
consumed_before=$(consumed_assertions)
# Timed on bench.lua's own clock with every request's sample kept, as http.sh times its assertion rows, so that the
# two sides' latencies come from the same clock.
BENCH_SAMPLES_FILE="$work/assertions.samples" run_wrk assertions "$duration" assertions "$work/bodies" "$work/offsets-warmup" "$work/offsets"
sleep 0.5 # let the last in-flight requests commit
consumed_after=$(consumed_assertions)
cat "$work/assertions.out"

echo "== POST /v1/assertions with fsync=on, synchronous_commit=on, full_page_writes=on: ${assertion_warmup} s warm-up, ${duration} s measured =="
durable_postgres
run_wrk assertions-durable-warmup "$assertion_warmup" assertions "$work/bodies" "$work/offsets" "$work/offsets-durable-warmup"
BENCH_SAMPLES_FILE="$work/assertions-durable.samples" run_wrk assertions-durable "$duration" assertions "$work/bodies" \
    "$work/offsets-durable-warmup" "$work/offsets-durable"
cat "$work/assertions-durable.out"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---- report ----
echo
echo "== Python peer HTTP benchmark =="
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo); load average $load_start at start, $load_before before measuring, $load_after after"
echo "software: $("$python" --version); $("$python" -c 'import importlib.metadata as m; print(", ".join(p + " " + m.version(p) for p in ("uvicorn", "uvloop", "httptools", "starlette", "asyncpg", "cryptography", "cbor2", "orjson")))'); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-3); PostgreSQL $pg_version"
echo "server: uvicorn app:app (Benchmarks/peer/app.py), $workers workers, uvloop + httptools, asyncpg pool of $worker_pool per worker, $url (loopback, no TLS)"
echo "store: PostgreSQL (scripts/postgres-start.sh: fsync=off, synchronous_commit=off, full_page_writes=off; the durable row: all three on), database peer"
echo "load: wrk -t $connections -c $connections -d ${duration}s --latency --timeout 10s -s Benchmarks/http/bench.lua $url -- MODE ..."
echo "assertions: $connections software keys (one per connection), each with $per_key prepared single-use bodies sent in counter order"
echo
echo "| route                                    |     req/s |  p50 ms |  p90 ms |  p99 ms |   max ms |  requests | non-200 | sock.err | cores: server/pg/wrk/other/steal  | CPU µs/req s/pg |"
echo "|------------------------------------------|----------:|--------:|--------:|--------:|---------:|----------:|--------:|---------:|-----------------------------------|-----------------|"
bench_row healthz "GET /healthz"
bench_row assertions "POST /v1/assertions"
bench_row assertions-durable "POST /v1/assertions, durable PostgreSQL"
echo
awk -v a="$(field assertions rps)" -v h="$(field healthz rps)" -v d="$(field assertions-durable rps)" \
    'BEGIN { printf "throughput against /healthz: assertions %.1f%%; durable PostgreSQL against the fast profile: assertions %.0f%%\n", 100 * a / h, 100 * d / a }'
echo "assertions accepted by the store during the measured run (consumed challenges): $((consumed_after - consumed_before)) (wrk counted $(field assertions requests) answered; up to $connections more were in flight at the end)"
all_runs="healthz assertions assertions-durable"
echo "non-200 by status: $(for name in $all_runs; do printf '%s %s; ' "$name" "$(field "$name" statuses)"; done)bodies exhausted: $(field assertions exhausted) $(field assertions-durable exhausted) connections"
echo "wrk connections per worker (count pid=PID, halfway into each run): $(for name in $all_runs; do printf '%s: %s; ' "$name" "$(cat "$work/$name.split" 2>/dev/null)"; done)"
echo "cores: CPU used on average during the measured run by the server (supervisor and workers), PostgreSQL, wrk, all other processes, and stolen by the hypervisor (of $(nproc))"
echo "server log (level warning): $(grep -c . "$work/server.err" || true) lines"
grep -v '^$' "$work/server.err" | cut -c1-200 | sort | uniq -c | sort -rn | head -5 || true
echo "total time: $((SECONDS - started)) s"

bench_exit_valid "$all_runs" "assertions assertions-durable"
