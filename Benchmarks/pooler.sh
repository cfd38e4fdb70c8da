#!/usr/bin/env bash
# What database.pooler: transaction costs PostgreSQL (docs/operators.md, "Connection poolers"): the store's hottest statement,
# the verdicts' facts (a batch of one), run by pgbench as a named prepared statement (-M prepared: parsed and planned once, as
# with pooler none) and as an unnamed one (-M extended: parsed and planned on every call, as with pooler transaction),
# on one connection, BENCH_SECONDS (default 15) each. Uses the PostgreSQL of $ATTESTGUARD_TEST_DATABASE_URL, or
# starts a throw-away one (scripts/postgres-start.sh) and stops it again. The tables are empty: the figures are the
# round trip plus parse and plan, which real rows leave unchanged while they add the same execution time to both.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-15}

work=$(mktemp -d)
state_file="$work/postgres-state"
cleanup() {
    if [ -s "$state_file" ]; then scripts/postgres-stop.sh "$(cat "$state_file")" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${ATTESTGUARD_TEST_DATABASE_URL:-}" ]; then
    ATTESTGUARD_TEST_DATABASE_URL=$(ATTESTGUARD_PG_STATE_FILE="$state_file" scripts/postgres-start.sh)
fi
url=$ATTESTGUARD_TEST_DATABASE_URL
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
schema="pooler_bench_$$"

# The schema, migrated with the shipped migrations in order.
"$pgbin/psql" -q -v ON_ERROR_STOP=1 "$url" -c "CREATE SCHEMA $schema"
for migration in SQL/postgres/*.sql; do
    PGOPTIONS="-c search_path=$schema" "$pgbin/psql" -q -v ON_ERROR_STOP=1 "$url" -f "$migration" >/dev/null
done

# The statement's SQL as the store sends it, prepared and unnamed (printed by the benchmark package's StatementText),
# its $n parameters as pgbench variables.
# shellcheck source=scripts/shipped-build.sh
. scripts/shipped-build.sh # built as the shipped server is; every build of this package is
shipped_build swift -c release --package-path Benchmarks --product StatementText >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
statement_text="$(swift build -c release --package-path Benchmarks --show-bin-path)/StatementText"
"$statement_text" scoring-facts-batch >"$work/prepared.txt"
"$statement_text" scoring-facts-batch-unnamed >"$work/extended.txt"
for mode in prepared extended; do
    python3 - "$work/$mode.txt" "$work/$mode.sql" <<'EOF'
import re, sys
sql = open(sys.argv[1]).read()
sql = re.sub(r"\$(\d+)", lambda match: ":p" + match.group(1), sql)
open(sys.argv[2], "w").write(" ".join(line.strip() for line in sql.strip().splitlines()) + ";\n")
EOF
done

for mode in prepared extended; do
    printf '%-9s ' "$mode"
    PGOPTIONS="-c search_path=$schema" "$pgbin/pgbench" -n -M "$mode" -c 1 -j 1 -T "$seconds" \
        -D 'p1={ABCDE12345.com.example.shop}' -D 'p2={true}' -D 'p3={"\\x0102"}' -D 'p4={true}' -D 'p5={true}' \
        -D 'p6={"2026-11-22 12:00:00+00"}' -D 'p7={true}' -D 'p8={production}' -D 'p9={true}' -D 'p10={writer}' \
        -D 'p11={true}' -D 'p12={user-1}' -D 'p13={1}' -D 'p14={app:ABCDE12345.com.example.shop}' -D 'p15={2}' \
        -D 'p16={key,device}' -D 'p17={k1,d1}' -D 'p18={1}' -D 'p19={"\\x01"}' -D 'p20={0}' \
        -D 'p21={1}' -D 'p22={user}' -D 'p23={u1}' -D 'p24={2}' -D 'p25={"\\x02","\\x04"}' -D 'p26={0,0}' -D 'p27={1,1}' \
        -D 'p28={"\\x03"}' -f "$work/$mode.sql" "$url" 2>&1 |
        grep -E '^(latency average|tps)' | tr '\n' ' '
    echo
done
PGOPTIONS="-c client_min_messages=warning" "$pgbin/psql" -q "$url" -c "DROP SCHEMA $schema CASCADE"
