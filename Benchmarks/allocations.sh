#!/usr/bin/env bash
# AttestGuard allocation benchmark: how many heap allocations the server makes per request.
#
#   ./Benchmarks/allocations.sh            (from any directory; needs root or sudo for perf's probes)
#
# CPU figures on a shared 2-core machine move by ±20 % between runs; an allocation count does not. It counts what one
# request costs in calls to the C allocator (malloc, calloc, realloc, posix_memalign, aligned_alloc: every Swift
# object, array, string and buffer that leaves the stack goes through one of them) and in calls to free, exactly,
# with perf's user-space probes on the library that serves them in the server: the allocator it links
# (scripts/allocator.sh: jemalloc, which takes every malloc and free of the process), else libc.
#
# Steps: build `attestguard` and HTTPBenchPrep (release, Benchmarks/.build; as http.sh does), start a throw-away
# PostgreSQL and the server with the shipped Rules/, prepare one simulated key's assertions and the score keys'
# bodies through the API (as http.sh does), then count the server's allocator calls for ALLOC_BENCH_IDLE seconds with
# no request (its background work: timers, flushes, the host watcher) and, per route (GET /healthz, POST /v1/score,
# POST /v1/assertions), while Benchmarks/http/sequential.py sends ALLOC_BENCH_REQUESTS requests one after another on
# one connection, after ALLOC_BENCH_WARMUP unmeasured ones. A route's figure is its count less the background's rate
# over the run's length, per request. One request at a time makes each batch one entry, so the figure does not depend
# on how requests happened to group; under load the batch's own allocations are shared by its entries.
#
# The probes slow every allocation down by microseconds (a trap into the kernel), so the run's latency and CPU say
# nothing here and are not printed. Prints a table, and with ALLOC_BENCH_SITES=1 where each route's allocations are
# made (Benchmarks/http/alloc_sites.py: allocations per request by the innermost frame of AttestGuard's modules).
#
# Environment (defaults in brackets):
#   ALLOC_BENCH_REQUESTS [1000]  measured requests per route
#   ALLOC_BENCH_WARMUP [200]     unmeasured requests per route before them
#   ALLOC_BENCH_IDLE [10]        seconds of the idle server, for the background's rate
#   ALLOC_BENCH_SITES [0]        1: then record 200 more requests per route with call stacks and print the sites
#   ALLOC_BENCH_BIN []           the server binary to count instead of this tree's release `attestguard`: another
#                                build you copied aside, so that two builds compare (the build of this tree still
#                                runs unless HTTP_BENCH_NO_BUILD=1; HTTPBenchPrep comes from it)
#   HTTP_BENCH_NO_BUILD [0]      1: use the binaries already in Benchmarks/.build/release
#   SWIFT                        swift binary (default: swift on PATH, else /opt/swift/usr/bin/swift)
# Exit status: 0 only if every request was answered 200 and every count was read.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
requests="${ALLOC_BENCH_REQUESTS:-1000}"
warmup="${ALLOC_BENCH_WARMUP:-200}"
idle_seconds="${ALLOC_BENCH_IDLE:-10}"
sites_requests=200
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
seed="attestguard-bench"
app_id="ABCDE12345.com.example.bench"
started=$SECONDS
if [ -n "${ALLOC_BENCH_BIN:-}" ]; then ALLOC_BENCH_BIN="$(cd "$(dirname "$ALLOC_BENCH_BIN")" && pwd)/$(basename "$ALLOC_BENCH_BIN")"; fi
cd "$root"
# shellcheck source=Benchmarks/http/common.sh
. "$here/http/common.sh"

bench_require_tools
command -v perf >/dev/null 2>&1 || {
    echo "== installing perf (Debian package linux-perf) =="
    apt_install linux-perf >/dev/null ||
        { echo "allocations.sh needs perf (Debian package linux-perf)" >&2; exit 1; }
}
bench_binaries
if [ -n "${ALLOC_BENCH_BIN:-}" ]; then server_bin="$ALLOC_BENCH_BIN"; fi
[ -x "$server_bin" ] || { echo "no server binary at $server_bin" >&2; exit 1; }
bench_begin attestguard-alloc-bench

# The probes are named for this run's process, so that two runs on one machine neither share nor remove each
# other's; they are removed on exit, also on failure.
probe_prefix="agalloc$$"
allocators="malloc calloc realloc posix_memalign aligned_alloc"
probes_added=""
remove_probes() {
    local status=$? probe
    # set -e stays on in a trap: without this, re-raising a failed run's status below would end the shell before
    # bench_cleanup stops the server and PostgreSQL.
    set +e
    for probe in $probes_added; do as_root perf probe -q -d "probe_alloc:$probe" >/dev/null 2>&1 || true; done
    (exit "$status")
    bench_cleanup
}
trap remove_probes EXIT

bench_start_lone_server server
server_pid="${server_pids# }"
# Assertion bodies for the warm-up, the measured run and the sites' run, and a warm-up's worth to spare.
assertion_bodies=$((2 * warmup + requests + sites_requests))
echo "== preparing 1 key x $assertion_bodies assertions and 200 score keys (through the API) =="
bench_prepare "$url" 1 "$assertion_bodies" 200

# The library whose malloc and free the server calls, as its memory map names it: the linked allocator when it maps
# one (its functions take the whole process's calls, libc's get none), else libc.
allocator_file="$(awk -v name="$allocator_library" '$6 ~ ("/" name "$") { print $6; exit }' "/proc/$server_pid/maps")"
[ -n "$allocator_file" ] || allocator_file="$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' "/proc/$server_pid/maps")"
[ -n "$allocator_file" ] || { echo "the server maps neither $allocator_library nor libc.so.6" >&2; exit 1; }
echo "probing the allocator functions of $allocator_file"
events=""
for function in $allocators free; do
    if as_root perf probe -q -x "$allocator_file" -a "probe_alloc:${probe_prefix}_$function=$function" >/dev/null 2>&1; then
        probes_added="$probes_added ${probe_prefix}_$function"
        events="$events,probe_alloc:${probe_prefix}_$function"
    elif [ "$function" = malloc ] || [ "$function" = free ]; then
        echo "perf could not probe $function in $allocator_file (uprobes need root and a kernel with CONFIG_UPROBE_EVENTS)" >&2
        exit 1
    fi
done
events="${events#,}"

# count_calls OUT COMMAND...: runs COMMAND while perf counts the server's allocator calls; writes to OUT its
# allocations (every allocator together) and frees, and to OUT.seconds how long COMMAND took (perf's start included,
# a tenth of a second: a few dozen background allocations, not a tenth of one per request).
count_calls() {
    local out=$1 before after
    shift
    before="$(date +%s.%N)"
    as_root perf stat -x, -e "$events" -p "$server_pid" -o "$out.stat" -- "$@"
    after="$(date +%s.%N)"
    awk -v a="$before" -v b="$after" 'BEGIN { printf "%.3f\n", b - a }' >"$out.seconds"
    awk -F, -v prefix="$probe_prefix" '
        $3 ~ ("probe_alloc:" prefix "_free$") { frees += $1; counted++; next }
        $3 ~ ("probe_alloc:" prefix "_") { allocations += $1; counted++ }
        END { if (counted == 0) exit 1; printf "%d %d\n", allocations, frees }' "$out.stat" >"$out" ||
        { echo "perf counted nothing (see $out.stat)" >&2; exit 1; }
}

sequential="$here/http/sequential.py"
next_assertion=0

echo "== the idle server: ${idle_seconds} s with no request =="
count_calls "$work/idle" sleep "$idle_seconds"
read -r idle_allocations idle_frees <"$work/idle"
idle_allocation_rate="$(awk -v n="$idle_allocations" -v s="$(cat "$work/idle.seconds")" 'BEGIN { printf "%.1f", n / s }')"
idle_free_rate="$(awk -v n="$idle_frees" -v s="$(cat "$work/idle.seconds")" 'BEGIN { printf "%.1f", n / s }')"
echo "background: $idle_allocation_rate allocations and $idle_free_rate frees a second"

rows=""
for route in healthz score assertions; do
    echo "== $route: $warmup requests of warm-up, $requests measured =="
    # shellcheck disable=SC2046 # bench_sequential_args's words are the arguments
    python3 "$sequential" $(bench_sequential_args "$route" "$warmup")
    if [ "$route" = assertions ]; then next_assertion=$((next_assertion + warmup)); fi
    # shellcheck disable=SC2046
    count_calls "$work/$route" python3 "$sequential" $(bench_sequential_args "$route" "$requests")
    if [ "$route" = assertions ]; then next_assertion=$((next_assertion + requests)); fi
    read -r allocations frees <"$work/$route"
    rows="$rows$(awk -v route="$(bench_route_label "$route")" -v n="$requests" -v a="$allocations" -v f="$frees" -v s="$(cat "$work/$route.seconds")" \
        -v ar="$idle_allocation_rate" -v fr="$idle_free_rate" 'BEGIN {
            printf "%s|%d|%.1f|%.1f|%.1f\n", route, n, s, (a - ar * s) / n, (f - fr * s) / n }')
"
done

bench_servers_alive "the measured runs"
echo
printf '%s' "$rows" | awk -F'|' '
    BEGIN {
        print "| route                | requests |      s | allocations per request | frees per request |"
        print "|----------------------|---------:|-------:|------------------------:|------------------:|"
    }
    { printf "| %-20s | %8d | %6.1f | %23.1f | %17.1f |\n", $1, $2, $3, $4, $5 }'
echo "one request at a time on one connection; the background's $idle_allocation_rate allocations a second are taken out."
echo "allocations: malloc, calloc, realloc, posix_memalign and aligned_alloc together, as the server's allocator ($(basename "$allocator_file")) counts them."

if [ "${ALLOC_BENCH_SITES:-0}" = 1 ]; then
    for route in healthz score assertions; do
        echo
        echo "-- $route: where the allocations are made ($sites_requests requests, perf record --call-graph=fp) --"
        # shellcheck disable=SC2046
        as_root perf record -q --call-graph=fp -e "${events%,probe_alloc:${probe_prefix}_free}" \
            -p "$server_pid" -o "$work/$route.sites.perf" -- \
            python3 "$sequential" $(bench_sequential_args "$route" "$sites_requests") >/dev/null
        if [ "$route" = assertions ]; then next_assertion=$((next_assertion + sites_requests)); fi
        as_root perf script -i "$work/$route.sites.perf" -F comm,tid,ip,sym >"$work/$route.sites.stacks" 2>/dev/null
        python3 "$here/http/alloc_sites.py" "$work/$route.sites.stacks" "$sites_requests" "$swift"
    done
fi
echo "total time: $((SECONDS - started)) s"
