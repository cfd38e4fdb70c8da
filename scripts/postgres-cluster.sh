# Shared by scripts/postgres-start.sh and scripts/postgres-standby.sh (sourced): RUN_AS runs cluster commands as the
# postgres user when we are root (PostgreSQL refuses to run as root), OWNER owns the data; new_cluster_folder makes
# STATE (a new temp folder with data/ and socket/) and picks a free loopback PORT.
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
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
}
