#!/usr/bin/env bash
# PostgreSQL's backend CPU for a receipt's new chain of K transactions and their history events
# (Benchmarks/pg_receipt_inserts.py writes the pgbench scripts):
#   statements    as the writer sends them: the transactions' list insert, then an insert per
#                 event looking its transaction up
#   joined        one statement, the events pointing at the rows the list insert returns (tried
#                 in the writer, not kept: docs/storage.md, PostgreSQL)
#   transactions  the list insert alone (subtract it to see what the events cost)
# Each a pgbench -M prepared run of SECS seconds on one connection, pipelined, against a fresh
# database migrated by entitlementd; the backend's CPU (/proc ticks) over the middle of the
# run divided by the chains inserted meanwhile. CPU per iteration moves far less with the
# machine's load than the rate does; still run the variants alternated (ROUNDS) and read them
# together. Includes BEGIN, the chain's insert and COMMIT (fsync on). A benchmark, not a test.
#
#   Benchmarks/pg-receipt-inserts.sh
#
# Env: SECS=8  ROUNDS=2  K=7  NO_BUILD=1  BIN_DIR (bench-common.sh)  SHARED_BENCH=../shared/bench
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=Benchmarks/bench-common.sh
. "$ROOT/Benchmarks/bench-common.sh"   # with ../shared/bench/lib.sh

SECS=${SECS:-8}
ROUNDS=${ROUNDS:-2}
K=${K:-7}
command -v pgbench >/dev/null || die "needs pgbench (Debian's postgresql-client)"
build_products entitlementd
DATA="$ROOT/.build-release/bench-data/pg-receipt-inserts"
PG_URL=$("$ROOT/Scripts/lib/postgres.sh" start "$DATA/postgres") || die "PostgreSQL did not start"
work=$(mktemp -d "${TMPDIR:-/tmp}/pg-receipt-inserts.XXXXXX")
db="receipt_inserts_$RANDOM$RANDOM"
cleanup() {
    stop_pid "${server_pid:-}"
    psql -w -X -q "$PG_URL" -c "drop database if exists $db" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
psql -w -X -q "$PG_URL" -c "create database $db" || die "create database $db failed"
DB_URL="${PG_URL%/*}/$db"
# entitlementd migrates the database as it starts; it is stopped once listening.
start_entitlementd "$work/server" env ENTITLEMENTD_DATABASE="$DB_URL" "$BIN_DIR/entitlementd" \
    --listen 127.0.0.1:0 --apple-production-url http://127.0.0.1:9/p --apple-sandbox-url http://127.0.0.1:9/s \
    --apple-shared-secret unused --log-level warning
server_pid=$started_pid
stop_pid "$server_pid"; server_pid=
psql -w -X -q "$DB_URL" -c "insert into product_names (id, name) values (1, 'com.example.monthly'), (2, 'group')" \
    || die "seeding product names failed"
python3 "$ROOT/Benchmarks/pg_receipt_inserts.py" "$work" "$K" || die "writing the pgbench scripts failed"

ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
chains() { psql -w -X -q -At "$DB_URL" -c "select count(*) from chains"; }

# measure SCRIPT: prints the backend's CPU us per iteration over the run's middle.
measure() {
    pgbench -n -M prepared -f "$work/$1.sql" -T "$SECS" "$DB_URL" >"$work/$1.out" 2>&1 &
    local bench=$! backend="" c0 c1 t0 t1 _
    for _ in $(seq 50); do
        backend=$(psql -w -X -q -At "$DB_URL" \
            -c "select pid from pg_stat_activity where datname = '$db' and application_name = 'pgbench'")
        [ -n "$backend" ] && break
        sleep 0.1
    done
    [ -n "$backend" ] || die "no backend for pgbench"
    sleep 1
    c0=$(chains); t0=$(ticks "$backend")
    sleep $((SECS - 3))
    t1=$(ticks "$backend"); c1=$(chains)
    wait "$bench" || { cat "$work/$1.out" >&2; die "pgbench $1 failed"; }
    # Its backend may linger in pg_stat_activity a moment: the next run must not find it.
    for _ in $(seq 50); do [ -e "/proc/$backend" ] || break; sleep 0.1; done
    awk -v t=$((t1 - t0)) -v n=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.0f", t / hz * 1e6 / n}'
}

printf 'backend CPU us per chain of %s transactions and %s events (pgbench -M prepared, pipelined, %ss)\n' \
    "$K" "$K" "$SECS"
printf '%-6s %-12s %12s %14s  %s\n' round variant "us/chain" "events' us" load
for ((round = 1; round <= ROUNDS; round++)); do
    base=$(measure transactions)
    printf '%-6s %-12s %12s %14s  %s\n' "$round" transactions "$base" - "$(cut -d' ' -f1 /proc/loadavg)"
    for variant in statements joined; do
        us=$(measure "$variant")
        printf '%-6s %-12s %12s %14s  %s\n' "$round" "$variant" "$us" "$((us - base))" "$(cut -d' ' -f1 /proc/loadavg)"
    done
done
