#!/usr/bin/env bash
# Store-level figures for issue 3, through entitlementd-bench: acknowledged writes/s, latency
# and group commit for 1, 16 and 256 concurrent writers (each write a new user with one new
# transaction, synchronous=FULL), then the store's startup on the big bench database.
#
#   Benchmarks/store-writes.sh [WRITERS...]     default 1 16 256
#
# Each writer count gets a fresh database in .build-release/bench-data/ (deleted after), so
# runs do not depend on each other. Pinned to cpu 1 like the server under test. The startup
# figure uses the database Benchmarks/check-entitlement.sh caches (skipped when absent), once
# with the file evicted from the OS page cache and once warm.
# A benchmark, not a test: Scripts/test never runs it.
#
# Env: COUNT_1=2000 COUNT_MANY=20000 (writes per run: one writer / more)  NO_BUILD=1
#      USERS=1000000 PER_USER=3 (which cached database startup opens)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=Scripts/lib/release.sh
. "$ROOT/Scripts/lib/release.sh"   # build_bench_release
cd "$ROOT"
WRITERS=("$@"); [ ${#WRITERS[@]} -gt 0 ] || WRITERS=(1 16 256)
COUNT_1=${COUNT_1:-2000}; COUNT_MANY=${COUNT_MANY:-20000}
USERS=${USERS:-1000000}; PER_USER=${PER_USER:-3}
if [ -z "${NO_BUILD:-}" ]; then
    echo "==> release build of entitlementd-bench (.build-release)" >&2
    build_bench_release entitlementd-bench
fi
BENCH_BIN="$ROOT/.build-release/release/entitlementd-bench"
DATA="$ROOT/.build-release/bench-data"
mkdir -p "$DATA"
pin=(); command -v taskset >/dev/null && pin=(taskset -c "${SERVER_CPU:-1}")

for n in "${WRITERS[@]}"; do
    db="$DATA/writes-$n-$$.sqlite"
    rm -f "$db" "$db-wal" "$db-shm"
    count=$COUNT_MANY; [ "$n" -gt 1 ] || count=$COUNT_1
    "${pin[@]}" "$BENCH_BIN" writes --database "$db" --writers "$n" --count "$count"
    rm -f "$db" "$db-wal" "$db-shm"
done

BIG="$DATA/users-${USERS}x${PER_USER}-r3.sqlite"   # -r3: as check-entitlement.sh seeds it
if [ -s "$BIG" ]; then
    # Drops only this file's pages from the OS page cache, not the machine's.
    sync "$BIG"; dd if="$BIG" iflag=nocache count=0 status=none
    echo "startup, file evicted from the OS page cache:"
    "${pin[@]}" "$BENCH_BIN" startup --database "$BIG" | sed 's/^/  /'
    echo "startup again, file pages cached:"
    "${pin[@]}" "$BENCH_BIN" startup --database "$BIG" | sed 's/^/  /'
else
    echo "startup: skipped, no $BIG (run Benchmarks/check-entitlement.sh first)"
fi
