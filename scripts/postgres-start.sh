#!/usr/bin/env bash
# Starts a throw-away PostgreSQL cluster for tests: installs Debian's postgresql package when it is missing
# (as root), creates a cluster in a new temp folder, starts it on a free loopback port as the `postgres` user
# (runuser) and prints the URL on stdout. Stop it with scripts/postgres-stop.sh STATE_DIR (the folder is
# printed on stderr and written to $ATTESTGUARD_PG_STATE_FILE when that is set). $ATTESTGUARD_PG_OPTIONS adds server
# options (e.g. "-c shared_preload_libraries=pg_stat_statements"). $ATTESTGUARD_PG_PROFILE picks the durability:
# `fast` (default: fsync, synchronous_commit and full_page_writes off; nothing waits for the disk) or `durable`
# (all three on, as in production; scripts/postgres-standby.sh adds a streaming standby to such a cluster).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/as-root.sh"

find_pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

PGBIN=$(find_pg_bin || true)
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
    echo "postgres-start: installing PostgreSQL (Debian package postgresql)" >&2
    apt_install postgresql >&2
    PGBIN=$(find_pg_bin)
fi

source "$(dirname "${BASH_SOURCE[0]}")/postgres-cluster.sh"
new_cluster_folder

"${RUN_AS[@]}" "$PGBIN/initdb" -D "$STATE/data" -U postgres --auth=trust -E UTF8 --no-sync >"$STATE/initdb.log" 2>&1 ||
    { cat "$STATE/initdb.log" >&2; exit 1; }
# The profile goes in postgresql.conf, not on the command line, so that ALTER SYSTEM and a reload can switch a
# running cluster to production durability (Benchmarks/http.sh does).
case "${ATTESTGUARD_PG_PROFILE:-fast}" in
fast) DURABILITY=off ;;
durable) DURABILITY=on ;;
*) echo "postgres-start: ATTESTGUARD_PG_PROFILE must be fast or durable" >&2; exit 2 ;;
esac
"${RUN_AS[@]}" tee -a "$STATE/data/postgresql.conf" >/dev/null <<EOF_CONF
# scripts/postgres-start.sh: the ${ATTESTGUARD_PG_PROFILE:-fast} test profile
fsync = $DURABILITY
synchronous_commit = $DURABILITY
full_page_writes = $DURABILITY
EOF_CONF
start_cluster
publish_cluster "postgres-start: cluster in $STATE on port $PORT"
