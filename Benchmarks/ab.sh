#!/usr/bin/env bash
# AttestGuard A/B benchmark: two server builds, or one build with two settings, in interleaved rounds.
#
#   ./Benchmarks/ab.sh              (from any directory)
#
# Why: on a shared machine the host's own speed drifts by 10-25 % between runs of one build, more than most changes
# are worth, so two separate runs of http.sh cannot tell a change from the drift. Here both variants run in every
# round, on one preparation, one after another: a pair's ratio B/A sees the same host, and the order alternates
# (A B, B A, A B, ...) so that drift within a sitting weighs on both alike.
#
# Steps: build attestguard (unless both variants name a binary) and HTTPBenchPrep (release, Benchmarks/.build) unless
# HTTP_BENCH_NO_BUILD=1; a throw-away PostgreSQL and one preparation as http.sh's (one simulated key per connection with
# AB_PER_KEY single-use assertion bodies in counter order, AB_SCORE_KEYS keys with redeemed risk metrics for the score
# bodies); then AB_ROUNDS rounds: in each, each variant's server is started (its binary, the one configuration, its
# environment settings), and for each route of AB_ROUTES wrk sends AB_WARMUP s unmeasured, then AB_DURATION s measured,
# closed loop; then the server stops. Assertion bodies are never replayed: every run continues after the last body the
# one before sent. Prints one line per measured run and, per route, the medians of each variant and of the pairs' ratios
# B/A, with how many pairs B won. Exit status 0 only if every measured request was answered 200 with no socket error and
# no connection ran out of bodies.
#
# Environment (defaults in brackets):
#   AB_A_BIN, AB_B_BIN [Benchmarks/.build/release/attestguard]  each variant's server binary. To compare two builds,
#                          copy the first build's binary aside (cp, not a link: the next build replaces it), change,
#                          build as the other scripts do (`. scripts/shipped-build.sh; shipped_build swift -c release
#                          --package-path Benchmarks --product attestguard`: the shipped link and profile; with
#                          ATTESTGUARD_PGO=0 without the profile), and name the copy as AB_A_BIN.
#   AB_A_ENV, AB_B_ENV []  each variant's environment settings for its server, space-separated NAME=VALUE words, e.g.
#                          AB_B_ENV="ATTESTGUARD_DATABASE_BATCHES_IN_FLIGHT=1" (docs/reference/configuration.md lists them)
#   AB_A_RULES, AB_B_RULES [Rules/ of this tree]  each variant's rules directory (an older build may not read today's
#                          rules: give it its own tree's, e.g. from `git worktree add`)
#   AB_A_NAME, AB_B_NAME [A, B]  labels in the output, one word each
#   AB_A_STORE, AB_B_STORE [postgres]  each variant's store: postgres (a database of its own in the throw-away
#                          cluster) or sqlite (the embedded store, a file of its own in the work directory), e.g.
#                          AB_B_STORE=sqlite AB_B_NAME=sqlite AB_PER_KEY=4000 to see the SQLite store beside PostgreSQL
#   AB_ROUTES [assertions score]  the routes measured in each run: assertions (POST /v1/assertions), score
#                          (POST /v1/score), healthz (GET /healthz)
#   AB_ROUNDS [6]          rounds (pairs)
#   AB_DURATION [10]       seconds per measured run
#   AB_WARMUP [2]          seconds per route after each server start, not measured
#   AB_PER_KEY []          assertion bodies per key (default: enough for 170 assertions/s per connection, about 2,700/s
#                          with 16 connections, through every run; a run that runs out is INVALID)
#   AB_SCORE_KEYS [1000]   attested keys the score bodies name
#   AB_DURABLE [0]         1: PostgreSQL with production durability (fsync, synchronous_commit, full_page_writes on)
#   HTTP_BENCH_CONNECTIONS [16], HTTP_BENCH_POOL [16], HTTP_BENCH_NO_BUILD [0], HTTP_BENCH_KEEP [0], SWIFT: as http.sh
# Time: two preparations (about 1,300 challenges/s each) plus AB_ROUNDS x 2 x routes x (AB_WARMUP + AB_DURATION) s, plus a
# few seconds per server start: about 15 minutes with the defaults.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
connections="${HTTP_BENCH_CONNECTIONS:-16}"
pool="${HTTP_BENCH_POOL:-16}"
rounds="${AB_ROUNDS:-6}"
duration="${AB_DURATION:-10}"
warmup="${AB_WARMUP:-2}"
routes="${AB_ROUTES:-assertions score}"
score_keys="${AB_SCORE_KEYS:-1000}"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
seed="attestguard-bench"
app_id="ABCDE12345.com.example.bench"
lua="$here/http/bench.lua"
started=$SECONDS

for route in $routes; do
    case "$route" in assertions | score | healthz) ;; *) echo "AB_ROUTES: unknown route $route (assertions, score, healthz)" >&2; exit 2 ;; esac
done
case " $routes " in
*" assertions "*) per_key="${AB_PER_KEY:-$((rounds * (warmup + duration) * 170))}" ;;
*) per_key="${AB_PER_KEY:-1}" ;;
esac
per_key_knob=AB_PER_KEY # named by bench_exit_valid when a connection runs out of bodies

# shellcheck source-path=SCRIPTDIR source=http/common.sh
. "$here/http/common.sh"
bench_require_tools
# The server is built only when a variant has no binary of its own.
if [ -n "${AB_A_BIN:-}" ] && [ -n "${AB_B_BIN:-}" ]; then bench_binaries HTTPBenchPrep; else bench_binaries attestguard HTTPBenchPrep; fi
a_bin="${AB_A_BIN:-$server_bin}"
b_bin="${AB_B_BIN:-$server_bin}"
a_name="${AB_A_NAME:-A}"
b_name="${AB_B_NAME:-B}"
for store in "${AB_A_STORE:-postgres}" "${AB_B_STORE:-postgres}"; do
    case "$store" in postgres | sqlite) ;; *) echo "AB_A_STORE, AB_B_STORE: unknown store $store (postgres, sqlite)" >&2; exit 2 ;; esac
done
for binary in "$a_bin" "$b_bin"; do [ -x "$binary" ] || { echo "not an executable: $binary" >&2; exit 2; }; done

# ---- everything below is cleaned up by the trap (bench_cleanup) ----
bench_begin attestguard-ab-bench
bench_start_postgres
port="$(bench_free_port)"
url="http://127.0.0.1:$port"
BENCH_API_KEY="bench-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
export BENCH_API_KEY
cluster_url=$pg_url

# Each variant has a database of its own in the one cluster, prepared by its own server: two builds may differ in
# schema (the newer one migrates its database on start), and neither variant's writes change what the other reads.
variant_bin() { if [ "$1" = a ]; then echo "$a_bin"; else echo "$b_bin"; fi; }
variant_env() { if [ "$1" = a ]; then echo "${AB_A_ENV:-}"; else echo "${AB_B_ENV:-}"; fi; }
variant_rules() { if [ "$1" = a ]; then echo "${AB_A_RULES:-$root/Rules}"; else echo "${AB_B_RULES:-$root/Rules}"; fi; }
variant_name() { if [ "$1" = a ]; then echo "$a_name"; else echo "$b_name"; fi; }
variant_store() { if [ "$1" = a ]; then echo "${AB_A_STORE:-postgres}"; else echo "${AB_B_STORE:-postgres}"; fi; }
# start_variant a|b: that variant's server (its binary, configuration and environment settings, exported for it alone).
start_variant() {
    local setting settings
    settings="$(variant_env "$1")"
    server_bin="$(variant_bin "$1")"
    for setting in $settings; do export "${setting?}"; done
    bench_start_server server "$work/config-$1.yaml" "$url" >/dev/null
    for setting in $settings; do unset "${setting%%=*}"; done
}
stop_server() {
    local pid
    for pid in $server_pids; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in $server_pids; do bench_await_exit "$pid"; done
    server_pids=""
    server_names=""
}

for variant in a b; do
    echo "== preparing $(variant_name "$variant")'s database: $connections keys x $per_key assertions and $score_keys score keys (through the API) =="
    psql_ "CREATE DATABASE ab_$variant" >/dev/null
    pg_url="${cluster_url/\/postgres\?//ab_$variant?}"
    bench_write_config "$work/config-$variant.yaml" "$port" "$pool" true
    if [ "$(variant_store "$variant")" = sqlite ]; then
        sed -i "s|^database: .*|database: { sqlitePath: \"$work/ab_$variant.sqlite\" }|" "$work/config-$variant.yaml"
    fi
    rules="$(variant_rules "$variant")"
    sed -i "s|^rules: .*|rules: { directory: \"$rules\" }|" "$work/config-$variant.yaml"
    start_variant "$variant"
    mkdir -p "$work/$variant"
    if [ "$routes" != healthz ]; then
        bench_prepare "$url" "$connections" "$per_key" "$score_keys" "$([ "$(variant_store "$variant")" = sqlite ] && echo sqlite)"
        mv "$work/bodies" "$work/$variant/bodies"
    fi
    stop_server
done
pg_url=$cluster_url
if [ "${AB_DURABLE:-0}" = 1 ]; then durable_postgres; fi

# measure VARIANT NAME ROUTE SECONDS: one wrk run against the variant's server and bodies; its RESULT line in
# $work/NAME.result, its CPU in $work/NAME.cpu. Each variant's assertion runs continue after the bodies its run
# before sent.
declare -A offsets=([a]=- [b]=-)
measure() {
    local variant=$1 name=$2 route=$3 seconds=$4 bodies="$work/$1/bodies"
    local arguments=()
    case "$route" in
    healthz) arguments=() ;;
    score) arguments=("$bodies/score.txt" - "$connections") ;;
    assertions) arguments=("$bodies" "${offsets[$variant]}" "$work/$name.offsets") ;;
    esac
    bench_run_wrk "$name" "$seconds" "$route" "${arguments[@]}"
    bench_servers_alive "$name"
    if [ "$route" = assertions ]; then
        offsets[$variant]="$work/$name.offsets"
        sleep 0.5 # the last in-flight assertions commit before the next run continues after them
    fi
}

# One line per measured run, printed and kept in $work/runs.txt with the variant's letter (a, b) before its name.
echo "== $rounds rounds: ${warmup} s warm-up and ${duration} s measured per variant and route ($routes), closed loop, $connections connections =="
printf '%-5s %-12s %-10s %9s %7s %7s %10s %10s %8s %6s\n' round variant route req/s p50_ms p99_ms server_µs pg_µs cores steal
measured_runs=""
assertion_runs=""
for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) = 1 ]; then order="a b"; else order="b a"; fi
    for variant in $order; do
        start_variant "$variant"
        for route in $routes; do
            measure "$variant" "warmup-$round-$variant-$route" "$route" "$warmup"
            name="run-$round-$variant-$route"
            measure "$variant" "$name" "$route" "$duration"
            measured_runs="$measured_runs $name"
            if [ "$route" = assertions ]; then assertion_runs="$assertion_runs $name"; fi
            read -r _ server_s postgres_s machine_s steal_s <"$work/$name.cpu"
            line="$(awk -v round="$round" -v label="$(variant_name "$variant")" -v route="$route" -v n="$(field "$name" requests)" \
                -v rps="$(field "$name" rps)" -v p50="$(field "$name" p50_ms)" -v p99="$(field "$name" p99_ms)" \
                -v s="$server_s" -v p="$postgres_s" -v m="$machine_s" -v st="$steal_s" -v d="$(field "$name" duration_s)" '
                BEGIN { printf "%-5s %-12s %-10s %9.0f %7.2f %7.2f %10.0f %10.0f %8.2f %6.2f", round, label, route, rps, p50, p99,
                        (n > 0 ? s * 1e6 / n : 0), (n > 0 ? p * 1e6 / n : 0), m / d, st / d }')"
            echo "$line"
            echo "$variant $line" >>"$work/runs.txt"
        done
        stop_server
    done
done

# ---- summary ----
# Per route: each variant's medians, and the median (and range) over the pairs of B's req/s and CPU per request
# (server + PostgreSQL) relative to A's in the same round.
echo
echo "== AttestGuard A/B: $a_name ($a_bin${AB_A_ENV:+, $AB_A_ENV}, $(variant_store a)) against $b_name ($b_bin${AB_B_ENV:+, $AB_B_ENV}, $(variant_store b)) =="
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; PostgreSQL $pg_version$([ "${AB_DURABLE:-0}" = 1 ] && echo ", durable"); $connections connections closed loop; $rounds rounds of ${duration} s per variant and route, order alternating"
for route in $routes; do
    awk -v route="$route" -v a="$a_name" -v b="$b_name" '
        function median(values, count,   i, j, t) {
            for (i = 2; i <= count; i++) { t = values[i]; for (j = i - 1; j >= 1 && values[j] > t; j--) values[j + 1] = values[j]; values[j + 1] = t }
            return count % 2 ? values[(count + 1) / 2] : (values[count / 2] + values[count / 2 + 1]) / 2
        }
        $4 == route { v = $1; rps[v, $2] = $5; p99[v, $2] = $7; cpu[v, $2] = $8 + $9; server[v, $2] = $8; pg[v, $2] = $9; rounds[$2] = 1 }
        END {
            n = 0
            for (r in rounds) {
                n++
                ra[n] = rps["a", r]; rb[n] = rps["b", r]
                sa[n] = server["a", r]; sb[n] = server["b", r]; pa[n] = pg["a", r]; pb[n] = pg["b", r]; qa[n] = p99["a", r]; qb[n] = p99["b", r]
                ratio[n] = rps["b", r] / rps["a", r]; cratio[n] = cpu["b", r] / cpu["a", r]
                if (ratio[n] > 1) won++
                if (cratio[n] < 1) cheaper++
                if (n == 1 || ratio[n] < low) low = ratio[n]; if (n == 1 || ratio[n] > high) high = ratio[n]
                if (n == 1 || cratio[n] < clow) clow = cratio[n]; if (n == 1 || cratio[n] > chigh) chigh = cratio[n]
            }
            printf "%s: req/s %s %.0f, %s %.0f; p99 ms %.2f, %.2f; CPU µs/req server + PostgreSQL %s %.0f + %.0f, %s %.0f + %.0f (medians)\n",
                route, a, median(ra, n), b, median(rb, n), median(qa, n), median(qb, n), a, median(sa, n), median(pa, n), b, median(sb, n), median(pb, n)
            printf "%s: %s / %s req/s %.3f (pairs %.3f-%.3f, %s higher in %d of %d); CPU per request %.3f (%.3f-%.3f, %s lower in %d of %d)\n",
                route, b, a, median(ratio, n), low, high, b, won, n, median(cratio, n), clow, chigh, b, cheaper, n
        }' "$work/runs.txt"
done
# A request that took a second or more on a closed loop whose median is milliseconds means the whole machine stopped
# (the host paused or snapshotted the guest: `dmesg` then shows "virtual machine fork"): such a round is no evidence
# for either variant. The medians above already outvote one; this names it.
stalled=""
for name in $measured_runs; do
    if awk -v m="$(field "$name" max_ms)" 'BEGIN { exit !(m >= 1000) }'; then stalled="$stalled ${name#run-} ($(field "$name" max_ms) ms)"; fi
done
if [ -n "$stalled" ]; then echo "runs with a request of 1 s or more (a stalled host, not the variant?):$stalled"; fi
echo "total time: $((SECONDS - started)) s"
bench_exit_valid "$measured_runs" "$assertion_runs"
