# shellcheck shell=bash disable=SC2154 # (here, root, swift, seed and app_id come from the sourcing script)
# Shell functions shared by Benchmarks/http.sh and Benchmarks/scaling.sh (sourced, not run). The sourcing script sets
# `here` (Benchmarks/), `root` (the repository), `swift`, `seed` (the simulator's) and `app_id` first, and
# `set -euo pipefail`. Benchmarks/peer/run.sh sources them too, for the Python peer: it sets `here`, `root` and
# `app_id`, and uses the tools, the cleanup, PostgreSQL and the CPU accounting, not the build, the server or the
# preparation. Benchmarks/gateway.sh sources them for the CPU accounting alone (proc_ticks, tree_ticks).
#
# What they share: the tools (wrk installed when missing), the release binaries (built unless HTTP_BENCH_NO_BUILD=1),
# a work folder and a cleanup trap that stops everything started (wrk, perf, the servers, PostgreSQL) on exit, also
# on failure or Ctrl-C; a throw-away PostgreSQL (scripts/postgres-start.sh); servers started with a configuration of
# their own each; the preparation (HTTPBenchPrep and the redeemed receipts); CPU accounting of the servers,
# PostgreSQL, wrk and the whole machine around a measured run; the RESULT line's fields; pg_stat_statements.
#
# Variables they set or read: bin, server_bin, prep_bin; work; pg_state, pg_url, pg_bin, pg_version; server_pids
# (every server started, space-separated), server_names (their log names: $work/NAME.out and NAME.err);
# child_pids (wrk or the preparation while they run); profile_pid (perf, http.sh only).

# Built as the shipped server is (scripts/shipped-build.sh: its allocator, the static Swift runtime, the kept profile),
# so that the benchmarks measure what ships; BareHealthz too, so that /healthz against the bare route compares request
# paths, not allocators or optimizers.
# shellcheck source=scripts/shipped-build.sh
. "$root/scripts/shipped-build.sh"

# bench_require_tools: curl, python3 and awk must be there; wrk is installed (Debian package wrk) when missing.
bench_require_tools() {
    local tool
    for tool in curl python3 awk; do
        command -v "$tool" >/dev/null 2>&1 || { echo "$tool is required" >&2; exit 1; }
    done
    if ! command -v wrk >/dev/null 2>&1; then
        echo "== installing wrk (Debian package wrk) =="
        apt_install wrk >/dev/null
    fi
}

# bench_replan_if_sources_moved: SwiftPM keeps this package's release build plan (.build/release.yaml) until a manifest
# changes, so a source file added to or removed from the main package (a path dependency here) goes unseen and the
# build fails to find its types. A folder's time changes when a file in it is added, removed or renamed: a Sources
# folder newer than the plan removes the plan, and SwiftPM makes a new one (a few seconds).
bench_replan_if_sources_moved() {
    local plan="$here/.build/release.yaml"
    [ -f "$plan" ] || return 0
    if [ -n "$(find "$here/../Sources" "$here/Sources" -type d -newer "$plan" -print -quit 2>/dev/null)" ]; then
        rm -f "$plan"
    fi
}

# bench_binaries [PRODUCT...]: sets bin, server_bin, prep_bin, bare_bin; builds the products named (default
# `attestguard`, the main package's product, HTTPBenchPrep and BareHealthz, the bare Hummingbird reference) in release
# mode into Benchmarks/.build unless HTTP_BENCH_NO_BUILD=1, and checks that they are there.
bench_binaries() {
    local products=("$@")
    [ ${#products[@]} -gt 0 ] || products=(attestguard HTTPBenchPrep BareHealthz)
    bin="$("$swift" build -c release --package-path "$here" --show-bin-path)"
    if [ "${HTTP_BENCH_NO_BUILD:-0}" != 1 ]; then
        echo "== building ${products[*]} (release, $here/.build, built as shipped: $allocator_library, the static Swift runtime, $(pgo_description)) =="
        bench_replan_if_sources_moved
        local build_started=$SECONDS build_log product
        build_log="$(mktemp /tmp/attestguard-http-bench-build.XXXXXX)"
        for product in "${products[@]}"; do
            if ! shipped_build "$swift" -c release --package-path "$here" --product "$product" >"$build_log" 2>&1; then
                cat "$build_log" >&2
                rm -f "$build_log"
                echo "build of $product failed" >&2
                exit 1
            fi
            grep -E '^Build (of product|complete)|error:' "$build_log" || true
        done
        rm -f "$build_log"
        echo "build: $((SECONDS - build_started)) s"
    fi
    server_bin="$bin/attestguard"
    prep_bin="$bin/HTTPBenchPrep"
    bare_bin="$bin/BareHealthz"
    for product in "${products[@]}"; do
        [ -x "$bin/$product" ] || { echo "build failed: $bin/$product is missing" >&2; exit 1; }
    done
}

# bench_begin PREFIX: creates the work folder (/tmp/PREFIX.XXXXXX) and installs the cleanup trap. Everything started
# after it is stopped by bench_cleanup.
bench_begin() {
    work="$(mktemp -d "/tmp/$1.XXXXXX")"
    pg_state=""
    server_pids=""
    # Processes stopped at the end that no CPU figure counts at the moment (the server while a reference runs).
    other_pids=""
    server_names=""
    child_pids=""
    profile_pid=""
    trap bench_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# bench_await_exit PID: up to 10 s for a process sent SIGTERM to exit, then SIGKILL.
bench_await_exit() {
    for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

bench_cleanup() {
    local status=$? pid name
    trap - EXIT INT TERM
    for pid in $child_pids; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in $child_pids; do wait "$pid" 2>/dev/null || true; done
    if [ -n "$profile_pid" ]; then kill -INT "$profile_pid" 2>/dev/null || true; wait "$profile_pid" 2>/dev/null || true; fi
    # The servers stop together (their shutdown flushes run in parallel), each within 10 s.
    for pid in $server_pids $other_pids; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in $server_pids $other_pids; do bench_await_exit "$pid"; done
    if [ -z "$pg_state" ] && [ -s "$work/pg-state" ]; then pg_state="$(cat "$work/pg-state")"; fi
    if [ "${HTTP_BENCH_KEEP:-0}" = 1 ] && [ -n "$pg_state" ] && [ -f "$pg_state/data/server.log" ]; then
        cp "$pg_state/data/server.log" "$work/postgres.log" || true
    fi
    if [ -n "$pg_state" ] && [ -d "$pg_state" ]; then "$root/scripts/postgres-stop.sh" "$pg_state" || true; fi
    if [ "$status" -ne 0 ]; then
        for name in $server_names; do
            [ -s "$work/$name.err" ] || continue
            echo "-- $name stderr (last 20 lines) --" >&2
            tail -20 "$work/$name.err" >&2
        done
    fi
    if [ "${HTTP_BENCH_KEEP:-0}" = 1 ]; then echo "work folder kept: $work" >&2; else rm -rf "$work"; fi
    exit "$status"
}

# run_child COMMAND...: runs it in the background and waits (a trapped signal interrupts `wait`, not a foreground job).
run_child() {
    "$@" &
    child_pids=$!
    local status=0
    wait "$child_pids" || status=$?
    child_pids=""
    return "$status"
}

# bench_start_postgres: a throw-away cluster (scripts/postgres-start.sh; HTTP_BENCH_PG_OPTIONS, and
# pg_stat_statements with HTTP_BENCH_PG_STATEMENTS=1); sets pg_state, pg_url, pg_bin, pg_version.
bench_start_postgres() {
    echo "== PostgreSQL =="
    local pg_options="${HTTP_BENCH_PG_OPTIONS:-}"
    if [ "${HTTP_BENCH_PG_STATEMENTS:-0}" = 1 ]; then pg_options="$pg_options -c shared_preload_libraries=pg_stat_statements"; fi
    ATTESTGUARD_PG_OPTIONS="$pg_options" ATTESTGUARD_PG_STATE_FILE="$work/pg-state" "$root/scripts/postgres-start.sh" >"$work/pg-url" 2>"$work/pg-start.log" ||
        { cat "$work/pg-start.log" >&2; exit 1; }
    pg_state="$(cat "$work/pg-state")"
    pg_url="$(cat "$work/pg-url")"
    pg_bin="$(cat "$pg_state/pgbin")"
    pg_version="$("$pg_bin/postgres" --version | sed 's/^postgres (PostgreSQL) //')"
    echo "PostgreSQL $pg_version at $pg_url (state $pg_state)"
}
psql_() { "$pg_bin/psql" "$pg_url" -X -q -t -A -v ON_ERROR_STOP=1 -c "$1"; }

bench_free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# bench_write_config FILE PORT POOL AUTOMIGRATE: a simulator-mode configuration on PostgreSQL with the bench app and
# an API key (secret in $BENCH_API_KEY) of every scope.
bench_write_config() {
    cat >"$1" <<EOF
mode: simulator
logLevel: warning
server: { host: 127.0.0.1, port: $2 }
database: { url: "$pg_url", poolSize: $3, autoMigrate: $4 }
simulator: { seed: $seed }
# quotaWindowSeconds 1: the per-user quota counts the user's challenges of the last window on every issue; with
# thousands of challenges per user issued by the preparation a 60 s window would make that count (not the
# benchmark) the preparation's cost.
challenges: { ttlSeconds: 3600, maxPerUser: 1000000, quotaWindowSeconds: 1 }
apps:
  names: [bench]
  bench: { appId: $app_id, environments: [development] }
apiKeys:
  names: [bench]
  bench: { secretEnv: BENCH_API_KEY, scopes: [verify, score, admin], apps: ["*"] }
rules: { directory: "$root/Rules" }
EOF
}

# bench_start_lone_server NAME: PostgreSQL, then one server (bench_start_server NAME) on a free port with a fresh
# API key of every scope (exported as BENCH_API_KEY), a pool of 16 and the schema migrated; sets port and url. For the
# benchmarks that send one request at a time (allocations.sh, instructions.sh).
bench_start_lone_server() {
    bench_start_postgres
    port="$(bench_free_port)"
    url="http://127.0.0.1:$port"
    BENCH_API_KEY="bench-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
    export BENCH_API_KEY
    bench_write_config "$work/config.yaml" "$port" 16 true
    bench_start_server "$1" "$work/config.yaml" "$url"
}

# bench_await_200 URL PID SECONDS WHAT: waits until GET URL answers 200, at most SECONDS; exits when process PID ends
# first or the time runs out, naming WHAT (the server) in the message.
bench_await_200() {
    local target=$1 pid=$2 seconds=$3 what=$4
    for _ in $(seq 1 $((seconds * 10))); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$target")" = 200 ] && return 0
        kill -0 "$pid" 2>/dev/null || { echo "$what exited" >&2; exit 1; }
        sleep 0.1
    done
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$target")" = 200 ] ||
        { echo "$what did not answer GET $target with 200 within $seconds s" >&2; exit 1; }
}

# bench_route_label ROUTE: how the tables name a route of http/sequential.py (healthz, score, assertions).
bench_route_label() {
    case "$1" in
    healthz) echo "GET /healthz" ;;
    score) echo "POST /v1/score" ;;
    assertions) echo "POST /v1/assertions" ;;
    esac
}

# bench_start_server NAME CONFIG URL: starts `attestguard serve` (stdout and stderr in $work/NAME.out and NAME.err),
# adds it to server_pids, and waits until it listens and GET /readyz is 200.
bench_start_server() {
    local name=$1 config=$2 url=$3 pid
    "$server_bin" serve --config "$config" >"$work/$name.out" 2>"$work/$name.err" &
    pid=$!
    server_pids="$server_pids $pid"
    server_names="$server_names $name"
    for _ in $(seq 1 600); do
        grep -q 'attestguard listening' "$work/$name.out" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || { echo "the server ($name) exited" >&2; exit 1; }
        sleep 0.1
    done
    grep -q 'attestguard listening' "$work/$name.out" || { echo "the server ($name) did not start listening within 60 s" >&2; exit 1; }
    bench_await_200 "$url/readyz" "$pid" 10 "the server ($name)"
    echo "$(cat "$work/$name.out") (pid $pid): $(curl -s "$url/readyz")"
}

# bench_servers_alive WHAT: exits when a started server has died.
bench_servers_alive() {
    local pid
    for pid in $server_pids; do kill -0 "$pid" 2>/dev/null || { echo "a server (pid $pid) died during $1" >&2; exit 1; }; done
}

# bench_prepare URL KEYS PER_KEY SCORE_KEYS [SQLITE]: HTTPBenchPrep attests KEYS simulated keys through the API at URL, issues
# PER_KEY assertion challenges per key and mints the assertions in counter order ($work/bodies/key-<i>.txt), and
# attests SCORE_KEYS more keys for the score bodies ($work/bodies/score.txt); then every receipt gets a redeemed risk
# metric (1-3, and a 7-day history), as the receipt scheduler would store them; VACUUM ANALYZE. SQLITE non-empty: the
# server runs on the embedded store, and the receipts stay as the preparation left them.
bench_prepare() {
    local prep_started=$SECONDS
    run_child "$prep_bin" --url "$1" --keys "$2" --per-key "$3" --score-keys "$4" \
        --out "$work/bodies" --seed "$seed" --app-id "$app_id"
    # Attest receipts, never redeemed: every assertion's verdict reads them alike.
    if [ -n "${5:-}" ]; then
        echo "prepared in $((SECONDS - prep_started)) s (SQLite: receipts not redeemed)"
        return 0
    fi
    psql_ "
        UPDATE receipts SET receipt_type = 'RECEIPT', risk_metric = 1 + get_byte(key_id, 0) % 3,
            refreshed_at = now() - interval '1 hour', created_at = now() - interval '1 hour', metric_stale = false,
            next_refresh_at = now() + interval '1 day';
        INSERT INTO risk_metric_history (app_id, key_id, receipt_created_at, risk_metric, observed_at)
        SELECT app_id, key_id, now() - interval '6 days', greatest(risk_metric - 1, 0), now() - interval '6 days'
        FROM receipts ON CONFLICT DO NOTHING;
        INSERT INTO risk_metric_history (app_id, key_id, receipt_created_at, risk_metric, observed_at)
        SELECT app_id, key_id, created_at, risk_metric, refreshed_at FROM receipts ON CONFLICT DO NOTHING" >/dev/null
    psql_ "VACUUM ANALYZE" >/dev/null
    echo "prepared in $((SECONDS - prep_started)) s (VACUUM ANALYZE included)"
}

# bench_sequential_args ROUTE COUNT: the arguments of http/sequential.py for COUNT requests of ROUTE (healthz, score,
# assertions) against $url with $BENCH_API_KEY and the bodies bench_prepare wrote; assertions start at line
# $next_assertion of key 0's bodies (each is single-use: the caller advances it by what it sent).
bench_sequential_args() {
    case "$1" in
    healthz) echo "$url $BENCH_API_KEY healthz $2" ;;
    score) echo "$url $BENCH_API_KEY score $2 $work/bodies/score.txt" ;;
    assertions) echo "$url $BENCH_API_KEY assertions $2 $work/bodies/key-0.txt $next_assertion" ;;
    esac
}

# CPU seconds used so far by the servers, and by PostgreSQL (postmaster, its live children, and exited children).
ticks_per_second="$(getconf CLK_TCK)"
# /proc/PID/stat after "PID (comm) ": $12 utime, $13 stime, $14 cutime, $15 cstime (clock ticks).
proc_stat() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null || true; }
proc_ticks() { proc_stat "$1" | awk '{ print $12 + $13 } END { if (NR == 0) print 0 }'; }
server_cpu() {
    local total=0 pid
    for pid in $server_pids; do total=$((total + $(proc_ticks "$pid"))); done
    awk -v t="$total" -v hz="$ticks_per_second" 'BEGIN { printf "%.3f\n", t / hz }'
}
# postgres_pids: the postmaster, then its children (backends and background processes).
postgres_pids() {
    local postmaster
    postmaster="$(head -1 "$pg_state/data/postmaster.pid")"
    echo "$postmaster" $(ps -o pid= --ppid "$postmaster")
}
# tree_ticks PID: the ticks of PID with its reaped children's, and of its live children, so far (a process that
# starts workers: PostgreSQL's postmaster, nginx's master).
tree_ticks() {
    local total child
    total=$(proc_stat "$1" | awk '{ print $12 + $13 + $14 + $15 } END { if (NR == 0) print 0 }')
    for child in $(ps -o pid= --ppid "$1"); do
        total=$((total + $(proc_ticks "$child")))
    done
    echo "$total"
}
# postgres_cpu: the seconds of CPU of the postmaster (with its reaped children's) and of its live children so far.
postgres_cpu() {
    awk -v t="$(tree_ticks "$(head -1 "$pg_state/data/postmaster.pid")")" -v hz="$ticks_per_second" \
        'BEGIN { printf "%.3f\n", t / hz }'
}
# busy (user nice system irq softirq steal) and steal seconds of the whole machine (/proc/stat, all cores)
machine_busy() { awk '/^cpu / { printf "%.3f %.3f\n", ($2 + $3 + $4 + $7 + $8 + $9) / hz, $9 / hz }' hz="$ticks_per_second" /proc/stat; }

# cpu_mark NAME / cpu_record NAME: around a measured run NAME, the CPU seconds of its wrk processes (user+sys of the
# children this shell reaped meanwhile), the servers, PostgreSQL, the whole machine and the hypervisor's steal, one
# line in $work/NAME.cpu.
cpu_mark() {
    wal_position >"$work/$1.wal0"
    echo "$(server_cpu) $(postgres_cpu) $(machine_busy)" >"$work/$1.cpu0"
    times >"$work/$1.times0" # the second line: user and system time of the reaped children (here: wrk)
}
cpu_record() {
    times >"$work/$1.times1"
    local s0 p0 m0 st0
    read -r s0 p0 m0 st0 <"$work/$1.cpu0"
    awk -v s0="$s0" -v s1="$(server_cpu)" -v p0="$p0" -v p1="$(postgres_cpu)" \
        -v m0="$m0 $st0" -v m1="$(machine_busy)" '
        function seconds(t) { split(t, part, "m"); sub("s", "", part[2]); return part[1] * 60 + part[2] }
        FNR == 2 { children[FILENAME == ARGV[1] ? 0 : 1] = seconds($1) + seconds($2) }
        END { split(m0, a, " "); split(m1, b, " ")
              printf "%.3f %.3f %.3f %.3f %.3f\n", children[1] - children[0], s1 - s0, p1 - p0, b[1] - a[1], b[2] - a[2] }' \
        "$work/$1.times0" "$work/$1.times1" >"$work/$1.cpu"
    wal_position >"$work/$1.wal1"
}

# wal_position: PostgreSQL's WAL counters (pg_stat_wal: bytes, full-page images, records) and its checkpoints so far
# (timed and requested), one line; cpu_mark and cpu_record keep it around a run, so that its WAL per request and the
# checkpoints that fell in it can be told (a checkpoint makes the next change of every page write the whole page).
wal_position() {
    [ -n "${pg_url:-}" ] || { echo "0 0 0 0"; return; }
    # PostgreSQL 17 moved the checkpoint counts from pg_stat_bgwriter to pg_stat_checkpointer.
    if [ -z "${checkpoints_sql:-}" ]; then
        checkpoints_sql="SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter"
        [ "$(psql_ "SHOW server_version_num")" -lt 170000 ] ||
            checkpoints_sql="SELECT num_timed + num_requested FROM pg_stat_checkpointer"
    fi
    psql_ "SELECT w.wal_bytes || ' ' || w.wal_fpi || ' ' || w.wal_records || ' ' || ($checkpoints_sql) FROM pg_stat_wal w"
}

# bench_run_wrk NAME SECONDS MODE [ARGS...]: one wrk run of Benchmarks/http/bench.lua ($lua) against $url with
# $connections connections, one per thread: wrk's output in $work/NAME.out (and .err), the RESULT line in
# $work/NAME.result, the CPU seconds around it in $work/NAME.cpu (cpu_mark/cpu_record). Exits when wrk fails or writes
# no result; whether the server lived through it is the caller's check.
bench_run_wrk() {
    local name=$1 seconds=$2 mode=$3
    shift 3
    cpu_mark "$name"
    run_child wrk -t "$connections" -c "$connections" -d "${seconds}s" --latency --timeout 10s -s "$lua" "$url" \
        -- "$mode" "$work/$name.result" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
        { cat "$work/$name.err" >&2; echo "wrk failed ($name)" >&2; exit 1; }
    cpu_record "$name"
    [ -s "$work/$name.result" ] || { cat "$work/$name.out" "$work/$name.err" >&2; echo "wrk wrote no result ($name)" >&2; exit 1; }
}

field() { # NAME KEY: a value of the RESULT line in $work/NAME.result (first_error is last and may contain spaces)
    if [ "$2" = first_error ]; then sed -n 's/.* first_error=//p' "$work/$1.result"; return; fi
    sed 's/ first_error=.*//' "$work/$1.result" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}

bench_row() { # NAME LABEL: one row of the HTTP benchmarks' table, from $work/NAME.result and $work/NAME.cpu
    local name=$1 label=$2 cpu per_request
    read -r wrk_cpu server_cpu_s postgres_cpu_s machine_cpu_s steal_s <"$work/$name.cpu"
    # "other": everything else busy on the machine meanwhile (the busy time of /proc/stat minus the three).
    cpu=$(awk -v d="$(field "$name" duration_s)" -v w="$wrk_cpu" -v s="$server_cpu_s" -v p="$postgres_cpu_s" \
        -v m="$machine_cpu_s" -v st="$steal_s" \
        'BEGIN { o = (m - s - p - w - st) / d; if (o < 0) o = 0; printf "%.2f / %.2f / %.2f / %.2f / %.2f", s / d, p / d, w / d, o, st / d }')
    # CPU per answered request: the run's CPU seconds over its requests, in microseconds.
    per_request=$(awk -v n="$(field "$name" requests)" -v s="$server_cpu_s" -v p="$postgres_cpu_s" \
        'BEGIN { if (n > 0) printf "%.0f / %.0f", s * 1e6 / n, p * 1e6 / n; else print "-" }')
    printf '| %-40s | %9.0f | %7.2f | %7.2f | %7.2f | %8.2f | %9d | %7d | %8d | %-33s | %-15s |\n' "$label" \
        "$(field "$name" rps)" "$(field "$name" p50_ms)" "$(field "$name" p90_ms)" "$(field "$name" p99_ms)" \
        "$(field "$name" max_ms)" "$(field "$name" requests)" "$(field "$name" non200)" \
        "$(field "$name" socket_errors)" "$cpu" "$per_request"
}

# bench_exit_valid RUNS ASSERTION_RUNS: exits 0 when every measured run of RUNS was answered 200 without a socket
# error and no connection of ASSERTION_RUNS ran out of bodies; else says which run is INVALID and exits 1.
bench_exit_valid() {
    local failed=0 name
    for name in $1; do
        if [ "$(field "$name" non200)" != 0 ] || [ "$(field "$name" socket_errors)" != 0 ]; then
            echo "INVALID: $name had $(field "$name" non200) non-200 responses, $(field "$name" socket_errors) socket errors; first: $(field "$name" first_error)" >&2
            failed=1
        fi
    done
    for name in $2; do
        if [ "$(field "$name" exhausted)" != 0 ]; then
            echo "INVALID: $(field "$name" exhausted) connections ran out of assertion bodies in $name: raise ${per_key_knob:-HTTP_BENCH_PER_KEY} (now $per_key)" >&2
            failed=1
        fi
    done
    exit "$failed"
}

# reset_statements / print_statements WHAT: with HTTP_BENCH_PG_STATEMENTS=1, the statements PostgreSQL ran between
# the two (pg_stat_statements: calls, plans, mean and total execution time), heaviest first. `plans` counts the plans
# made for a statement when PostgreSQL tracks planning (HTTP_BENCH_PG_OPTIONS="-c pg_stat_statements.track_planning=on";
# 0 otherwise): a prepared statement planned about as often as it is called runs a custom plan each time, not the
# generic plan the batch statements are built for.
reset_statements() {
    [ "${HTTP_BENCH_PG_STATEMENTS:-0}" = 1 ] || return 0
    psql_ "CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()" >/dev/null
}
print_statements() {
    [ "${HTTP_BENCH_PG_STATEMENTS:-0}" = 1 ] || return 0
    echo "-- PostgreSQL statements during $1 (pg_stat_statements), heaviest first --"
    "$pg_bin/psql" "$pg_url" -X -q -P pager=off -c "
        SELECT calls, plans, round(mean_exec_time::numeric, 3) AS mean_ms, round(total_exec_time::numeric) AS total_ms,
               left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS query
        FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'
        ORDER BY total_exec_time DESC LIMIT 15"
}

# durable_postgres: production durability (fsync, synchronous_commit, full_page_writes on), reloaded in place (all
# three are reloadable; pooled connections take them before their next statement; scripts/postgres-start.sh keeps
# its fast settings in postgresql.conf for this): every commit now waits for its WAL to reach the disk.
durable_postgres() {
    local setting durable_settings
    for setting in fsync synchronous_commit full_page_writes; do psql_ "ALTER SYSTEM SET $setting = on" >/dev/null; done
    psql_ "SELECT pg_reload_conf()" >/dev/null
    sleep 1
    durable_settings="$(psql_ "SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes')")"
    [ "$durable_settings" = "fsync=on, full_page_writes=on, synchronous_commit=on" ] ||
        { echo "PostgreSQL did not take the durable settings: $durable_settings" >&2; exit 1; }
}
