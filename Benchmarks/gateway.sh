#!/usr/bin/env bash
# AttestGuard gateway benchmark: the one command.
#
#   ./Benchmarks/gateway.sh            (from any directory)
#
# Measures requests through nginx to an upstream, in one run, with and without forward-auth:
#   - direct:   nginx (basic auth) -> upstream; no AttestGuard;
#   - attested: nginx with the shipped Gateway/nginx/attestguard.conf and attestguard.js (njs: the body read and
#               hashed, forward-auth asked once) -> upstream; every request carries a fresh single-use assertion that
#               AttestGuard (release build, simulator mode, PostgreSQL, the shipped Rules/) verifies, commits and scores
#               on a `require` route;
#   - token:    the same gateway on a `token` route: every request carries its key's session token (bought once per
#               key with an assertion); nginx reuses AttestGuard's answer for the token as its Cache-Control allows.
# The request is POST {"item":"sku-1"} with basic auth as the key's user, to /api/orders (direct, attested) or
# /api/feed (token). The upstream is an nginx server answering 200 at once, so the difference is the gateway's
# forward-auth. Rounds alternate (direct, attested, token, direct, ...) so that a change in the machine's load falls
# on all; the report gives each round, the medians, the added latency (p50, p99), the throughput ratios, the token
# route's p50 over the direct one's (the goal: at most 1.5), and where the attested rows' added mean latency goes:
# inside AttestGuard (its own request-duration histogram for the forward-auth route, read from /metrics before and
# after each attested round) or in nginx and the hop, and each kind's CPU per request of AttestGuard, PostgreSQL and
# nginx (from /proc, around each round).
# The closed-loop rounds saturate the cores, so their latency is mostly the connections over the throughput. Paced
# rounds then send at one fixed rate (half the attested closed loop's median unless GATEWAY_BENCH_RATE says), with
# latency from each request's scheduled send: direct, attested, and the same forward-auth requests straight to
# AttestGuard (auth: the headers the config's subrequest sends, no nginx), so that the attested rows split into
# AttestGuard's part and nginx's. The goal, forward-auth adding under 2 ms at p50 and 5 ms at p99 to a request at a
# load the machine carries, is judged on the paced rounds' medians.
#
# Steps: build `attestguard` and `HTTPBenchPrep` (release, Benchmarks/.build); install wrk and nginx with njs when
# missing; start a throw-away PostgreSQL and the server with a route policy requiring an assertion on
# POST /api/orders and a session token on POST /api/feed; HTTPBenchPrep attests one key per connection, exchanges one
# assertion per key for a session token and mints PER_KEY assertions per key in counter order; VACUUM ANALYZE (as
# http.sh does); nginx (one worker) runs the direct and the attested servers and the upstream; wrk (`-t C -c C`: each
# connection sends its key's assertions one after another) runs the rounds. Everything it started is stopped on
# exit, also on failure or Ctrl-C.
#
# Environment (defaults in brackets):
#   GATEWAY_BENCH_CONNECTIONS [8]    connections = wrk threads = simulated keys
#   GATEWAY_BENCH_DURATION [10]      seconds per round
#   GATEWAY_BENCH_ROUNDS [3]         rounds of each kind
#   GATEWAY_BENCH_PER_KEY [20000]    assertions prepared per key; must outlast the attested rounds, closed loop and
#                                    paced (the run fails with "exhausted" otherwise)
#   GATEWAY_BENCH_PACED_ROUNDS [3]   paced rounds of each kind (direct, attested, auth); 0: none
#   GATEWAY_BENCH_PACED_LOAD [0.5]   the paced rate as a fraction of the attested closed loop's median req/s
#   GATEWAY_BENCH_RATE []            a fixed paced rate in req/s instead (to compare two builds at one load)
#   GATEWAY_BENCH_BIN []             the server binary to run instead of this tree's release `attestguard` (another
#                                    build copied aside, or Benchmarks/pgo-train.sh's instrumented one); only
#                                    HTTPBenchPrep is built then
#   GATEWAY_BENCH_NO_BUILD [0]       1: use the binaries already in Benchmarks/.build/release
#   GATEWAY_BENCH_KEEP [0]           1: keep the work folder (configurations, logs, wrk outputs)
#   GATEWAY_BENCH_NGINX_WORKERS [1]  nginx's worker_processes (a number, or auto: one per core)
#   SWIFT                            swift binary (default: swift on PATH)
# Exit status: 0 only if every measured request was answered 200 with no socket errors and no connection ran out.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=Benchmarks/http/common.sh
# Of the shared benchmark functions only the CPU accounting (proc_ticks, tree_ticks, ticks_per_second) is used here;
# common.sh also sources scripts/shipped-build.sh: every build here is built as the shipped server is.
. "$here/http/common.sh"
connections="${GATEWAY_BENCH_CONNECTIONS:-8}"
duration="${GATEWAY_BENCH_DURATION:-10}"
rounds="${GATEWAY_BENCH_ROUNDS:-3}"
per_key="${GATEWAY_BENCH_PER_KEY:-20000}"
paced_rounds="${GATEWAY_BENCH_PACED_ROUNDS:-3}"
nginx_workers="${GATEWAY_BENCH_NGINX_WORKERS:-1}"
paced_load="${GATEWAY_BENCH_PACED_LOAD:-0.5}"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
seed="attestguard-bench"
app_id="ABCDE12345.com.example.bench"
lua="$here/gateway/gateway.lua"

missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
[ -f /usr/lib/nginx/modules/ngx_http_js_module.so ] || missing+=(libnginx-mod-http-js)
if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing ${missing[*]} (Debian packages) =="
    apt_install "${missing[@]}" >/dev/null
fi

bin="$("$swift" build -c release --package-path "$here" --show-bin-path)"
server_bin="${GATEWAY_BENCH_BIN:-$bin/attestguard}"
products=(HTTPBenchPrep)
[ -n "${GATEWAY_BENCH_BIN:-}" ] || products=(attestguard HTTPBenchPrep)
if [ "${GATEWAY_BENCH_NO_BUILD:-0}" != 1 ]; then
    echo "== building ${products[*]} (release, $here/.build, built as shipped: $allocator_library, the static Swift runtime, $(pgo_description)) =="
    for product in "${products[@]}"; do
        shipped_build "$swift" -c release --package-path "$here" --product "$product" 2>&1 |
            grep -E '^Build (of product|complete)|error:' || true
    done
fi
for binary in "$server_bin" "$bin/HTTPBenchPrep"; do
    [ -x "$binary" ] || { echo "build failed: $binary is missing" >&2; exit 1; }
done

# ---- everything below is cleaned up by the trap ----
work="$(mktemp -d /tmp/attestguard-gateway-bench.XXXXXX)"
server_pid=""
nginx_pid=""
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    for pid in "$nginx_pid" "$server_pid"; do
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    if [ -s "$work/pg-state" ]; then "$root/scripts/postgres-stop.sh" "$(cat "$work/pg-state")" || true; fi
    if [ "$status" -ne 0 ]; then tail -20 "$work/server.err" "$work/nginx/error.log" 2>/dev/null >&2 || true; fi
    if [ "${GATEWAY_BENCH_KEEP:-0}" = 1 ]; then echo "work folder kept: $work" >&2; else rm -rf "$work"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

echo "== PostgreSQL =="
ATTESTGUARD_PG_STATE_FILE="$work/pg-state" "$root/scripts/postgres-start.sh" >"$work/pg-url" 2>"$work/pg-start.log" ||
    { cat "$work/pg-start.log" >&2; exit 1; }
pg_url="$(cat "$work/pg-url")"
pg_state="$(cat "$work/pg-state")"

echo "== server =="
port="$(free_port)"
BENCH_API_KEY="bench-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
GATEWAY_KEY="edge-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
# The body every request sends, hashed as attestguard.js hashes it (SHA-256, base64url without padding), for the
# forward-auth requests sent to AttestGuard without nginx.
BENCH_BODY_SHA256="$(printf '%s' '{"item":"sku-1"}' | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')"
export BENCH_API_KEY GATEWAY_KEY BENCH_BODY_SHA256
mkdir -p "$work/policy"
cat >"$work/policy/bench.yaml" <<POLICY
version: 1
app: $app_id
pathPrefix: /
default: require
routes:
  - path: /api/orders
    methods: [POST]
    protection: require
    action: purchase
  - path: /api/feed
    methods: [POST]
    protection: token
POLICY
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt >"$work/session-token-key.pem"
cat >"$work/config.yaml" <<CONFIG
mode: simulator
logLevel: warning
server: { host: 127.0.0.1, port: $port }
database: { url: "$pg_url", autoMigrate: true }
simulator: { seed: $seed }
challenges: { ttlSeconds: 3600, maxPerUser: 1000000, quotaWindowSeconds: 1 }
apps:
  names: [bench]
  bench: { appId: $app_id, environments: [development], sessionTokens: { enabled: true, ttlSeconds: 3600 } }
sessionTokens: { signingKeyFile: "$work/session-token-key.pem" }
apiKeys:
  names: [bench, edge]
  bench: { secretEnv: BENCH_API_KEY, scopes: [verify, score, admin], apps: ["*"] }
  edge: { secretEnv: GATEWAY_KEY, scopes: [gateway], apps: ["*"] }
rules: { directory: "$root/Rules" }
gateway: { policyDirectory: "$work/policy" }
CONFIG
"$server_bin" serve --config "$work/config.yaml" >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 1 600); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] && break
    kill -0 "$server_pid" 2>/dev/null || { echo "the server exited" >&2; exit 1; }
    sleep 0.1
done

echo "== preparing $connections keys x $per_key assertions (through the API) =="
"$bin/HTTPBenchPrep" --url "http://127.0.0.1:$port" --keys "$connections" --per-key "$per_key" --out "$work/bodies" \
    --seed "$seed" --app-id "$app_id" --session-tokens-via GATEWAY_KEY
# As http.sh does: the preparation's challenges and keys vacuumed and analyzed before the rounds, so that autovacuum
# does not take them on during the rounds.
"$(cat "$pg_state/pgbin")/psql" "$pg_url" -X -q -c "VACUUM ANALYZE" >/dev/null
# Each key's file for wrk: its user's basic-auth value, then `keyId assertion clientData` per assertion.
python3 - "$work/bodies" "$work/headers" "$connections" <<'PY'
import base64, json, os, sys
source, target, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(target, exist_ok=True)
for index in range(count):
    with open(f"{source}/key-{index}.txt") as lines, open(f"{target}/key-{index}.txt", "w") as out:
        out.write("Basic " + base64.b64encode(f"bench-user-{index}:password".encode()).decode() + "\n")
        for line in lines:
            body = json.loads(line)
            out.write(f"{body['keyId']} {body['assertion']} {body['clientData']}\n")
    with open(f"{source}/token-{index}.txt") as token, open(f"{target}/token-{index}.txt", "w") as out:
        out.write(token.read())
PY

echo "== nginx =="
gateway_port="$(free_port)"
direct_port="$(free_port)"
upstream_port="$(free_port)"
mkdir -p "$work/nginx"
# nginx's worker runs as an unprivileged user: it must reach the files (mktemp -d makes the folder private).
chmod 755 "$work" "$work/nginx"
sed -e "s|listen 8443;|listen 127.0.0.1:$gateway_port;|" -e "s|server 127.0.0.1:8080;|server 127.0.0.1:$port;|" \
    -e "s|http://127.0.0.1:9000|http://127.0.0.1:$upstream_port|" -e "s|/etc/nginx/attestguard/|$work/nginx/|g" \
    -e "s|/var/lib/nginx/attestguard-tokens|$work/nginx/tokens|" \
    "$root/Gateway/nginx/attestguard.conf" >"$work/nginx/attestguard.conf"
cp "$root/Gateway/nginx/attestguard.js" "$work/nginx/"
sed -e "s|/etc/nginx/attestguard/|$work/nginx/|g" "$root/Gateway/nginx/attestguard-app-route.conf" >"$work/nginx/attestguard-app-route.conf"
for index in $(seq 0 $((connections - 1))); do echo "bench-user-$index:{PLAIN}password"; done >"$work/nginx/htpasswd"
printf 'proxy_set_header Authorization "Bearer %s";\n' "$GATEWAY_KEY" >"$work/nginx/gateway-key.conf"
cat >"$work/nginx/nginx.conf" <<NGINX
load_module /usr/lib/nginx/modules/ngx_http_js_module.so;
worker_processes $nginx_workers;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    include $work/nginx/attestguard.conf;
    # The same request without AttestGuard: basic auth, then the upstream.
    server {
        listen 127.0.0.1:$direct_port;
        auth_basic "bench";
        auth_basic_user_file $work/nginx/htpasswd;
        location / {
            proxy_pass http://127.0.0.1:$upstream_port;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
    # The upstream: answers at once.
    server {
        listen 127.0.0.1:$upstream_port;
        location / { return 200 "upstream ok"; }
    }
}
NGINX
/usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -g 'daemon off;' &
nginx_pid=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$gateway_port/" && break; sleep 0.1; done

# cpu_ticks: "SERVER POSTGRESQL NGINX" CPU ticks (user + system) so far, by Benchmarks/http/common.sh's proc_ticks and
# tree_ticks (the postmaster and nginx's master with their workers). A round's write-behind flush runs on for about a
# second after it, so a little of each attested round's CPU is counted in the round after it.
cpu_ticks() {
    echo "$(proc_ticks "$server_pid") $(tree_ticks "$(head -1 "$pg_state/data/postmaster.pid")") $(tree_ticks "$nginx_pid")"
}

# run NAME MODE PORT OFFSETS_IN OFFSETS_OUT [SECONDS [RATE]]: one wrk round (RATE: req/s over all connections,
# paced; absent: closed loop); its RESULT line in $work/NAME.result, every request's start and latency in
# $work/NAME.samples, and the CPU ticks AttestGuard, PostgreSQL and nginx spent meanwhile in $work/NAME.cpu.
run() {
    local per_connection=- before
    [ -n "${7:-}" ] && per_connection="$(awk -v r="$7" -v c="$connections" 'BEGIN { printf "%.4f", r / c }')"
    before="$(cpu_ticks)"
    BENCH_SAMPLES_FILE="$work/$1.samples" wrk -t "$connections" -c "$connections" -d "${6:-$duration}s" --latency \
        --timeout 10s -s "$lua" "http://127.0.0.1:$3" \
        -- "$2" "$work/$1.result" "$work/headers" "$4" "$5" "$per_connection" "$connections" >"$work/$1.out" 2>&1 ||
        { cat "$work/$1.out" >&2; exit 1; }
    echo "$before $(cpu_ticks)" | awk '{ print $4 - $1, $5 - $2, $6 - $3 }' >"$work/$1.cpu"
    [ -s "$work/$1.result" ] || { cat "$work/$1.out" >&2; echo "wrk wrote no result ($1)" >&2; exit 1; }
}
field() { sed 's/ first_error=.*//' "$work/$1.result" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
# auth_seconds: "SUM COUNT" of the server's own request-duration histogram for the forward-auth route, so that a
# round's share spent inside AttestGuard (from its request head to its answer) is the difference of two readings.
auth_seconds() {
    curl -s -H "Authorization: Bearer $BENCH_API_KEY" "http://127.0.0.1:$port/metrics" | awk '
        /^attestguard_http_request_duration_seconds_sum\{.*route="\/v1\/gateway\/auth"/ { sum += $NF }
        /^attestguard_http_request_duration_seconds_count\{.*route="\/v1\/gateway\/auth"/ { count += $NF }
        END { printf "%.6f %d\n", sum, count }'
}

echo "== warm-up (2 s each) =="
run warmup-direct direct "$direct_port" - - 2
run warmup-attested attested "$gateway_port" - "$work/offsets-0" 2
run warmup-token token "$gateway_port" - - 2
offsets="$work/offsets-0"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
    echo "== round $round: direct, attested, then token (${duration} s each) =="
    run "direct-$round" direct "$direct_port" - -
    auth_seconds >"$work/attested-$round.auth-before"
    run "attested-$round" attested "$gateway_port" "$offsets" "$work/offsets-$round"
    auth_seconds >"$work/attested-$round.auth-after"
    offsets="$work/offsets-$round"
    run "token-$round" token "$gateway_port" - -
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# summary KIND FIELD [ROUNDS]: the median of FIELD over the rounds KIND-1 ... KIND-ROUNDS (default: the closed-loop rounds).
summary() { for round in $(seq 1 "${3:-$rounds}"); do field "$1-$round" "$2"; done | median; }
paced_rate="${GATEWAY_BENCH_RATE:-$(awk -v r="$(summary attested rps)" -v f="$paced_load" 'BEGIN { printf "%.0f", r * f }')}"
for round in $(seq 1 "$paced_rounds"); do
    echo "== paced round $round at $paced_rate req/s: direct, attested, then AttestGuard alone (${duration} s each) =="
    run "direct-paced-$round" direct "$direct_port" - - "$duration" "$paced_rate"
    auth_seconds >"$work/attested-paced-$round.auth-before"
    run "attested-paced-$round" attested "$gateway_port" "$offsets" "$work/offsets-paced-$round" "$duration" "$paced_rate"
    auth_seconds >"$work/attested-paced-$round.auth-after"
    run "auth-paced-$round" auth "$port" "$work/offsets-paced-$round" "$work/offsets-auth-$round" "$duration" "$paced_rate"
    offsets="$work/offsets-auth-$round"
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---- report ----
failed=0
echo
echo "== AttestGuard gateway benchmark =="
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; load average $load_before before measuring, $load_after after"
echo "software: $(/usr/sbin/nginx -v 2>&1 | sed 's/^nginx version: //'), njs $(dpkg-query -W -f='${Version}' libnginx-mod-http-js 2>/dev/null || echo '?'); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2); attestguard serve (release) on PostgreSQL (scripts/postgres-start.sh)"
echo "load: wrk -t $connections -c $connections -d ${duration}s, closed loop, then $paced_rounds paced rounds of direct, attested and AttestGuard alone at $paced_rate req/s (latency from the scheduled send); POST /api/orders (token: /api/feed) {\"item\":\"sku-1\"}; nginx worker_processes $nginx_workers; wrk, nginx, AttestGuard and PostgreSQL share the cores"
echo
printf '| %-18s | %9s | %8s | %8s | %9s | %-22s |\n' round "req/s" "p50 ms" "p99 ms" requests "non-200 / sock.err / ex"
printf '|%s|%s|%s|%s|%s|%s|\n' --------------------  ----------- ---------- ---------- ----------- ------------------------
for name in $(for round in $(seq 1 "$rounds"); do echo "direct-$round attested-$round token-$round"; done) \
    $(for round in $(seq 1 "$paced_rounds"); do echo "direct-paced-$round attested-paced-$round auth-paced-$round"; done); do
    printf '| %-18s | %9.0f | %8.2f | %8.2f | %9d | %-22s |\n' "$name" "$(field "$name" rps)" "$(field "$name" p50_ms)" \
        "$(field "$name" p99_ms)" "$(field "$name" requests)" "$(field "$name" non200) / $(field "$name" socket_errors) / $(field "$name" exhausted)"
    if [ "$(field "$name" non200)" != 0 ] || [ "$(field "$name" socket_errors)" != 0 ] || [ "$(field "$name" exhausted)" != 0 ]; then
        failed=1
        echo "   $name: $(sed -n 's/.* first_error=//p' "$work/$name.result")"
    fi
done
direct_rps=$(summary direct rps); attested_rps=$(summary attested rps)
direct_p50=$(summary direct p50_ms); attested_p50=$(summary attested p50_ms)
direct_p99=$(summary direct p99_ms); attested_p99=$(summary attested p99_ms)
token_rps=$(summary token rps); token_p50=$(summary token p50_ms); token_p99=$(summary token p99_ms)
echo
awk -v dr="$direct_rps" -v ar="$attested_rps" -v d50="$direct_p50" -v a50="$attested_p50" -v d99="$direct_p99" -v a99="$attested_p99" 'BEGIN {
    printf "medians: direct %.0f req/s, p50 %.2f ms, p99 %.2f ms; attested %.0f req/s, p50 %.2f ms, p99 %.2f ms\n", dr, d50, d99, ar, a50, a99
    printf "forward-auth adds p50 %.2f ms, p99 %.2f ms; throughput ratio attested/direct %.3f\n", a50 - d50, a99 - d99, ar / dr
}'
awk -v dr="$direct_rps" -v tr="$token_rps" -v d50="$direct_p50" -v t50="$token_p50" -v d99="$direct_p99" -v t99="$token_p99" 'BEGIN {
    printf "token: %.0f req/s, p50 %.2f ms, p99 %.2f ms; adds p50 %.2f ms, p99 %.2f ms; p50 token/direct %.2f (goal <= 1.5); throughput ratio token/direct %.3f\n", tr, t50, t99, t50 - d50, t99 - d99, t50 / d50, tr / dr
}'
# Where the added time goes: the mean through nginx, less the direct path's mean, less the mean inside AttestGuard's
# forward-auth route; what is left is nginx's own work for forward-auth (njs reading and hashing the body, the
# subrequest) and the loopback hop to AttestGuard and back.
# server_mean KIND ROUNDS: the median over the rounds of the mean time inside AttestGuard's forward-auth route.
server_mean() {
    for round in $(seq 1 "$2"); do
        read -r sum0 count0 <"$work/$1-$round.auth-before"
        read -r sum1 count1 <"$work/$1-$round.auth-after"
        awk -v s0="$sum0" -v s1="$sum1" -v c="$((count1 - count0))" 'BEGIN { printf "%.3f\n", (c > 0 ? 1000 * (s1 - s0) / c : 0) }'
    done | median
}
direct_mean=$(summary direct mean_ms); attested_mean=$(summary attested mean_ms); inside_mean=$(server_mean attested "$rounds")
awk -v d="$direct_mean" -v a="$attested_mean" -v i="$inside_mean" 'BEGIN {
    printf "mean latency (medians of the rounds): direct %.2f ms, attested %.2f ms: forward-auth adds %.2f ms, of which %.2f ms inside AttestGuard (its forward-auth route, head to answer) and %.2f ms in nginx (njs, the subrequest) and the hop\n", d, a, a - d, i, a - d - i
}'
if [ "$paced_rounds" -gt 0 ]; then
    paced() { summary "$1-paced" "$2" "$paced_rounds"; }
    awk -v rate="$paced_rate" -v n="$paced_rounds" -v d50="$(paced direct p50_ms)" -v d99="$(paced direct p99_ms)" \
        -v a50="$(paced attested p50_ms)" -v a99="$(paced attested p99_ms)" -v dm="$(paced direct mean_ms)" \
        -v am="$(paced attested mean_ms)" -v i="$(server_mean attested-paced "$paced_rounds")" \
        -v g50="$(paced auth p50_ms)" -v g99="$(paced auth p99_ms)" \
        -v late="$(for round in $(seq 1 "$paced_rounds"); do field "direct-paced-$round" late_ms_p99; field "attested-paced-$round" late_ms_p99; field "auth-paced-$round" late_ms_p99; done | sort -g | tail -1)" 'BEGIN {
        printf "paced at %s req/s (medians of %d rounds, latency from the scheduled send): direct p50 %.2f ms, p99 %.2f ms; attested p50 %.2f ms, p99 %.2f ms\n", rate, n, d50, d99, a50, a99
        printf "paced: forward-auth adds p50 %.2f ms, p99 %.2f ms; mean %.2f ms, of which %.2f ms inside AttestGuard and %.2f ms in nginx and the hop; client p99 send lateness at most %.2f ms\n", a50 - d50, a99 - d99, am - dm, i, am - dm - i, late
        printf "paced, AttestGuard alone (its forward-auth route asked directly, no nginx): p50 %.2f ms, p99 %.2f ms; through nginx the attested request takes %.2f ms more at p50 than that plus the direct path\n", g50, g99, a50 - g50 - d50
        printf "goal for forward-auth (adds under 2 ms at p50 and under 5 ms at p99, paced): %s\n", (a50 - d50 < 2 && a99 - d99 < 5) ? "MET" : "MISSED"
    }'
fi
# cpu_per_request KIND ROUNDS COLUMN: the median over the rounds KIND-1 ... KIND-ROUNDS of one process's CPU per answered
# request in µs (COLUMN of $work/NAME.cpu: 1 AttestGuard, 2 PostgreSQL, 3 nginx).
cpu_per_request() {
    for round in $(seq 1 "$2"); do
        awk -v n="$(field "$1-$round" requests)" -v hz="$ticks_per_second" -v c="$3" \
            '{ printf "%.0f\n", (n > 0 ? $c * 1e6 / hz / n : 0) }' "$work/$1-$round.cpu"
    done | median
}
# cpu_line KIND ROUNDS: "A / P / N" µs per request of AttestGuard, PostgreSQL and nginx.
cpu_line() { echo "$(cpu_per_request "$1" "$2" 1) / $(cpu_per_request "$1" "$2" 2) / $(cpu_per_request "$1" "$2" 3)"; }
# A paced request costs more CPU than a closed-loop one (smaller batches; at a low rate, caches gone cold between
# requests): these lines show how much.
echo "CPU µs per request, AttestGuard / PostgreSQL / nginx (medians of the rounds): closed loop: direct $(cpu_line direct "$rounds"), attested $(cpu_line attested "$rounds")"
if [ "$paced_rounds" -gt 0 ]; then
    echo "CPU µs per request, paced at $paced_rate req/s: direct $(cpu_line direct-paced "$paced_rounds"), attested $(cpu_line attested-paced "$paced_rounds"), AttestGuard alone $(cpu_line auth-paced "$paced_rounds")"
    echo "tails of the paced attested and AttestGuard-alone rounds (Benchmarks/http/tail.py: where each round's slowest 1 % fell in time; a stall is a 10 ms window of at least three sends whose median request took over 3x the round's median and over 5 ms):"
    python3 "$here/http/tail.py" $(for round in $(seq 1 "$paced_rounds"); do
        for kind in attested auth; do echo "$kind-paced-$round=$work/$kind-paced-$round.samples"; done
    done) | sed 's/^/  /'
fi
[ "$failed" = 0 ] || { echo "some requests failed: the figures are not valid" >&2; exit 1; }
