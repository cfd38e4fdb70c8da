#!/usr/bin/env bash
# Runs Schemathesis against a live `attestguard serve` (simulator mode, SQLite in a temp folder, port chosen by
# the OS) and its own /openapi.yaml, then stops the server. Used by scripts/test.sh after the unit tests.
#   scripts/api-conformance.sh [path to the attestguard binary, default .build/debug/attestguard]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-.build/debug/attestguard}")
rules=$(realpath Rules)
work=$(mktemp -d)
server_pid=
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

api_key="conformance-key-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
# The example route policy for any host (Schemathesis's requests carry the server's own address as Host), so that
# fuzzed forward-auth requests reach every kind of route, not only route_not_covered.
mkdir -p "$work/policy"
grep -v '^hosts:' Gateway/policy/example.yaml >"$work/policy/example.yaml"
(
    cd "$work"
    exec env -i PATH="$PATH" HOME="${HOME:-/root}" \
        ATTESTGUARD_MODE=simulator ATTESTGUARD_SERVER_PORT=0 ATTESTGUARD_LOG_LEVEL=info ATTESTGUARD_LOG_FORMAT=json \
        ATTESTGUARD_API_KEYS_NAMES=conformance ATTESTGUARD_API_KEYS_CONFORMANCE_SECRET_ENV=CONFORMANCE_KEY \
        ATTESTGUARD_API_KEYS_CONFORMANCE_SCOPES=verify,score,gateway,admin,devicecheck:read,devicecheck:write CONFORMANCE_KEY="$api_key" \
        ATTESTGUARD_CHALLENGES_MAX_PER_USER=100000 ATTESTGUARD_RULES_DIRECTORY="$rules" ATTESTGUARD_GATEWAY_POLICY_DIRECTORY="$work/policy" \
        ATTESTGUARD_APPS_NAMES=sample,shop \
        ATTESTGUARD_APPS_SAMPLE_APP_ID=ABCDE12345.com.example.attestguard ATTESTGUARD_APPS_SAMPLE_ENVIRONMENTS=development \
        ATTESTGUARD_APPS_SHOP_APP_ID=ABCDE12345.com.example.shop ATTESTGUARD_APPS_SHOP_ENVIRONMENTS=development,production \
        "$binary" serve >"$work/serve.out" 2>"$work/serve.err"
) &
server_pid=$!
for _ in $(seq 1 100); do
    grep -q "listening on" "$work/serve.out" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.err" >&2; echo "api-conformance: the server did not start" >&2; exit 1; }
    sleep 0.1
done
base_url=$(grep -o 'http://[^ ]*' "$work/serve.out" | head -1)
[ -n "$base_url" ] || { echo "api-conformance: no listening line" >&2; exit 1; }
echo "api-conformance: Schemathesis against $base_url" >&2
status=0
scripts/schemathesis.sh "$base_url" "$api_key" || status=$?
# What Prometheus scrapes after every route has been exercised: promtool's lint (HELP and TYPE on every family,
# counters named _total, ...), and a request series for every documented route but /metrics, whose scrapes are
# not counted.
curl -sf "$base_url/metrics" >"$work/metrics.txt" || { echo "api-conformance: GET /metrics failed" >&2; status=1; }
if ! promtool check metrics <"$work/metrics.txt" >"$work/promtool.out" 2>&1; then
    echo "api-conformance: promtool check metrics failed on /metrics:" >&2
    cat "$work/promtool.out" >&2
    status=1
fi
for path in $(grep -E '^  /' OpenAPI/openapi.yaml | tr -d ' :'); do
    [ "$path" = /metrics ] && continue
    # Each route's 5xx series exist at 0 from the start: a route was exercised when one of its series is above 0.
    if ! grep -qE "^attestguard_http_requests_total\{route=\"$path\",.*\} [1-9]" "$work/metrics.txt"; then
        echo "api-conformance: no request counted for $path" >&2
        status=1
    fi
done
# The log, in JSON mode with an access line per request: every line one JSON record a shipper can read.
kill -TERM "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true
server_pid=
python3 scripts/check-logs.py --format json "$work/serve.err" || status=1
# Without Apple credentials the DeviceCheck routes (the app-facing one too) answer 503 devicecheck_unavailable, and
# forward-auth without the gateway's key 500 gateway_unauthorized, logged like every 5xx: expected here, so those
# lines alone are left out.
errors=$(python3 scripts/check-logs.py --format json --print-level error "$work/serve.err" 2>/dev/null \
    | grep -Ev 'path=/v1/(devicecheck/[a-z]+|app/devicecheck) .*status=503 ' \
    | grep -Ev 'code=gateway_unauthorized .*path=/v1/(gateway/auth|app/[a-z-]+) ' || true)
if [ -n "$errors" ]; then
    echo "api-conformance: the server logged errors:" >&2
    echo "$errors" | head -20 >&2
    status=1
fi
grep -q '"msg":"attestguard stopped"' "$work/serve.err" || { echo "api-conformance: no 'attestguard stopped' line after SIGTERM" >&2; status=1; }
exit $status
