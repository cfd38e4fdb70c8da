#!/usr/bin/env bash
# AttestGuard beside a Python peer of its assertion route: one sitting, the one command.
#
#   ./Benchmarks/peer.sh [ROUNDS]                (from any directory; 2 rounds by default)
#   ./Benchmarks/peer.sh --peer-only [ROUNDS]    the peer's half alone (no Swift build; the summary has no ratio)
#   ./Benchmarks/peer.sh --summary FOLDER        print a sitting's summary again
#   ./Benchmarks/peer.sh --help
#
# A sitting runs, ROUNDS times and back to back on this machine, AttestGuard's Benchmarks/http.sh and the Python
# peer's Benchmarks/peer/run.sh (Benchmarks/peer/app.py: POST /v1/assertions verified and committed as AttestGuard
# does, with a constant verdict), each under the same load (wrk with Benchmarks/http/bench.lua, the same connections,
# warm-ups and durations) on a throw-away PostgreSQL of its own, so that a change in the machine's speed falls on
# both. Then Benchmarks/peer/summarize.py prints the table of both (GET /healthz, POST /v1/assertions, and the same
# with durable PostgreSQL: req/s, latency, CPU per request of the server and of PostgreSQL) and, for every round with
# both halves valid, the ratios AttestGuard / peer, and their mean.
#
# Steps: the peer's virtualenv first (Benchmarks/peer/venv.sh: .build-peer/venv at the repository's root, from
# Benchmarks/peer/requirements.txt, created when missing; needs PyPI the first time); then per round http.sh (which
# builds `attestguard` and HTTPBenchPrep in release mode unless HTTP_BENCH_NO_BUILD=1, and installs wrk when
# missing) and run.sh, each with HTTP_BENCH_KEEP=1; after each, the small files of its work folder (wrk's RESULT
# lines, CPU seconds, wrk outputs) are copied into the sitting's folder and the work folder (with its prepared
# bodies) is deleted. A half that fails leaves its log and exit status, and the sitting goes on.
#
# Results: PEER_SITTINGS/<UTC time>/ (default .build-peer/sittings at the repository's root, git-ignored):
# machine.txt, SIDE-N.log (the script's whole output, with its own table), SIDE-N.exit, SIDE-N/ (the copied files),
# summary.md.
#
# Environment: PEER_SITTINGS (above); everything else goes to both halves, so both see the same load:
# HTTP_BENCH_CONNECTIONS [16], HTTP_BENCH_DURATION [20], HTTP_BENCH_WARMUP [3], HTTP_BENCH_ASSERTION_WARMUP [2],
# HTTP_BENCH_PER_KEY (http.sh 22000, run.sh 10000), HTTP_BENCH_POOL [16], HTTP_BENCH_PG_OPTIONS, and
# HTTP_BENCH_NO_BUILD and SWIFT for http.sh, PEER_WORKERS and PEER_POOL_SIZE for run.sh (see both scripts); PYTHON
# picks the interpreter the virtualenv is made from.
# Exit status: 0 only if every half that was to run ran and was valid (every measured request answered 200).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

peer_only=0
case "${1:-}" in
-h | --help) usage; exit 0 ;;
--summary)
    [ -n "${2:-}" ] && [ -d "$2" ] || { echo "usage: $0 --summary FOLDER (a sitting's folder)" >&2; exit 2; }
    exec python3 "$here/peer/summarize.py" "$2" ;;
--peer-only) peer_only=1; shift ;;
esac
rounds="${1:-2}"
case "$rounds" in '' | *[!0-9]* | 0) echo "ROUNDS must be a positive number, not '$rounds' (see $0 --help)" >&2; exit 2 ;; esac
[ $# -le 1 ] || { echo "unexpected arguments: $* (see $0 --help)" >&2; exit 2; }

PEER_PYTHON="$("$here/peer/venv.sh")" || { echo "the peer's virtualenv could not be made (Benchmarks/peer/venv.sh)" >&2; exit 1; }
export PEER_PYTHON
sittings="${PEER_SITTINGS:-$(cd "$here/.." && pwd)/.build-peer/sittings}"
out="$sittings/$(date -u +%Y-%m-%dT%H%M%SZ)"
mkdir -p "$out"

# collect LOG DEST: copies the small files of the work folder LOG names ("work folder kept: ..."), then deletes it.
collect() {
    local log=$1 dest=$2 kept
    kept="$(sed -n 's/^work folder kept: //p' "$log" | tail -1)"
    mkdir -p "$dest"
    if [ -n "$kept" ] && [ -d "$kept" ]; then
        cp "$kept"/*.result "$kept"/*.cpu "$kept"/*.out "$dest"/ 2>/dev/null || true
        cp "$kept"/*.split "$dest"/ 2>/dev/null || true
        case "$kept" in /tmp/attestguard-http-bench.* | /tmp/attestguard-peer-bench.*) rm -rf "$kept" ;; esac
    fi
}
# On exit (also Ctrl-C), the work folder of a half that was interrupted is collected and deleted too.
current_log=""
current_dest=""
finish() { if [ -n "$current_log" ] && [ -f "$current_log" ]; then collect "$current_log" "$current_dest"; fi; }
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# half SIDE ROUND COMMAND...: runs one half with its output in SIDE-ROUND.log, its exit status in SIDE-ROUND.exit.
failed=0
half() {
    local side=$1 round=$2 status
    shift 2
    current_log="$out/$side-$round.log"
    current_dest="$out/$side-$round"
    echo "round $round $side: start $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
    HTTP_BENCH_KEEP=1 "$@" >"$current_log" 2>&1
    status=$?
    echo "$status" >"$out/$side-$round.exit"
    collect "$current_log" "$current_dest"
    current_log=""
    echo "round $round $side: exit $status, end $(date -u +%T)"
    [ "$status" -eq 0 ] || failed=1
}

{
    echo "started $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo); $(uname -sr)"
    knobs="$(env | grep -E '^(HTTP_BENCH_|PEER_WORKERS=|PEER_POOL_SIZE=|SWIFT=)' | sort | tr '\n' ' ' | sed 's/ $//')"
    echo "command: ${knobs:+$knobs }./Benchmarks/peer.sh $([ "$peer_only" = 1 ] && printf -- '--peer-only ')$rounds"
} >"$out/machine.txt"
echo "== sitting: $rounds round(s) of AttestGuard (Benchmarks/http.sh) and the Python peer (Benchmarks/peer/run.sh); results in $out =="
for round in $(seq 1 "$rounds"); do
    if [ "$peer_only" = 1 ]; then
        echo skipped >"$out/attestguard-$round.exit"
        echo "round $round attestguard: skipped (--peer-only)"
    else
        half attestguard "$round" "$here/http.sh"
    fi
    half peer "$round" "$here/peer/run.sh"
done
echo "ended $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
echo
python3 "$here/peer/summarize.py" "$out" | tee "$out/summary.md"
echo
echo "sitting folder: $out"
exit "$failed"
