#!/usr/bin/env bash
# The project's one test command (README "Testing"); .ci/run calls exactly this.
# Builds everything (library, CLI, tests) while it installs, beside the build, the Debian packages the tests run (curl,
# nginx with njs, Caddy, promtool, PyYAML, PgBouncer, PostgreSQL, Chromium) when missing and the Python tools; then
# checks the alert rules and Grafana provisioning in Dashboards/, starts a throw-away PostgreSQL (unless
# ATTESTGUARD_TEST_DATABASE_URL names one), runs the whole test suite against PostgreSQL and SQLite (the gateway tests
# start nginx and Caddy themselves), runs Schemathesis against a live server, checks the packaging
# (scripts/check-packaging.sh), and stops the database again. At the end (also after a failure) it prints the wall
# time of each phase.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/as-root.sh
source scripts/as-root.sh

# Phases: `phase NAME` ends the running one and starts NAME; the EXIT trap prints them all, then stops PostgreSQL.
phase_name=
phase_started=$SECONDS
phase_lines=()
phase() {
    if [ -n "$phase_name" ]; then phase_lines+=("$(printf '%6d s  %s' $((SECONDS - phase_started)) "$phase_name")"); fi
    phase_name=$1
    phase_started=$SECONDS
}
state_file=
prepare_pid=
prepare_log=
# The run's temp folder: the tests' SQLite files, configurations and logs and the compiler's scratch files go there
# (TMPDIR), and it is removed at the end, so that runs on one machine leave nothing behind. Sticky and writable by all
# like /tmp: the tests start PgBouncer and PostgreSQL's tools as the postgres user on files they write there.
run_tmp=$(mktemp -d /tmp/attestguard-run.XXXXXX)
chmod 1777 "$run_tmp"
export TMPDIR="$run_tmp"
finish() {
    local status=$?
    # An install beside a failed build is left to finish, not killed half-way through dpkg.
    if [ -n "$prepare_pid" ]; then wait "$prepare_pid" || true; fi
    if [ -n "$prepare_log" ]; then rm -f "$prepare_log"; fi
    if [ -n "$phase_name" ]; then
        [ "$status" -eq 0 ] || phase_name="$phase_name (failed, exit $status)"
        phase ""
    fi
    echo "test.sh: wall time by phase" >&2
    printf '  %s\n' "${phase_lines[@]}" >&2
    printf '  %6d s  in all\n' "$SECONDS" >&2
    if [ -n "$state_file" ]; then
        if [ -s "$state_file" ]; then scripts/postgres-stop.sh "$(cat "$state_file")" || true; fi
        rm -f "$state_file"
    fi
    rm -rf "$run_tmp"
    exit "$status"
}
trap finish EXIT

phase "dashboards"
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
# man renders the staged manual page (scripts/check-packaging.sh).
command -v man >/dev/null 2>&1 || missing+=(man-db)
# PostgreSQL itself (scripts/postgres-start.sh would install it too, but in the way of the build).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)

# The packages and the Python tools (scripts/python-tools.sh's and Schemathesis's virtualenvs) are installed beside the
# build, which needs none of them: on a fresh machine the downloads and unpacking hide behind its CPU work. Their output
# goes to a file, printed when they fail.
prepare_log=$(mktemp)
prepare() {
    if [ ${#missing[@]} -gt 0 ]; then
        echo "test.sh: installing ${missing[*]}"
        apt_install "${missing[@]}"
    fi
    scripts/python-tools.sh >/dev/null
    scripts/schemathesis.sh --install
}
(set -euo pipefail; prepare) >"$prepare_log" 2>&1 &
prepare_pid=$!

phase "build"
build_flags=()
if [ "${CI:-}" = "true" ]; then
    # CI builds once on a fresh machine: no DWARF (a test's failure names its file and line without it; a crash's
    # backtrace keeps the function names). The index store stays: on Linux SwiftPM finds the tests through it, and
    # `--disable-index-store` fails the build at test discovery. Locally the flags stay SwiftPM's defaults, so that
    # this command and a plain `swift build` share one build folder without rebuilding each other.
    build_flags+=(-debug-info-format none)
fi
swift build --build-tests "${build_flags[@]}"
# argument-parser's generate-manual beside the binary: the packaging check writes the manual page with it.
swift build "${build_flags[@]}" --product generate-manual

phase "packages and Python tools (the wait after the build)"
prepared=0
wait "$prepare_pid" || prepared=$?
prepare_pid=
if [ "$prepared" -ne 0 ]; then
    cat "$prepare_log" >&2
    echo "test.sh: installing the packages and Python tools failed (exit $prepared, above)" >&2
    exit 1
fi
grep -h '^test.sh: installing' "$prepare_log" >&2 || true

# Alerts and dashboards as files (Dashboards/README.md): the rules parse and their unit tests pass; every alert has a
# severity, a runbook section and a firing and a quiet test; the Grafana provisioning parses and every dashboard loads on
# the provisioned data source.
phase "alerts and runbooks"
promtool check rules Dashboards/alerts/*.rules.yml
promtool test rules Dashboards/alerts/*.test.yml
python3 scripts/check-operations.py

phase "PostgreSQL"
if [ -z "${ATTESTGUARD_TEST_DATABASE_URL:-}" ]; then
    state_file=$(mktemp)
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

# The suite runs in two passes over one build: the in-process tests, then the process-level system tests
# (AttestGuardCLITests: `attestguard` processes, the gateways, PgBouncer, failover, Chromium). Swift Testing starts
# every test of a run at once, and on two cores the two halves together cost about a third more CPU than one after
# the other (hundreds of live servers, database connections and child processes at a time, PostgreSQL's catalog
# invalidations reaching every open backend), and a longer run besides. One pattern serves as the second pass's
# filter and the first one's skip, so that together they run every test exactly once.
system_tests='^AttestGuardCLITests\.'
# Swift Testing captures a backtrace at every thrown Swift error by default, so that a test failing on an error can say
# where it was thrown; the console output names the failing test and the error without it. The code under test throws
# and catches errors by design (every refused input is a typed error), and on Linux each capture unwinds the stack
# through libgcc: a fifth of the test process's CPU in the in-process pass, about 40 s of its wall time on two cores.
# Off for the run.
export SWT_SWIFT_ERROR_BACKTRACING_ENABLED=0
# Every test is swift-testing; skipping the empty XCTest pass keeps each summary line unambiguous.
phase "test suite: in-process tests"
swift test --skip-build --disable-xctest --skip "$system_tests"
phase "test suite: system tests"
swift test --skip-build --disable-xctest --filter "$system_tests"
phase "Schemathesis"
# The live server against its own OpenAPI document: every documented route, conforming responses, no 5xx.
scripts/api-conformance.sh "$(swift build --show-bin-path)/attestguard"
phase "documentation catalogs"
# The client libraries' DocC catalogs and doc comments build with warnings as errors (symbol links, articles).
scripts/check-docc.sh "$(swift build --show-bin-path)"
phase "packaging"
# The Containerfile's build step staging this build's binary, its libraries against the image's package list (the
# Swift runtime aside, which the image's build links statically), and the systemd units through systemd-analyze
# verify. No image is built; scripts/check-packaging.sh without --binary also builds the image's static binary.
scripts/check-packaging.sh --binary "$(swift build --show-bin-path)/attestguard"
