# Shared by scripts/postgres-start.sh and scripts/postgres-standby.sh (sourced): RUN_AS runs cluster commands as the
# postgres user when we are root (PostgreSQL refuses to run as root), OWNER owns the data; new_cluster_folder makes
# STATE (a new temp folder with data/ and socket/) and picks a free loopback PORT; start_cluster starts the cluster in
# STATE/data on PORT (PGBIN's pg_ctl; on another port if that one was taken meanwhile); publish_cluster records it
# (pgbin, port, url; $ATTESTGUARD_PG_STATE_FILE) and prints its URL.
if [ "$(id -u)" -eq 0 ]; then
    RUN_AS=(runuser -u postgres --)
    OWNER=postgres
else
    RUN_AS=()
    OWNER=$(id -un)
fi

new_cluster_folder() {
    STATE=$(mktemp -d /tmp/attestguard-pg.XXXXXX)
    chmod 755 "$STATE"
    mkdir "$STATE/data" "$STATE/socket"
    chmod 700 "$STATE/data"
    chown "$OWNER" "$STATE/data" "$STATE/socket"
    pick_port
}

# pick_port: sets PORT to a loopback port that binds now, from the 6,000 ports just below the kernel's ephemeral range
# (where outgoing connections take their local ports: a port picked there can be taken before the cluster binds it).
# The tests' own picks (Tests/AttestTestSupport/LoopbackPort.swift) come from the 6,000 below these.
pick_port() {
    PORT=$(python3 - <<'PICK'
import random, socket
try:
    start = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    start = 32768
upper = max(start, 13024)
candidates = list(range(upper - 6000, upper))
random.shuffle(candidates)
for port in candidates:
    probe = socket.socket()
    try:
        probe.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        probe.close()
    print(port)
    break
PICK
)
    [ -n "$PORT" ] || { echo "no free loopback port for PostgreSQL" >&2; exit 1; }
}

# max_connections: the test suite runs its tests in parallel, each server with a pool of its own plus the connection
# that watches its host, and PgBouncer's 240 beside them; it held 927 at its peak (past the limit a connection is
# refused: a pool retries, but a store that is still looking for its host waits). A standby needs at least its
# primary's: both start here.
# A port another process took between the pick and the bind is picked again (at most five times).
start_cluster() {
    local attempt
    for attempt in 1 2 3 4 5; do
        if "${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$STATE/data" -l "$STATE/data/server.log" -w -t 60 \
            -o "-p $PORT -k $STATE/socket -c listen_addresses=127.0.0.1 -c max_connections=2000 ${ATTESTGUARD_PG_OPTIONS:-}" \
            start >&2; then
            return 0
        fi
        grep -q "could not create any TCP/IP sockets" "$STATE/data/server.log" 2>/dev/null || break
        echo "port $PORT was taken before PostgreSQL bound it; picking another" >&2
        : >"$STATE/data/server.log"
        pick_port
    done
    cat "$STATE/data/server.log" >&2
    exit 1
}

# publish_cluster MESSAGE: writes STATE's pgbin, port and url files (and STATE to $ATTESTGUARD_PG_STATE_FILE when
# set), prints MESSAGE on stderr and the URL on stdout.
publish_cluster() {
    local url="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"
    echo "$PGBIN" >"$STATE/pgbin"
    echo "$PORT" >"$STATE/port"
    echo "$url" >"$STATE/url"
    if [ -n "${ATTESTGUARD_PG_STATE_FILE:-}" ]; then echo "$STATE" >"$ATTESTGUARD_PG_STATE_FILE"; fi
    echo "$1" >&2
    echo "$url"
}
