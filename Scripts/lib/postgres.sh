#!/usr/bin/env bash
# A private PostgreSQL server for tests, benchmarks and Scripts/cluster, kept in one directory.
#
#   Scripts/lib/postgres.sh start DIR    initdb DIR if new, start it (idempotent), print its URL
#   Scripts/lib/postgres.sh stop DIR     stop it (fast shutdown; no-op when not running)
#   Scripts/lib/postgres.sh url DIR      print the URL of an initialised DIR
#   Scripts/lib/postgres.sh status DIR   exit 0 when running, 3 when not
#
# The URL, postgresql://entitlementd:PASSWORD@127.0.0.1:PORT/postgres, names a superuser role
# with a random password (scram-sha-256 on TCP and on the socket; no trust, no peer), so
# clients exercise the password path production uses. Tests create their own databases from it.
# The server listens on 127.0.0.1 only, on a free private port chosen at the first start (a new
# one when that port has been taken since), with its unix socket directory inside DIR.
# Durability stays as production runs it (fsync on, synchronous_commit on): a benchmark against
# it measures real commits. max_connections is 300 (replicas x (pool + lease + listener + writer)
# for a local cluster plus the tests' own connections).
#
# initdb and postgres refuse to run as root: as root, the server runs as the `postgres` user
# that Debian's package creates, and DIR is chown'ed to it. When that user cannot reach DIR
# (a parent such as /root is 0700), the data and socket go to /var/tmp/entitlementd-postgres-*
# instead and DIR/location records where. As any other user the server runs as that user.
# Installs Debian's `postgresql` when missing (without Debian's default cluster on port 5432).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=Scripts/lib/packages.sh
. "$ROOT/Scripts/lib/packages.sh"

ROLE=entitlementd
MAX_CONNECTIONS=300

usage() { echo "usage: $0 start|stop|url|status DIR" >&2; exit 2; }
die() { echo "postgres.sh: $*" >&2; exit 1; }

[ $# -eq 2 ] || usage
COMMAND=$1
mkdir -p "$2"
DIR="$(cd "$2" && pwd)"

# Debian's package puts the server's programs in /usr/lib/postgresql/VERSION/bin, off PATH.
find_bindir() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then echo "$dir"; return; fi
    command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)"
}

ensure_installed() {
    [ -n "$(find_bindir)" ] && return 0
    # Debian's postinst would create and start a default cluster on port 5432: we run our own.
    if ! deb_installed postgresql-common; then
        as_root mkdir -p /etc/postgresql-common/createcluster.d
        echo "create_main_cluster = false" | as_root tee /etc/postgresql-common/createcluster.d/entitlementd.conf >/dev/null
    fi
    install_missing postgresql || die "cannot install postgresql (apt-get failed; see above)"
    [ -n "$(find_bindir)" ] || die "postgresql is installed but no initdb was found under /usr/lib/postgresql/*/bin"
}

# The server's user: ourselves, or `postgres` when we are root.
if [ "$(id -u)" -eq 0 ]; then
    SERVER_USER=postgres
    as_server() { runuser -u postgres -- "$@"; }
else
    SERVER_USER=$(id -un)
    as_server() { "$@"; }
fi

# Where the data and socket live: DIR, unless the server's user cannot get there.
home_for_server() {
    if [ -f "$DIR/location" ]; then cat "$DIR/location"; return; fi
    if [ "$SERVER_USER" = postgres ]; then
        getent passwd postgres >/dev/null || die "no postgres user (the postgresql package creates it)"
        chown postgres: "$DIR" && chmod 0700 "$DIR"
        if ! as_server test -w "$DIR"; then
            local elsewhere
            elsewhere="/var/tmp/entitlementd-postgres-$(printf '%s' "$DIR" | sha256sum | cut -c1-16)"
            mkdir -p "$elsewhere" && chown postgres: "$elsewhere" && chmod 0700 "$elsewhere"
            echo "$elsewhere" > "$DIR/location"
            echo "postgres.sh: user postgres cannot reach $DIR; data and socket are in $elsewhere" >&2
            echo "$elsewhere"
            return
        fi
    fi
    echo "$DIR"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A port below the kernel's ephemeral range (as Tests/Interop/ports.py picks them): one inside it
# can be taken by any outgoing connection between this check and the server's bind.
free_port() {
    local port low=32768
    read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
    [ "$low" -gt 21000 ] || low=32768
    for _ in $(seq 1 200); do
        port=$((20000 + RANDOM % (low - 20000)))
        port_in_use "$port" || { echo "$port"; return; }
    done
    die "no free TCP port found on 127.0.0.1"
}

url() { echo "postgresql://$ROLE:$(cat "$DIR/password")@127.0.0.1:$(cat "$DIR/port")/postgres"; }

initialise() {
    local pwfile="$HOME_DIR/initdb-password"
    umask 077
    [ -f "$DIR/password" ] || openssl rand -hex 24 > "$DIR/password"
    install -m 0600 /dev/null "$pwfile"
    cat "$DIR/password" > "$pwfile"
    [ "$SERVER_USER" = postgres ] && chown postgres: "$pwfile"
    as_server "$BIN/initdb" --pgdata="$DATA" --username="$ROLE" --pwfile="$pwfile" \
        --auth-local=scram-sha-256 --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 \
        >"$HOME_DIR/initdb.log" 2>&1 || { rm -f "$pwfile"; die "initdb failed: $(tail -5 "$HOME_DIR/initdb.log")"; }
    rm -f "$pwfile"
    echo "include_if_exists = 'entitlementd.conf'" | as_server tee -a "$DATA/postgresql.conf" >/dev/null
}

# Rewritten at every start, so a reused DIR gets this script's current settings and port.
write_settings() {
    as_server tee "$DATA/entitlementd.conf" >/dev/null <<EOF
# Written by Scripts/lib/postgres.sh at every start; edits here are overwritten.
listen_addresses = '127.0.0.1'
port = $(cat "$DIR/port")
unix_socket_directories = '$SOCKET'
unix_socket_permissions = 0700
max_connections = $MAX_CONNECTIONS
fsync = on
synchronous_commit = on
full_page_writes = on
password_encryption = 'scram-sha-256'
EOF
}

is_running() { [ -d "$DATA" ] && as_server "$BIN/pg_ctl" status --pgdata="$DATA" >/dev/null 2>&1; }

start() {
    if [ ! -f "$DATA/PG_VERSION" ]; then
        initialise
    fi
    if is_running; then url; return; fi
    if [ ! -f "$DIR/port" ] || port_in_use "$(cat "$DIR/port")"; then free_port > "$DIR/port"; fi
    as_server mkdir -p "$SOCKET"
    local attempt
    for attempt in 1 2 3; do
        write_settings
        # 9>&-: the server must not inherit (and so hold forever) the lock on DIR/.lock.
        if as_server "$BIN/pg_ctl" start -w -t 60 --pgdata="$DATA" --log="$HOME_DIR/server.log" >/dev/null 2>&1 9>&-; then
            url
            return
        fi
        # Another server took the port between the check and the bind: take another one.
        tail -5 "$HOME_DIR/server.log" 2>/dev/null | grep -q "could not bind" || break
        free_port > "$DIR/port"
    done
    die "pg_ctl start failed; server log $HOME_DIR/server.log: $(tail -5 "$HOME_DIR/server.log" 2>/dev/null)"
}

stop() {
    is_running || return 0
    as_server "$BIN/pg_ctl" stop -w -t 60 -m fast --pgdata="$DATA" >/dev/null
}

case "$COMMAND" in
    start) ensure_installed ;;
    stop|url|status) ;;
    *) usage ;;
esac
BIN=$(find_bindir) || true
[ -n "${BIN:-}" ] || die "PostgreSQL is not installed: run '$0 start DIR' (it installs it)"
HOME_DIR=$(home_for_server)
DATA="$HOME_DIR/data"
SOCKET="$HOME_DIR/socket"

# One start/stop at a time per DIR (tests and scripts may race to start the same one).
exec 9>"$DIR/.lock"
flock 9

case "$COMMAND" in
    start) start ;;
    stop) stop ;;
    url) [ -f "$DIR/password" ] && [ -f "$DIR/port" ] || die "$DIR is not initialised: run '$0 start $DIR'"; url ;;
    status) is_running || exit 3 ;;
esac
