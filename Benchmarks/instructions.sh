#!/usr/bin/env bash
# AttestGuard instruction benchmark: how many CPU instructions the server executes per request, and where.
#
#   ./Benchmarks/instructions.sh            (from any directory)
#
# CPU time on a shared 2-core guest moves by ±20 % between runs and this guest has no hardware counters, so a change
# worth a few percent of a request cannot be seen in seconds. An instruction count can: valgrind's callgrind executes
# the server's code on a synthetic CPU and counts every instruction it runs, the same count for the same build and
# requests whatever else the machine does. It also says exactly which functions the instructions are spent in, which
# a sampling profile on this guest only estimates.
#
# Steps: build `attestguard` and HTTPBenchPrep (release, Benchmarks/.build; as http.sh does), start a throw-away
# PostgreSQL and the server with the shipped Rules/, prepare one simulated key's assertions and the score keys'
# bodies through the API (as http.sh does); then restart the server under callgrind on the same database, with
# counting off. Counting is switched on (callgrind_control) only around the measured parts: INSTR_BENCH_IDLE seconds
# with no request (the background: timers, flushes, the host watcher), then per route (GET /healthz, POST /v1/score,
# POST /v1/assertions) INSTR_BENCH_REQUESTS requests sent one after another on one connection by
# Benchmarks/http/sequential.py, after INSTR_BENCH_WARMUP unmeasured ones and INSTR_BENCH_FLUSH_WAIT uncounted seconds
# for the warm-up's write-behind flushes, in INSTR_BENCH_ROUNDS rounds. A round's figure is its count less the
# background's rate over its length, per request; a route's is its median round's. Every route's rounds repeat
# within 1-2 %; the score route's can still differ when the minute's maintenance, which runs by the wall clock, falls
# in one of them. One request at a time makes each
# batch one entry, so the figure does not depend on how requests happened to group (under load a batch's own work is
# shared by its entries).
#
# Only the server is counted: PostgreSQL runs at full speed beside it. Under callgrind the server runs about 50 times
# slower, so the run's latency and CPU say nothing and are not printed, and the background's share (its timers fire
# by the wall clock) is larger than at full speed: it is measured and taken out, and printed.
#
# Prints a table, and with INSTR_BENCH_FUNCTIONS=N (default 25; 0: none) each route's N most expensive functions,
# inclusive and exclusive, in instructions per request, demangled. INSTR_BENCH_KEEP=1 keeps the callgrind files
# (callgrind_annotate or kcachegrind read them).
#
# Environment (defaults in brackets):
#   INSTR_BENCH_REQUESTS [300]   measured requests per round
#   INSTR_BENCH_ROUNDS [3]       rounds per route; the median round is reported (for an even count the lower of
#                                the middle two), with the rounds' range
#   INSTR_BENCH_WARMUP [100]     unmeasured requests per route before them
#   INSTR_BENCH_IDLE [10]        seconds of the idle server, for the background's rate
#   INSTR_BENCH_FLUSH_WAIT [5]   seconds, uncounted, after each route's warm-up: its write-behind flushes finish
#   INSTR_BENCH_FUNCTIONS [25]   functions listed per route
#   INSTR_BENCH_KEEP [0]         1: keep the work folder with the callgrind files
#   INSTR_BENCH_BIN []           the server binary to count instead of this tree's release `attestguard`: another
#                                build you copied aside, so that two builds compare (the build of this tree still
#                                runs unless HTTP_BENCH_NO_BUILD=1; HTTPBenchPrep comes from it)
#   HTTP_BENCH_NO_BUILD [0]      1: use the binaries already in Benchmarks/.build/release
#   SWIFT                        swift binary (default: swift on PATH, else /opt/swift/usr/bin/swift)
# Exit status: 0 only if every request was answered 200 and every count was read.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
requests="${INSTR_BENCH_REQUESTS:-300}"
rounds="${INSTR_BENCH_ROUNDS:-3}"
score_keys=200
warmup="${INSTR_BENCH_WARMUP:-100}"
idle_seconds="${INSTR_BENCH_IDLE:-10}"
flush_wait="${INSTR_BENCH_FLUSH_WAIT:-5}"
functions="${INSTR_BENCH_FUNCTIONS:-25}"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
seed="attestguard-bench"
app_id="ABCDE12345.com.example.bench"
started=$SECONDS
if [ -n "${INSTR_BENCH_BIN:-}" ]; then INSTR_BENCH_BIN="$(cd "$(dirname "$INSTR_BENCH_BIN")" && pwd)/$(basename "$INSTR_BENCH_BIN")"; fi
if [ "${INSTR_BENCH_KEEP:-0}" = 1 ]; then export HTTP_BENCH_KEEP=1; fi
cd "$root"
# shellcheck source=Benchmarks/http/common.sh
. "$here/http/common.sh"

bench_require_tools
command -v cc >/dev/null 2>&1 && command -v objcopy >/dev/null 2>&1 || { echo "instructions.sh needs cc and objcopy" >&2; exit 1; }
command -v valgrind >/dev/null 2>&1 && command -v callgrind_control >/dev/null 2>&1 || {
    echo "== installing valgrind (Debian package valgrind) =="
    apt_install valgrind >/dev/null ||
        { echo "instructions.sh needs valgrind (Debian package valgrind)" >&2; exit 1; }
}
bench_binaries
if [ -n "${INSTR_BENCH_BIN:-}" ]; then server_bin="$INSTR_BENCH_BIN"; fi
[ -x "$server_bin" ] || { echo "no server binary at $server_bin" >&2; exit 1; }
bench_begin attestguard-instr-bench

bench_start_lone_server prepare
echo "== preparing 1 key x $((warmup + rounds * requests)) assertions and $score_keys score keys (through the API) =="
bench_prepare "$url" 1 "$((warmup + rounds * requests))" "$score_keys"

# The preparing server stops (its shutdown flush written), and the counted one starts on the same database.
prepare_pid="${server_pids# }"
kill -TERM "$prepare_pid"
bench_await_exit "$prepare_pid"
server_pids=""
echo "== the server under callgrind (counting off until the measured parts) =="
# A copy without its DWARF: valgrind 3.19 reads no DWARF 5 and gives up on the binary. The symbol table stays, so the
# functions keep their names (not their source lines).
objcopy --strip-debug "$server_bin" "$work/attestguard"
# valgrind 3.19 writes into the signal mask a sigsuspend call passes, and libdispatch's (the main thread parks in it
# under Swift's async main) is a constant in read-only memory: valgrind then crashes. The shim passes a copy.
cat >"$work/sigsuspend.c" <<'SHIM'
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, 8);
}
SHIM
cc -shared -fPIC -O2 -o "$work/sigsuspend.so" "$work/sigsuspend.c"
LD_PRELOAD="$work/sigsuspend.so" valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" \
    "$work/attestguard" serve --config "$work/config.yaml" >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
server_pids="$server_pid"
server_names="server"
bench_await_200 "$url/readyz" "$server_pid" 300 "the server under callgrind"

# control ARGS...: callgrind_control ARGS on the server; exits unless it answers OK (its exit status is 0 either way).
control() {
    local answer
    answer="$(callgrind_control "$@" "$server_pid" 2>&1)" || true
    case "$answer" in
    *OK*) ;;
    *) echo "callgrind_control $* failed for pid $server_pid: $answer" >&2; exit 1 ;;
    esac
}

# counted OUT NAME COMMAND...: runs COMMAND with counting on, dumps the counts (part NAME), and writes to OUT the
# instructions counted and to OUT.seconds how long COMMAND took.
dumps=0
counted() {
    local out=$1 name=$2 before after part
    shift 2
    control -i on
    control -z
    before="$(date +%s.%N)"
    "$@"
    after="$(date +%s.%N)"
    control -d "$name"
    control -i off
    awk -v a="$before" -v b="$after" 'BEGIN { printf "%.3f\n", b - a }' >"$out.seconds"
    dumps=$((dumps + 1))
    part="$work/callgrind.out.$dumps"
    [ -s "$part" ] || { echo "callgrind wrote no counts for $name ($part)" >&2; exit 1; }
    cp "$part" "$out.callgrind"
    awk '/^(summary|totals):/ { print $2; found = 1; exit } END { if (!found) exit 1 }' "$part" >"$out" ||
        { echo "no total in $part" >&2; exit 1; }
}

sequential="$here/http/sequential.py"
next_assertion=0

echo "== the idle server: ${idle_seconds} s with no request =="
counted "$work/idle" idle sleep "$idle_seconds"
idle_rate="$(awk -v n="$(cat "$work/idle")" -v s="$(cat "$work/idle.seconds")" 'BEGIN { printf "%.0f", n / s }')"
echo "background: $idle_rate instructions a second"

rows=""
for route in healthz score assertions; do
    # Score requests cycle through the score keys' bodies: a warm-up that sends each once leaves every key's facts
    # in the process's cache (as under load), so that no round pays first reads the others do not.
    route_warmup=$warmup
    if [ "$route" = score ]; then route_warmup=$((warmup > score_keys ? warmup : score_keys)); fi
    echo "== $route: $route_warmup requests of warm-up, then $rounds rounds of $requests counted =="
    # shellcheck disable=SC2046 # bench_sequential_args's words are the arguments
    python3 "$sequential" $(bench_sequential_args "$route" "$route_warmup")
    if [ "$route" = assertions ]; then next_assertion=$((next_assertion + warmup)); fi
    # The warm-up's write-behind flushes (velocity, distinct sightings, the decision log, once a second and spread
    # over it) run by the wall clock, 50 times slower under callgrind: waiting for them keeps their first-time work
    # (a new series' id is a SHA-256) out of the first round, which otherwise pays it for the warm-up's last second.
    sleep "$flush_wait"
    : >"$work/$route.rounds"
    for round in $(seq 1 "$rounds"); do
        # shellcheck disable=SC2046
        counted "$work/$route.$round" "$route-$round" python3 "$sequential" $(bench_sequential_args "$route" "$requests")
        if [ "$route" = assertions ]; then next_assertion=$((next_assertion + requests)); fi
        # round, per request less the background, the background taken out per request, seconds
        awk -v r="$round" -v n="$requests" -v i="$(cat "$work/$route.$round")" -v s="$(cat "$work/$route.$round.seconds")" \
            -v rate="$idle_rate" 'BEGIN { printf "%d %.0f %.0f %.1f\n", r, (i - rate * s) / n, rate * s / n, s }' >>"$work/$route.rounds"
    done
    # The median round (by its figure) stands for the route; its callgrind file is the one the functions list reads.
    read -r median_round figure background seconds < <(sort -k2,2n "$work/$route.rounds" | sed -n "$(((rounds + 1) / 2))p")
    cp "$work/$route.$median_round.callgrind" "$work/$route.callgrind"
    range="$(sort -k2,2n "$work/$route.rounds" | awk 'NR == 1 { low = $2 } { high = $2 } END { printf "%d-%d", low, high }')"
    rows="$rows$(bench_route_label "$route")|$requests|$seconds|$figure|$range|$background
"
done

bench_servers_alive "the counted runs"
echo
printf '%s' "$rows" | awk -F'|' '
    BEGIN {
        print "| route                | requests a round |      s | instructions per request (median) |      range of rounds | background taken out per request |"
        print "|----------------------|-----------------:|-------:|----------------------------------:|---------------------:|---------------------------------:|"
    }
    { printf "| %-20s | %16d | %6.1f | %33d | %20s | %32d |\n", $1, $2, $3, $4, $5, $6 }'
echo "one request at a time on one connection, the server under callgrind; the median of $rounds rounds per route; the background's $idle_rate instructions a second are taken out."

if [ "$functions" -gt 0 ]; then
    for route in healthz score assertions; do
        echo
        echo "-- $route: the $functions most expensive functions, instructions per request (background included) --"
        python3 "$here/http/callgrind_functions.py" "$work/$route.callgrind" "$requests" "$functions" "$swift"
    done
fi
echo "total time: $((SECONDS - started)) s"
