#!/usr/bin/env bash
# Stops a cluster started by scripts/postgres-start.sh and deletes its folder: postgres-stop.sh STATE_DIR.
set -euo pipefail
STATE=${1:?usage: postgres-stop.sh STATE_DIR}
[ -f "$STATE/pgbin" ] || { echo "postgres-stop: $STATE is not a cluster folder" >&2; exit 1; }
PGBIN=$(cat "$STATE/pgbin")
if [ "$(id -u)" -eq 0 ]; then RUN_AS=(runuser -u postgres --); else RUN_AS=(); fi
# pg_ctl signals the pid in postmaster.pid. After a SIGKILL (the failover test) that file stays, and the pid may
# since belong to another process, even another cluster's postmaster: where /proc shows that pid is not this
# cluster's postmaster, there is nothing to stop.
pid=$(head -1 "$STATE/data/postmaster.pid" 2>/dev/null || true)
if [ ! -d /proc ] || { [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$STATE/data"; }; then
    "${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$STATE/data" -m fast -w stop >/dev/null 2>&1 || true
fi
rm -rf "$STATE"
