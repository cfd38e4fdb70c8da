#!/usr/bin/env bash
# Adds a streaming standby to a cluster started by scripts/postgres-start.sh: postgres-standby.sh PRIMARY_STATE_DIR.
# Copies the primary with pg_basebackup (-R: standby.signal and primary_conninfo, -X stream), starts the copy on a
# free loopback port as a hot standby and prints its URL on stdout; its folder is printed on stderr and written to
# $ATTESTGUARD_PG_STATE_FILE when that is set. Stop it with scripts/postgres-stop.sh, promote it with
# `pg_ctl promote`. The standby is asynchronous until the primary names it: ALTER SYSTEM SET
# synchronous_standby_names = '*' and a reload make every commit wait for it (after the copy, so that the standby,
# once promoted, does not wait for a standby of its own). $ATTESTGUARD_PG_OPTIONS adds server options, as for the
# primary (max_connections must not be below the primary's).
set -euo pipefail

PRIMARY=${1:?usage: postgres-standby.sh PRIMARY_STATE_DIR}
[ -f "$PRIMARY/pgbin" ] && [ -f "$PRIMARY/port" ] || { echo "postgres-standby: $PRIMARY is not a cluster folder" >&2; exit 1; }
PGBIN=$(cat "$PRIMARY/pgbin")
PRIMARY_PORT=$(cat "$PRIMARY/port")

source "$(dirname "${BASH_SOURCE[0]}")/postgres-cluster.sh"
new_cluster_folder

"${RUN_AS[@]}" "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$STATE/data" -R -X stream -c fast \
    >"$STATE/basebackup.log" 2>&1 || { cat "$STATE/basebackup.log" >&2; rm -rf "$STATE"; exit 1; }
start_cluster
echo "$PRIMARY" >"$STATE/primary"
publish_cluster "postgres-standby: standby of port $PRIMARY_PORT in $STATE on port $PORT"
