# A throw-away PostgreSQL cluster for the tests: made by initdb in a temporary directory as a user
# other than root (PostgreSQL refuses to run as root), listening on a free port of 127.0.0.1
# only, without fsync (a test cluster need not survive power loss). Sourced, not run.

# Runs a command as the cluster's owner: `nobody` when we are root, else ourselves.
as_cluster_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

# Starts a cluster; sets test_postgres_dir to its directory and test_postgres_url to the URL that
# reaches it as a superuser.
start_test_postgres() {
    local bindir port
    bindir=$(pg_config --bindir)
    test_postgres_dir=$(mktemp -d "${TMPDIR:-/tmp}/cumulus-postgres.XXXXXX")
    [ "$(id -u)" = 0 ] && chown nobody:nogroup "$test_postgres_dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_cluster_owner "$bindir/initdb" -D "$test_postgres_dir/data" -U cumulus -A trust -E UTF8 --locale=C --no-sync >/dev/null
    as_cluster_owner "$bindir/pg_ctl" -D "$test_postgres_dir/data" -l "$test_postgres_dir/server.log" -w -s \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $test_postgres_dir -c fsync=off -c full_page_writes=off -c max_connections=500" \
        start >/dev/null
    test_postgres_url="postgres://cumulus@127.0.0.1:$port/postgres"
}

# Stops the cluster in `$1` at once and removes its directory.
stop_test_postgres() {
    local directory=$1
    [ -d "$directory/data" ] && as_cluster_owner "$(pg_config --bindir)/pg_ctl" -D "$directory/data" -m immediate -s stop >/dev/null 2>&1
    rm -rf "$directory"
}
