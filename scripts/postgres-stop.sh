#!/usr/bin/env bash
# Stops a cluster started by scripts/postgres-start.sh and deletes its folder: postgres-stop.sh STATE_DIR.
set -euo pipefail
STATE=${1:?usage: postgres-stop.sh STATE_DIR}
[ -f "$STATE/pgbin" ] || { echo "postgres-stop: $STATE is not a cluster folder" >&2; exit 1; }
PGBIN=$(cat "$STATE/pgbin")
if [ "$(id -u)" -eq 0 ]; then RUN_AS=(runuser -u postgres --); else RUN_AS=(); fi
"${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$STATE/data" -m fast -w stop >/dev/null 2>&1 || true
rm -rf "$STATE"
