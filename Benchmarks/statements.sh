#!/usr/bin/env bash
# AttestGuard statement benchmark: how many instructions PostgreSQL executes for one execution of the assertions'
# batch commit, the statement every accepted assertion waits for.
#
#   ./Benchmarks/statements.sh            (from any directory)
#
# PostgreSQL's CPU per request on this shared 2-core guest moves by ±10 % between runs, more than most changes to a
# statement are worth. An instruction count does not: PostgreSQL in single-user mode (`postgres --single`) runs the
# statement under valgrind's callgrind, the same count for the same text, plan and rows whatever else the machine
# does, and says where in PostgreSQL the instructions go.
#
# Steps: build `attestguard` and HTTPBenchPrep (release, Benchmarks/.build; as http.sh does) unless
# HTTP_BENCH_NO_BUILD=1; a throw-away PostgreSQL with pg_stat_statements, the server with the shipped Rules/,
# STMT_BENCH_BATCH simulated keys sharing STMT_BENCH_CHALLENGES open assertion challenges and 100 score keys prepared through the API (as
# http.sh does; with a few hundred challenges PostgreSQL would read them all by a hash join instead of by the primary
# key, as it does on any database of some size); 2 s of paced assertions, so that the server prepares its commit statement; its text read from
# pg_stat_statements. Then the server and PostgreSQL stop, and for each of two scripts (the statement prepared, then
# executed STMT_BENCH_BASE and STMT_BENCH_BASE + STMT_BENCH_EXECUTIONS times) a fresh copy of the database runs it in
# `postgres --single` under callgrind. Each execution is a batch of STMT_BENCH_BATCH assertions (one by default) that
# are all accepted, one per key: each key's next open challenge and next counter, with no velocity sums, distinct
# counts or labels asked. A batch of one pays the statement's fixed cost alone; the count of a batch of N less that of
# a batch of one, over N - 1, is what each further entry costs. The difference of the two counts over
# STMT_BENCH_EXECUTIONS is one execution with the generic plan the server uses (PostgreSQL plans the first five for
# their values; both scripts hold them).
#
# The count includes what single-user mode adds to an execution and the wire protocol does not: the `EXECUTE`
# line's parse and its parameters' evaluation, and the answer printed to the terminal (together about 260,000
# instructions for a batch of one). Compare counts with each other, not with the server's. The printing (`debugtup`:
# every column of every answer row as text) grows with the columns and rows a statement returns, so the count
# without it is printed too: compare that one for a change to what a statement returns (the wire protocol sends
# the same columns in binary, far cheaper).
#
# Prints the per-execution count and, with STMT_BENCH_FUNCTIONS=N (default 25; 0: none), the N PostgreSQL functions
# with the most inclusive instructions per execution. STMT_BENCH_TEXT=FILE runs that statement text instead of the
# server's (an edited copy of the server's, kept with HTTP_BENCH_KEEP=1, to try a change without building);
# STMT_BENCH_BIN: the server binary (default Benchmarks/.build/release/attestguard).
#
# Environment (defaults in brackets): STMT_BENCH_BATCH [1] (assertions an execution, one key each; up to 16),
# STMT_BENCH_CHALLENGES [4000] (open challenges in all, shared by the keys), STMT_BENCH_BASE [20], STMT_BENCH_EXECUTIONS [100],
# STMT_BENCH_FUNCTIONS [25], STMT_BENCH_TEXT [], STMT_BENCH_BIN [], HTTP_BENCH_NO_BUILD [0], HTTP_BENCH_KEEP [0] (keep
# the work folder: the statement's text, the scripts and the callgrind files), SWIFT.
# Needs valgrind (installed with apt-get when missing). Time: about 2 minutes after the build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
seed="attestguard-bench"
app_id="ABCDE12345.com.example.bench"
lua="$here/http/bench.lua"
challenges="${STMT_BENCH_CHALLENGES:-4000}"
base="${STMT_BENCH_BASE:-20}"
executions="${STMT_BENCH_EXECUTIONS:-100}"
functions="${STMT_BENCH_FUNCTIONS:-25}"
batch="${STMT_BENCH_BATCH:-1}"
connections=16
export HTTP_BENCH_PG_STATEMENTS=1

. "$here/http/common.sh"
bench_require_tools
command -v valgrind >/dev/null 2>&1 || {
    apt_install valgrind >/dev/null 2>&1 ||
        { echo "statements.sh needs valgrind (Debian package valgrind)" >&2; exit 1; }
}
bench_binaries
[ -n "${STMT_BENCH_BIN:-}" ] && server_bin="$STMT_BENCH_BIN"
[ "$base" -ge 6 ] || { echo "STMT_BENCH_BASE must be at least 6 (PostgreSQL plans the first five executions for their values)" >&2; exit 1; }
case "$batch" in [1-9] | 1[0-6]) ;; *) echo "STMT_BENCH_BATCH must be 1 to 16" >&2; exit 1 ;; esac
# Each key gets its share of the challenges; the first key's also serve the warm-up (about 64; 100 kept for it).
per_key=$(((challenges + batch - 1) / batch))
[ "$per_key" -ge $((base + executions + 100)) ] ||
    { echo "STMT_BENCH_CHALLENGES / STMT_BENCH_BATCH must leave STMT_BENCH_BASE + STMT_BENCH_EXECUTIONS open after a margin of 100 for the warm-up" >&2; exit 1; }

bench_begin attestguard-statements-bench
bench_start_postgres
port="$(bench_free_port)"
url="http://127.0.0.1:$port"
BENCH_API_KEY="bench-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
export BENCH_API_KEY
bench_write_config "$work/config.yaml" "$port" 16 true
bench_start_server server "$work/config.yaml" "$url"
bench_prepare "$url" "$batch" "$per_key" 100

# Paced assertions on the first key's connection, 32 a second: the server prepares its commit statement in the first
# second. pg_stat_statements keeps the text it first sees; the one it sees at a statement's preparation has its
# constants replaced by placeholders. Emptied after that second, it keeps the text as the server sent it.
echo "== 2 s of paced assertions, then the commit statement's text =="
connections=1
psql_ "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
bench_run_wrk warm-up 1 assertions "$work/bodies" - "$work/offsets-1" 32 1
psql_ "SELECT pg_stat_statements_reset()" >/dev/null
bench_run_wrk warm-up-2 1 assertions "$work/bodies" "$work/offsets-1" "$work/offsets" 32 1
psql_ "SELECT query FROM pg_stat_statements WHERE query LIKE '%open_challenge%advancing_key%'
       ORDER BY calls DESC LIMIT 1" >"$work/server-statement.sql"
[ -s "$work/server-statement.sql" ] || { echo "no commit statement in pg_stat_statements" >&2; exit 1; }
statement="$work/server-statement.sql"
[ -n "${STMT_BENCH_TEXT:-}" ] && statement="$STMT_BENCH_TEXT"

# The parameters this script writes follow the statement's layout (CommitAssertionsStatement, BatchedFactsParameters):
# a text that declares others is refused rather than measured wrongly.
# The commit's 10 arrays, the facts' 12 scalar arrays, then the 16 lists: each list with the array of where each
# entry's run of it ends (int8) before it, and the distinct counts' excluded members after where each count's run ends.
# The server declares every parameter's type when it prepares the statement, and a text may leave some unread (the
# DeviceCheck lists, when the daily facts come from the process's cache): the script prepares it with the whole
# layout's types, and each parameter the text casts must be cast to its type in the layout.
expected_types="bytea text text text bytea timestamptz timestamptz int8 bool text text bool bytea bool bool timestamptz bool text bool text bool text"
expected_lists="int8 text int8 text text int8 bytea int8 int8 text text int8 bytea int8 int8 bytea"
declared="$(grep -o '\$[0-9]*::[a-z0-9]*\[\]' "$statement" | sort -t'$' -k2 -n -u | sed 's/\[\]//' | tr '\n' ' ')"
python3 - "$expected_types $expected_lists" "$declared" <<'EOF_LAYOUT' || exit 1
import sys
layout = sys.argv[1].split()
for cast in sys.argv[2].split():
    number, kind = cast.lstrip("$").split("::")
    if int(number) > len(layout) or layout[int(number) - 1] != kind:
        sys.exit(f"the statement's parameter ${number} is {kind}[], not the layout this script writes: {sys.argv[2]}")
EOF_LAYOUT
parameter_types="$(for kind in $expected_types $expected_lists; do printf '%s[], ' "$kind"; done)"
parameter_types="${parameter_types%, }"
list_parameters=$(($(echo "$expected_types $expected_lists" | wc -w) - 22))
highest="$(grep -o '\$[0-9]*' "$statement" | tr -d '$' | sort -n | tail -1)"
[ "$highest" -le $((list_parameters + 22)) ] ||
    { echo "the statement has placeholders past the layout's parameters (\$$highest): not the text the server sent" >&2; exit 1; }

# The keys (each with its user and counter), and each key's open challenges, oldest first: keys.txt, challenges-K.txt.
psql_ "SELECT encode(key_id, 'hex') || ' ' || user_id || ' ' || counter FROM app_keys
       WHERE key_id IN (SELECT key_id FROM challenges WHERE consumed_at IS NULL AND key_id IS NOT NULL) ORDER BY key_id" >"$work/keys.txt"
[ "$(wc -l <"$work/keys.txt")" -eq "$batch" ] || { echo "expected $batch keys with open challenges: $work/keys.txt" >&2; exit 1; }
key_index=0
while read -r key_hex _ _; do
    psql_ "SELECT encode(id, 'hex') FROM challenges WHERE consumed_at IS NULL AND key_id = '\\x$key_hex'::bytea
           ORDER BY issued_at, id LIMIT $((base + executions))" >"$work/challenges-$key_index.txt"
    [ "$(wc -l <"$work/challenges-$key_index.txt")" -eq $((base + executions)) ] || { echo "too few open challenges" >&2; exit 1; }
    key_index=$((key_index + 1))
done <"$work/keys.txt"
# The generic plan, as the server's connections run it after their fifth execution: its node count, and whether it
# reads the challenges and keys by their primary keys (the plan of any database of some size).
nulls="$(seq 1 $((list_parameters + 22)) | sed 's/.*/NULL/' | paste -sd, -)"
"$pg_bin/psql" "$pg_url" -X -q -v ON_ERROR_STOP=1 >"$work/plan.txt" <<EOF_PLAN
SET plan_cache_mode = force_generic_plan;
PREPARE s($parameter_types) AS $(cat "$statement");
EXPLAIN (COSTS OFF) EXECUTE s($nulls);
EOF_PLAN
plan_nodes="$(grep -c -- '->' "$work/plan.txt")"
if ! grep -q 'challenges_pkey' "$work/plan.txt" || grep -q 'Seq Scan on challenges' "$work/plan.txt"; then
    echo "the generic plan does not read the challenges by their primary key (raise STMT_BENCH_CHALLENGES): $work/plan.txt" >&2
    HTTP_BENCH_KEEP=1
    exit 1
fi
data="$pg_state/data"
as_root runuser -u postgres -- "$pg_bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
for pid in $server_pids; do kill -TERM "$pid" 2>/dev/null || true; bench_await_exit "$pid"; done
server_pids=""
server_names=""

# script N FILE: the statement prepared, then executed N times in single-user mode's syntax (-j: a command ends with
# a semicolon and an empty line), each a batch of one entry per key.
script() {
    python3 - "$1" "$statement" "$work" "$app_id" "$list_parameters" "$parameter_types" >"$2" <<'EOF_SCRIPT'
import sys
n, statement, work, app_id, list_parameters = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
parameter_types = sys.argv[6]
keys = [line.split() for line in open(f"{work}/keys.txt") if line.strip()]
challenges = [open(f"{work}/challenges-{k}.txt").read().split() for k in range(len(keys))]
def array(values, cast=""):
    return "ARRAY[" + ", ".join(v + cast for v in values) + "]"
def each(value, cast=""):
    return array([value] * len(keys), cast)
def hex_bytes(values):
    return array([f"'\\x{v}'" for v in values], "::bytea")
# The entries' runs are empty: each of the five lists' runs ends at 0 for every entry (lists 1, 3, 6, 9 and 12), as
# the server sends for entries that ask for none; no distinct count, so no excluded members' ends either.
ends = "'{" + ",".join("0" for _ in keys) + "}'"
lists = "".join(", " + (ends if p in (1, 3, 6, 9, 12) else "'{}'") for p in range(1, list_parameters + 1))
print(f"PREPARE s({parameter_types}) AS {open(statement).read().strip()};\n")
for i in range(1, n + 1):
    key_hexes = [k[0] for k in keys]
    print("EXECUTE s(" + ", ".join([
        hex_bytes([challenges[k][i - 1] for k in range(len(keys))]), each(f"'{app_id}'"), each("'assertion'"),
        array([f"'{k[1]}'" for k in keys]), hex_bytes(key_hexes), each("now()"), each("now()"),
        array([str(int(k[2]) + i) for k in keys], "::int8"), each("false"), each("''"),
        each(f"'{app_id}'"), each("true"), hex_bytes(key_hexes), each("false"), each("false"), each("now()"),
        each("false"), each("'development'"), each("false"), each("''"), each("false"), each("''"),
    ]) + lists + ");\n")
EOF_SCRIPT
}

# count N: instructions of single-user PostgreSQL running the script of N executions on a fresh copy of the database.
count() {
    local n=$1 copy="$work/data-$1"
    script "$n" "$work/script-$n.sql"
    rm -rf "$copy"
    cp -a "$data" "$copy"
    chmod 777 "$work"
    as_root runuser -u postgres -- valgrind --tool=callgrind --callgrind-out-file="$work/callgrind-$n.out" \
        "$pg_bin/postgres" --single -j -D "$copy" -c shared_preload_libraries= postgres \
        <"$work/script-$n.sql" >"$work/single-$n.out" 2>"$work/valgrind-$n.log"
    rm -rf "$copy"
    # Every entry of every execution must have been accepted: its answer carries the key's previous counter, and no
    # error.
    if grep -q 'ERROR' "$work/single-$n.out" || [ "$(grep -c 'previous_counter = ' "$work/single-$n.out")" -ne $((n * batch)) ]; then
        echo "the executions of the script of $n were not all accepted: $work/single-$n.out" >&2
        HTTP_BENCH_KEEP=1
        exit 1
    fi
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/valgrind-$n.log"
}

echo "== PostgreSQL under callgrind: $base and $((base + executions)) executions of the commit, $batch accepted assertion(s) each =="
first=$(count "$base")
second=$(count $((base + executions)))
per_execution=$(((second - first) / executions))
# printing FILE: the instructions inclusive in debugtup (the answer printed as text) in the callgrind file FILE.
printing() {
    callgrind_annotate --inclusive=yes --threshold=100 "$1" |
        sed -n 's/^ *\([0-9,]*\) ([ 0-9.]*%) *\*\{0,1\} *???:debugtup .*/\1/p' | tr -d , | awk '{ sum += $1 } END { print sum + 0 }'
}
printed=$((($(printing "$work/callgrind-$((base + executions)).out") - $(printing "$work/callgrind-$base.out")) / executions))
echo
echo "statement: $(head -c 60 "$statement" | tr '\n' ' ')... ($(wc -c <"$statement") bytes$([ -n "${STMT_BENCH_TEXT:-}" ] && echo ", from $STMT_BENCH_TEXT"))"
echo "instructions per execution ($batch accepted assertion(s), one per key; generic plan of $((plan_nodes + 1)) nodes): $per_execution ($((per_execution / batch)) an assertion)"
echo "  ($base executions: $first; $((base + executions)): $second; PostgreSQL $pg_version, single-user mode under callgrind)"
echo "without printing the answer as text (debugtup, $printed an execution; single-user mode only): $((per_execution - printed)) ($(((per_execution - printed) / batch)) an assertion)"

if [ "$functions" -gt 0 ]; then
    echo
    echo "-- the $functions PostgreSQL functions with the most inclusive instructions per execution --"
    python3 - "$work/callgrind-$base.out" "$work/callgrind-$((base + executions)).out" "$executions" "$functions" <<'EOF'
import re, subprocess, sys

def inclusive(path):
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    counts = {}
    for line in out.splitlines():
        match = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\?\?\?:([A-Za-z_][\w']*) ", line)
        if match:
            counts[match.group(2)] = counts.get(match.group(2), 0) + int(match.group(1).replace(",", ""))
    return counts

first, second = inclusive(sys.argv[1]), inclusive(sys.argv[2])
executions, shown = int(sys.argv[3]), int(sys.argv[4])
rows = sorted(((second.get(name, 0) - first.get(name, 0)) / executions, name) for name in set(first) | set(second))
for per_execution, name in list(reversed(rows))[:shown]:
    print(f"{per_execution:12,.0f}  {name}")
EOF
fi
