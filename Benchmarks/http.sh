#!/usr/bin/env bash
# AttestGuard HTTP benchmark: the one command.
#
#   ./Benchmarks/http.sh            (from any directory)
#
# Measures `attestguard serve` (release build, simulator mode, PostgreSQL store, the shipped Rules/) over loopback
# with wrk at a fixed concurrency, after the idle server (the CPU and wake-ups a second of the server with no request,
# and PostgreSQL's CPU, for HTTP_BENCH_IDLE seconds):
#   - GET /healthz, the HTTP stack's ceiling, and the same route on a bare Hummingbird application (BareHealthz, no
#     middleware) in alternating rounds: the server's CPU per /healthz against that floor (goal: within 1.2x, the
#     median round's ratio);
#   - POST /v1/assertions with VALID assertions (every one accepted exactly once: 200; each carries a verdict):
#     closed loop, then paced at half that rate (HTTP_BENCH_SCORE_LOAD); goal: p99 under 5 ms there;
#   - POST /v1/score for attested keys with redeemed risk metrics: closed loop (the peak rate), then paced at half
#     that rate (HTTP_BENCH_SCORE_LOAD), with latency measured against the schedule (no coordinated omission).
#     Goal: p99 under 2 ms at half the peak rate.
#   - POST /v1/assertions and POST /v1/score closed loop again after PostgreSQL switched to production durability
#     (fsync, synchronous_commit and full_page_writes on, reloaded in place): what the fast test profile hides.
# Prints a table at the end, with CPU per answered request (server and PostgreSQL) for every row, and the WAL the
# assertion and score rows wrote per request (bytes, full-page images) with the checkpoints that fell in them, and for
# each assertion and score run where its slowest 1 % fell in time and its stalls (Benchmarks/http/tail.py).
#
# Steps: build `attestguard` (the main package's product) and `HTTPBenchPrep` in release mode into Benchmarks/.build;
# start a throw-away PostgreSQL (scripts/postgres-start.sh) and the server on a free loopback port; HTTPBenchPrep
# attests one simulated key per connection through the API, issues PER_KEY assertion challenges per key through the API
# and mints the assertions in counter order (request bodies, one file per key), and attests SCORE_KEYS more keys for the
# score bodies; their receipts get a redeemed risk metric (1-3, and a 7-day history) in SQL, as the receipt scheduler
# would store them; VACUUM ANALYZE; the idle server; then wrk (`-t C -c C`: one connection per thread, so each connection sends its key's
# bodies one after another, in counter order): /healthz warm-up on the server and on the bare reference, HEALTHZ_ROUNDS
# rounds of both, assertions warm-up, assertions measured (continuing after the bodies the warm-up sent), assertions
# paced, score warm-up, score closed loop, score paced, then with durable PostgreSQL settings assertions warm-up and
# measured, score warm-up and closed loop. Everything it started is stopped on exit, also on failure or Ctrl-C. The
# pieces it shares with Benchmarks/scaling.sh are in Benchmarks/http/common.sh.
#
# Environment (defaults in brackets):
#   HTTP_BENCH_CONNECTIONS [16]   connections = wrk threads = simulated keys
#   HTTP_BENCH_DURATION [20]      seconds per measured route
#   HTTP_BENCH_WARMUP [3]         seconds of /healthz warm-up
#   HTTP_BENCH_HEALTHZ_ROUNDS [3] rounds of /healthz on the server and on the bare reference, alternating; the
#                                 goal is judged on the median round's ratio
#   HTTP_BENCH_ASSERTION_WARMUP [2]  seconds of assertion warm-up (not measured)
#   HTTP_BENCH_PER_KEY [22000]    assertion bodies prepared per key; must outlast every assertion run (two warm-ups,
#                                 closed loop, paced rounds, durable; the run fails with "exhausted" otherwise)
#   HTTP_BENCH_SCORE_KEYS [1000]  attested keys (users, devices; an IP per 4 keys) the score bodies name
#   HTTP_BENCH_SCORE_LOAD [0.5]   the paced runs' rate (score and assertions) as a fraction of their closed loop's
#   HTTP_BENCH_SCORE_RATE []      a fixed paced rate in req/s instead (to compare two builds at the same load; the
#                                 goal line then judges that rate, not half the peak)
#   HTTP_BENCH_ASSERTION_RATE []  a fixed paced assertion rate in req/s, as HTTP_BENCH_SCORE_RATE
#   HTTP_BENCH_PACED_ROUNDS [3]   paced rounds (score and assertions) of DURATION seconds each; the goal is judged on the median
#                                 round's p99 (on a shared machine one round can be disturbed by the host)
#   HTTP_BENCH_POOL [16]          the server's PostgreSQL pool size (database.poolSize)
#   HTTP_BENCH_IDLE [10]          seconds the idle server is measured after the preparation (0: not at all)
#   HTTP_BENCH_PG_STATEMENTS [0]  1: load pg_stat_statements and print the statements of the measured assertion run,
#                                 of the first paced assertion round and of the closed-loop score run
#                                 (calls, plans, mean and total time), heaviest first; plans are counted with
#                                 HTTP_BENCH_PG_OPTIONS="-c pg_stat_statements.track_planning=on"
#   HTTP_BENCH_PG_OPTIONS []      more PostgreSQL server options, e.g. "-c log_min_duration_statement=2" (with
#                                 HTTP_BENCH_KEEP=1 the work folder keeps PostgreSQL's log as postgres.log)
#   HTTP_BENCH_PROFILE [0]        1: sample the server and PostgreSQL with perf during the closed-loop assertion
#                                 run, the first paced assertion round and the closed-loop score run, and print where
#                                 their CPU time goes (HTTP_BENCH_PROFILE_HZ [999] samples/s); calls: also record
#                                 call graphs (frame pointers) into the kept assertions.perf,
#                                 assertions-paced-1.perf and score.perf. perf records on CLOCK_MONOTONIC, the clock
#                                 of the samples files, so Benchmarks/http/tail.py --perf can line the two up. The
#                                 first paced round then runs beside perf, which its p99 carries
#   HTTP_BENCH_NO_BUILD [0]       1: use the binaries already in Benchmarks/.build/release
#   HTTP_BENCH_KEEP [0]           1: keep the work folder (config, server and PostgreSQL logs, wrk outputs, bodies, and
#                                 NAME.samples: every request's start and latency in ms, for each assertion and score
#                                 run, closed loop, paced and durable; keeping them times every such run on
#                                 bench.lua's own clock rather than wrk's histogram)
#   SWIFT                         swift binary (default: swift on PATH, else /opt/swift/usr/bin/swift)
# Exit status: 0 only if every measured request was answered 200, no socket errors, no connection ran out of bodies.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
connections="${HTTP_BENCH_CONNECTIONS:-16}"
duration="${HTTP_BENCH_DURATION:-20}"
warmup="${HTTP_BENCH_WARMUP:-3}"
healthz_rounds="${HTTP_BENCH_HEALTHZ_ROUNDS:-3}"
idle_seconds="${HTTP_BENCH_IDLE:-10}"
assertion_warmup="${HTTP_BENCH_ASSERTION_WARMUP:-2}"
per_key="${HTTP_BENCH_PER_KEY:-22000}"
pool="${HTTP_BENCH_POOL:-16}"
score_keys="${HTTP_BENCH_SCORE_KEYS:-1000}"
score_load="${HTTP_BENCH_SCORE_LOAD:-0.5}"
paced_rounds="${HTTP_BENCH_PACED_ROUNDS:-3}"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
seed="attestguard-bench"
app_id="ABCDE12345.com.example.bench"
lua="$here/http/bench.lua"
started=$SECONDS
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"

# shellcheck source-path=SCRIPTDIR source=http/common.sh
. "$here/http/common.sh"
bench_require_tools
bench_binaries

# ---- everything below is cleaned up by the trap (bench_cleanup) ----
bench_begin attestguard-http-bench
bench_start_postgres

port="$(bench_free_port)"
url="http://127.0.0.1:$port"
BENCH_API_KEY="bench-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
export BENCH_API_KEY
bench_write_config "$work/config.yaml" "$port" "$pool" true

echo "== server =="
bench_start_server server "$work/config.yaml" "$url"
server_pid="${server_pids# }"

echo "== preparing $connections keys x $per_key assertions and $score_keys score keys (through the API) =="
bench_prepare "$url" "$connections" "$per_key" "$score_keys"

# The idle server: what it and PostgreSQL spend with no request, in HTTP_BENCH_IDLE seconds after a 2 s pause (the
# preparation's last write-behind flush).
idle_line=""
if [ "$idle_seconds" -gt 0 ]; then
    echo "== the idle server: ${idle_seconds} s with no request =="
    sleep 2
    idle_line="$(python3 "$here/http/idle.py" "$idle_seconds" "$server_pid" $(postgres_pids))"
    echo "$idle_line"
fi

consumed_assertions() { psql_ "SELECT count(*) FROM challenges WHERE purpose = 'assertion' AND consumed_at IS NOT NULL"; }
# Updates of challenges so far, and how many of them were heap-only (the new row version on its page, no index
# touched): a consumption that finds no room on its page writes an entry in each of the table's indexes.
challenge_updates() { psql_ "SELECT n_tup_upd || ' ' || n_tup_hot_upd FROM pg_stat_user_tables WHERE relid = 'challenges'::regclass"; }

# run_wrk NAME SECONDS MODE [ARGS...]: bench_run_wrk (wrk output in $work/NAME.out, the RESULT line in $work/NAME.result,
# CPU seconds in $work/NAME.cpu), then exits if the server measured ($server_pid) died meanwhile.
run_wrk() {
    bench_run_wrk "$@"
    kill -0 "$server_pid" 2>/dev/null || { echo "the server died during $1" >&2; exit 1; }
}

# start_profile NAME / stop_profile: with HTTP_BENCH_PROFILE=1, perf samples the server and PostgreSQL (postmaster
# and its backends) while the measured run NAME runs; the report (self time by process, library and symbol) is
# printed after the table and kept as $work/NAME.profile.
profile_name=""
start_profile() {
    case "${HTTP_BENCH_PROFILE:-0}" in 1 | calls) ;; *) return 0 ;; esac
    command -v perf >/dev/null 2>&1 || {
        apt_install linux-perf >/dev/null 2>&1 ||
            { echo "HTTP_BENCH_PROFILE=1 needs perf (Debian package linux-perf)" >&2; exit 1; }
    }
    local pids
    pids="$server_pid $(postgres_pids)"
    pids="${pids// /,}"
    profile_name=$1
    local calls=""
    [ "$HTTP_BENCH_PROFILE" = calls ] && calls="--call-graph=fp"
    perf record -q -k CLOCK_MONOTONIC $calls -F "${HTTP_BENCH_PROFILE_HZ:-999}" -p "$pids" -o "$work/$1.perf" >"$work/$1.perf.log" 2>&1 &
    profile_pid=$!
    sleep 0.2
}
stop_profile() {
    [ -n "$profile_pid" ] || return 0
    kill -INT "$profile_pid" 2>/dev/null || true
    wait "$profile_pid" 2>/dev/null || true
    profile_pid=""
    perf report -q -i "$work/$profile_name.perf" --no-children --sort comm,dso,sym --percent-limit 0.4 --stdio \
        2>/dev/null | sed '/^$/d' | cut -c1-150 >"$work/$profile_name.profile" || true
}

wrk_command="wrk -t $connections -c $connections -d ${duration}s --latency --timeout 10s -s Benchmarks/http/bench.lua $url -- MODE ..."
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

# GET /healthz on the server and on the bare Hummingbird reference (Benchmarks/Sources/BareHealthz: that one route,
# no middleware), the floor the server's own request path adds to. Both listen throughout; each warms up, then
# HEALTHZ_ROUNDS rounds measure one after the other, in alternating order, `duration` seconds each: on this shared
# host the speed drifts from one minute to the next, and only runs side by side compare. Each run counts the one it
# measures as "the server"; the other idles meanwhile.
"$bare_bin" --port 0 >"$work/bare.out" 2>"$work/bare.err" &
bare_pid=$!
other_pids=" $bare_pid"
for _ in $(seq 1 100); do grep -q 'listening on' "$work/bare.out" 2>/dev/null && break; sleep 0.1; done
bare_url=$(sed -n 's/^bare hummingbird listening on //p' "$work/bare.out")
[ -n "$bare_url" ] || { cat "$work/bare.err" >&2; echo "the bare Hummingbird reference did not start" >&2; exit 1; }
server_url=$url server_pid_kept=$server_pid server_pids_kept=$server_pids
# on_healthz_target server|bare: points run_wrk (url, server_pid) and the CPU counters (server_pids) at one of the two.
on_healthz_target() {
    case $1 in
    bare) url=$bare_url server_pid=$bare_pid server_pids=" $bare_pid" other_pids="$server_pids_kept" ;;
    server) url=$server_url server_pid=$server_pid_kept server_pids=$server_pids_kept other_pids=" $bare_pid" ;;
    esac
}
# The first round's runs are `healthz` and `healthz-bare` (the table's rows); later rounds' add -2, -3, ...
healthz_names="" healthz_bare_names=""
echo "== GET /healthz on the server and on bare Hummingbird: ${warmup} s warm-up each, $healthz_rounds rounds of ${duration} s each, alternating =="
on_healthz_target server && run_wrk healthz-warmup "$warmup" healthz
on_healthz_target bare && run_wrk healthz-bare-warmup "$warmup" healthz
for round in $(seq 1 "$healthz_rounds"); do
    suffix=""
    [ "$round" -gt 1 ] && suffix="-$round"
    healthz_names="$healthz_names healthz$suffix"
    healthz_bare_names="$healthz_bare_names healthz-bare$suffix"
    order="server bare"
    [ $((round % 2)) -eq 0 ] && order="bare server"
    for target in $order; do
        on_healthz_target "$target"
        if [ "$target" = bare ]; then run_wrk "healthz-bare$suffix" "$duration" healthz; else run_wrk "healthz$suffix" "$duration" healthz; fi
    done
done
on_healthz_target server
other_pids=""
kill -TERM "$bare_pid" 2>/dev/null || true
bench_await_exit "$bare_pid"
cat "$work/healthz.out"

echo "== POST /v1/assertions: ${assertion_warmup} s warm-up, ${duration} s measured =="
run_wrk assertions-warmup "$assertion_warmup" assertions "$work/bodies" - "$work/offsets-warmup"
sleep 0.5 # let the warm-up's last in-flight requests commit
consumed_before=$(consumed_assertions)
read -r updates_before hot_before <<<"$(challenge_updates)"
reset_statements
start_profile assertions
BENCH_SAMPLES_FILE="$work/assertions.samples" run_wrk assertions "$duration" assertions "$work/bodies" "$work/offsets-warmup" "$work/offsets"
stop_profile
sleep 0.5 # let the last in-flight requests commit
consumed_after=$(consumed_assertions)
read -r updates_after hot_after <<<"$(challenge_updates)"
cat "$work/assertions.out"
print_statements "the measured assertion run"

# paced_rate NAME FIXED: the paced runs' total rate: FIXED when set, else HTTP_BENCH_SCORE_LOAD of NAME's rate.
paced_rate() {
    if [ -n "$2" ]; then echo "$2"; else awk -v r="$(field "$1" rps)" -v f="$score_load" 'BEGIN { printf "%.0f", r * f }'; fi
}
per_connection() { awk -v t="$1" -v c="$connections" 'BEGIN { printf "%.3f", t / c }'; }
assertion_paced_total="$(paced_rate assertions "${HTTP_BENCH_ASSERTION_RATE:-}")"
echo "== POST /v1/assertions: $paced_rounds x ${duration} s paced at $assertion_paced_total req/s =="
assertion_paced_names=""
offsets_in="$work/offsets"
for round in $(seq 1 "$paced_rounds"); do
    if [ "$round" = 1 ]; then reset_statements; start_profile assertions-paced-1; fi
    BENCH_SAMPLES_FILE="$work/assertions-paced-$round.samples" run_wrk "assertions-paced-$round" "$duration" assertions \
        "$work/bodies" "$offsets_in" "$work/offsets-paced-$round" "$(per_connection "$assertion_paced_total")" "$connections"
    if [ "$round" = 1 ]; then stop_profile; fi
    offsets_in="$work/offsets-paced-$round"
    cat "$work/assertions-paced-$round.out"
    if [ "$round" = 1 ]; then print_statements "the first paced assertion round"; fi
    assertion_paced_names="$assertion_paced_names assertions-paced-$round"
done

echo "== POST /v1/score: ${assertion_warmup} s warm-up, ${duration} s closed loop, $paced_rounds x ${duration} s paced at $score_load of its rate =="
run_wrk score-warmup "$assertion_warmup" score "$work/bodies/score.txt" - "$connections"
reset_statements
start_profile score
BENCH_SAMPLES_FILE="$work/score.samples" run_wrk score "$duration" score "$work/bodies/score.txt" - "$connections"
stop_profile
cat "$work/score.out"
print_statements "the closed-loop score run"
paced_total="$(paced_rate score "${HTTP_BENCH_SCORE_RATE:-}")"
if [ -n "${HTTP_BENCH_SCORE_RATE:-}" ]; then
    paced_basis="a fixed rate (HTTP_BENCH_SCORE_RATE), not $score_load of the closed loop's"
else
    paced_basis="$score_load of the closed loop's rate"
fi
paced_per_connection="$(per_connection "$paced_total")"
paced_names=""
for round in $(seq 1 "$paced_rounds"); do
    BENCH_SAMPLES_FILE="$work/score-paced-$round.samples" run_wrk "score-paced-$round" "$duration" score "$work/bodies/score.txt" "$paced_per_connection" "$connections"
    cat "$work/score-paced-$round.out"
    paced_names="$paced_names score-paced-$round"
done

echo "== POST /v1/assertions and POST /v1/score with fsync=on, synchronous_commit=on, full_page_writes=on: ${assertion_warmup} s warm-up, ${duration} s measured each =="
durable_postgres
run_wrk assertions-durable-warmup "$assertion_warmup" assertions "$work/bodies" "$offsets_in" "$work/offsets-durable-warmup"
BENCH_SAMPLES_FILE="$work/assertions-durable.samples" run_wrk assertions-durable "$duration" assertions "$work/bodies" \
    "$work/offsets-durable-warmup" "$work/offsets-durable"
cat "$work/assertions-durable.out"
run_wrk score-durable-warmup "$assertion_warmup" score "$work/bodies/score.txt" - "$connections"
BENCH_SAMPLES_FILE="$work/score-durable.samples" run_wrk score-durable "$duration" score "$work/bodies/score.txt" - "$connections"
cat "$work/score-durable.out"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
server_errors=$(grep -ciE ' (error|critical) ' "$work/server.err" || true)

# ---- report ----
# goal NAMES RATE FIXED LIMIT_MS WHAT: the median paced round's p99 against LIMIT_MS.
goal() {
    for name in $1; do printf '%s %s\n' "$(field "$name" p99_ms)" "$(field "$name" rps)"; done | sort -n |
        awk -v t="$2" -v at="${3:+a fixed rate; the goal itself is judged at half the peak}" -v limit="$4" -v what="$5" '
            { p[NR] = $1; r[NR] = $2 } END { m = int((NR + 1) / 2)
            printf "goal for %s (p99 under %s ms at %s): %s (median round: p99 %.2f ms at %.0f req/s, %.0f scheduled; rounds %s)\n",
                what, limit, (at == "" ? "half the peak rate" : at), (p[m] < limit ? "met" : "MISSED"), p[m], r[m], t, NR }'
}
lateness() { for name in $1; do printf '%s ms  ' "$(field "$name" late_ms_p99)"; done; }
echo
echo "== AttestGuard HTTP benchmark =="
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo); load average $load_start at start (before this script's own load), $load_before before measuring, $load_after after"
echo "software: $("$swift" --version 2>/dev/null | head -1); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-3); PostgreSQL $pg_version"
echo "server: attestguard serve (release, $server_bin), simulator mode, logLevel warning, http://127.0.0.1:$port (loopback, no TLS)"
echo "store: PostgreSQL (scripts/postgres-start.sh: fsync=off, synchronous_commit=off, full_page_writes=off; the durable rows: all three on), poolSize $pool, autoMigrate"
echo "load: $wrk_command"
echo "      $connections connections, one per wrk thread (closed loop: each sends its next request when the previous one is answered);"
echo "      ${duration} s per route; ${warmup} s /healthz and ${assertion_warmup} s assertion warm-up (not counted); client, server and PostgreSQL share the $(nproc) cores (no pinning)"
echo "assertions: $connections simulated keys (one per connection), each with $per_key prepared single-use bodies sent in counter order"
echo
echo "| route                                    |     req/s |  p50 ms |  p90 ms |  p99 ms |   max ms |  requests | non-200 | sock.err | cores: server/pg/wrk/other/steal  | CPU µs/req s/pg |"
echo "|------------------------------------------|----------:|--------:|--------:|--------:|---------:|----------:|--------:|---------:|-----------------------------------|-----------------|"
bench_row healthz "GET /healthz"
bench_row healthz-bare "GET /healthz, bare Hummingbird"
bench_row assertions "POST /v1/assertions"
for name in $assertion_paced_names; do bench_row "$name" "POST /v1/assertions, paced ${name#assertions-paced-}"; done
bench_row assertions-durable "POST /v1/assertions, durable PostgreSQL"
bench_row score "POST /v1/score"
for name in $paced_names; do bench_row "$name" "POST /v1/score, paced ${name#score-paced-}"; done
bench_row score-durable "POST /v1/score, durable PostgreSQL"
echo
awk -v a="$(field assertions rps)" -v s="$(field score rps)" -v h="$(field healthz rps)" -v d="$(field assertions-durable rps)" \
    -v ds="$(field score-durable rps)" \
    'BEGIN { printf "throughput against /healthz: assertions %.1f%%, score %.1f%%; durable PostgreSQL against the fast profile: assertions %.0f%%, score %.0f%%\n", 100 * a / h, 100 * s / h, 100 * d / a, 100 * ds / s }'
[ -z "$idle_line" ] || echo "$idle_line"
# healthz_cpu NAME: the CPU of the measured server per request of run NAME, in µs.
healthz_cpu() { awk -v s="$(cut -d' ' -f2 "$work/$1.cpu")" -v n="$(field "$1" requests)" 'BEGIN { printf "%.1f", s * 1e6 / n }'; }
healthz_ratios="" healthz_pairs=""
read -ra bare_runs <<<"$healthz_bare_names"
round=0
for name in $healthz_names; do
    server_us=$(healthz_cpu "$name") bare_us=$(healthz_cpu "${bare_runs[$round]}")
    ratio=$(awk -v a="$server_us" -v b="$bare_us" 'BEGIN { printf "%.2f", a / b }')
    healthz_ratios="$healthz_ratios $ratio"
    healthz_pairs="$healthz_pairs $(printf '%.0f/%.0f' "$server_us" "$bare_us")=${ratio}x"
    round=$((round + 1))
done
healthz_median=$(printf '%s\n' $healthz_ratios | sort -n | awk '{ r[NR] = $1 } END { print (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }')
echo "GET /healthz server CPU per request, AttestGuard/bare Hummingbird µs by round:$healthz_pairs; median $(printf '%.2f' "$healthz_median")x (goal within 1.2x: $(awk -v m="$healthz_median" 'BEGIN { print (m <= 1.2) ? "met" : "MISSED" }'))"
echo "paced: assertions $assertion_paced_total req/s, score $paced_total req/s scheduled ($paced_basis), $paced_rounds rounds each; latency from the scheduled send"
echo "p99 send lateness per round (how far the client itself fell behind its schedule; above ~1 ms the machine was busy with more than this benchmark): assertions $(lateness "$assertion_paced_names")score $(lateness "$paced_names")"
goal "$assertion_paced_names" "$assertion_paced_total" "${HTTP_BENCH_ASSERTION_RATE:-}" 5 "POST /v1/assertions"
goal "$paced_names" "$paced_total" "${HTTP_BENCH_SCORE_RATE:-}" 2 "POST /v1/score"
echo "assertions accepted by the store during the measured run (consumed challenges): $((consumed_after - consumed_before)) (wrk counted $(field assertions requests) answered; up to $connections more were in flight at the end)"
# The table counts lag: a busy backend publishes them at most once a second, an idle one up to 10 s later, so the
# share is what it says and the two counts are close to the run's, not exact.
echo "challenge consumptions heap-only (updated on their page, no index touched) during the measured run: $(awk -v h=$((hot_after - hot_before)) -v u=$((updates_after - updates_before)) 'BEGIN { printf "%.0f", u ? 100 * h / u : 0 }') % (of about $((updates_after - updates_before)) updates)"
assertion_runs="assertions $assertion_paced_names assertions-durable"
score_runs="score $paced_names score-durable"
all_runs="$healthz_names $healthz_bare_names $assertion_runs $score_runs"
# wal_per_request NAME: the WAL run NAME wrote per answered request (bytes, full-page images) and the checkpoints that
# fell in it (from wal_position around the run). The fast profile writes no full-page image; a checkpoint during a
# durable row makes the next change of each page write the whole page, which costs that row WAL and time.
wal_per_request() {
    local b0 f0 r0 c0 b1 f1 r1 c1
    read -r b0 f0 r0 c0 <"$work/$1.wal0"
    read -r b1 f1 r1 c1 <"$work/$1.wal1"
    awk -v n="$(field "$1" requests)" -v b=$((b1 - b0)) -v f=$((f1 - f0)) -v c=$((c1 - c0)) \
        'BEGIN { if (n > 0) printf "%.0f bytes, %.3f full-page images, %d checkpoints", b / n, f / n, c; else print "-" }'
}
echo "tails (Benchmarks/http/tail.py: where each run's slowest 1 % fell in time; a stall is a 10 ms window of at least three sends whose median request took over 3x the run's median and over 5 ms):"
python3 "$here/http/tail.py" $(for name in $assertion_runs $score_runs; do printf '%s=%s ' "$name" "$work/$name.samples"; done) |
    sed 's/^/  /'
echo "WAL per request: assertions $(wal_per_request assertions); durable assertions $(wal_per_request assertions-durable); score $(wal_per_request score); durable score $(wal_per_request score-durable)"
echo "non-200 by status: $(for name in $all_runs; do printf '%s %s; ' "$name" "$(field "$name" statuses)"; done)bodies exhausted: $(for name in $assertion_runs; do printf '%s ' "$(field "$name" exhausted)"; done)connections"
echo "cores: CPU used on average during the measured run by the server, PostgreSQL, wrk, all other processes, and stolen by the hypervisor (of $(nproc))"
echo "server log (level warning): $server_errors lines at error/critical level; warnings other than the simulator banner:"
grep -iE ' (error|critical|warning) ' "$work/server.err" | grep -v 'SIMULATOR MODE' | cut -d' ' -f2- | sort | uniq -c | sort -rn | head -5 || true
for name in assertions assertions-paced-1 score; do
    [ -s "$work/$name.profile" ] || continue
    echo
    echo "-- profile of the measured $name run (HTTP_BENCH_PROFILE; perf, self time, >= 0.4 % of samples) --"
    cat "$work/$name.profile"
done
echo "total time: $((SECONDS - started)) s"

bench_exit_valid "$all_runs" "$assertion_runs"
