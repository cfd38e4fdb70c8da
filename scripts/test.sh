#!/usr/bin/env bash
# The project's one test command (README "Testing"); .ci/run calls exactly this.
# Installs the Debian packages the tests run (curl, nginx with njs, Caddy, promtool, PyYAML, PgBouncer) when missing, checks the
# alert rules and Grafana provisioning in Dashboards/, builds everything (library, CLI, tests), starts a throw-away
# PostgreSQL (unless ATTESTGUARD_TEST_DATABASE_URL names one), runs the whole test suite against PostgreSQL and SQLite
# (the gateway tests start nginx and Caddy themselves), runs Schemathesis against a live server, checks the packaging
# (scripts/check-packaging.sh), and stops the database again.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/check-dashboards.py  # Dashboards/*.json query only metrics Sources defines, and show every one

if ! command -v swift >/dev/null 2>&1; then
    echo "swift is not on PATH; install Swift 6.1 or newer" >&2
    exit 1
fi

# Debian packages the tests run: curl (the README's quick start, run as written), nginx with njs and Caddy (the
# gateway tests, in front of the server), promtool (in Debian's prometheus package: the alert rules below, the live
# server's /metrics) and PyYAML (the Grafana provisioning check below). Only what is missing is installed; RUNLEVEL=1 keeps the packages from
# starting their system services (nginx, Caddy, Prometheus).
missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
[ -f /usr/lib/nginx/modules/ngx_http_js_module.so ] || missing+=(libnginx-mod-http-js)
[ -x /usr/bin/caddy ] || missing+=(caddy)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
# Headless Chromium loads the console's pages (ConsoleBrowserProcessTests, through scripts/console-browser.py).
[ -x /usr/bin/chromium ] || missing+=(chromium)
python3 -c 'import yaml' >/dev/null 2>&1 || /usr/bin/python3 -c 'import yaml' >/dev/null 2>&1 || missing+=(python3-yaml)
# venv with pip (scripts/python-tools.sh, scripts/schemathesis.sh); Debian's python3 has it only from python3-venv.
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
# PgBouncer in transaction mode in front of the test PostgreSQL (Tests/AttestTestSupport/TestPgBouncer.swift starts it):
# the store conformance suite also runs through it with database.pooler: transaction.
[ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then as_root=(); else as_root=(sudo); fi
    echo "test.sh: installing ${missing[*]}" >&2
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Alerts and dashboards as files (Dashboards/README.md), before the build so that they fail fast: the rules parse and
# their unit tests pass; every alert has a severity, a runbook section and a firing and a quiet test; the Grafana
# provisioning parses and every dashboard loads on the provisioned data source.
promtool check rules Dashboards/alerts/*.rules.yml
promtool test rules Dashboards/alerts/*.test.yml
python3 scripts/check-operations.py

if [ -z "${ATTESTGUARD_TEST_DATABASE_URL:-}" ]; then
    state_file=$(mktemp)
    cleanup() {
        if [ -s "$state_file" ]; then scripts/postgres-stop.sh "$(cat "$state_file")" || true; fi
        rm -f "$state_file"
    }
    trap cleanup EXIT
    # pg_stat_statements (in Debian's postgresql package) lets a test count the statements the store sends. Its entries
    # are per role and per schema's tables, and the suite makes hundreds of schemas and roles: room for 50,000 entries
    # (about 25 MB of shared memory) keeps it from evicting the entries a test is counting (5,000 by default).
    if url=$(ATTESTGUARD_PG_STATE_FILE="$state_file" \
        ATTESTGUARD_PG_OPTIONS="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.max=50000 ${ATTESTGUARD_PG_OPTIONS:-}" \
        scripts/postgres-start.sh); then
        export ATTESTGUARD_TEST_DATABASE_URL="$url"
    elif [ "${CI:-}" = "true" ]; then
        echo "test.sh: could not start PostgreSQL, and CI requires it" >&2
        exit 1
    else
        echo "test.sh: could not start PostgreSQL; PostgreSQL tests are left out (they fail under CI=true)" >&2
    fi
fi

swift build --build-tests
# Every test is swift-testing; skipping the empty XCTest pass keeps the summary line unambiguous.
swift test --skip-build --disable-xctest
# The live server against its own OpenAPI document: every documented route, conforming responses, no 5xx.
scripts/api-conformance.sh "$(swift build --show-bin-path)/attestguard"
# The Containerfile's build step run here (a debug build in .build-package), its binary's libraries against the image's
# package list, and the systemd units through systemd-analyze verify. No image is built.
scripts/check-packaging.sh
