#!/usr/bin/env bash
# Instructions per owned V2 notification under callgrind, and the OpenSSL verifications each
# makes, for each build given: counts that do not depend on how loaded the machine is, so two
# builds compare in one run (the per-core figures of notifications.sh move with the load).
#
#   Benchmarks/notification-instructions.sh [BIN...]   default: .build-release/release/entitlementd-testing
#   e.g. A/B:  Benchmarks/notification-instructions.sh /work/base/.build-release/release/entitlementd-testing \
#                                                      .build-release/release/entitlementd-testing
#
# Uses notifications.sh's bodies and owners (run it once first). Per build: a fresh database,
# WARM+COUNT owners seeded through Testing/Seed, WARM notifications, then COUNT with callgrind's
# instrumentation on (`--instr-atstart=no`, `callgrind_control -i on/off`). Prints instructions
# per notification and calls per notification of EVP_DigestVerifyFinal (an ES256 check; OpenSSL's
# EVP_DigestVerify ends in it too), EVP_DigestVerifyInit (a check that set up its context instead
# of copying a remembered header's), X509_verify_cert (a chain verified in full) and fdatasync
# (commits). A benchmark, not a test.
#
# Env: WARM=400 COUNT=2000 CONNECTIONS=1 (1 = one at a time)  SHARED_BENCH=../shared/bench
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=Benchmarks/bench-common.sh
. "$ROOT/Benchmarks/bench-common.sh"   # with ../shared/bench/lib.sh

WARM=${WARM:-400}
COUNT=${COUNT:-2000}
CONNECTIONS=${CONNECTIONS:-1}
DATA="$ROOT/.build-release/bench-data/notifications"
[ -s "$DATA/v2.jsonl" ] || die "no bodies in $DATA: run Benchmarks/notifications.sh once"
command -v callgrind_control >/dev/null || die "needs valgrind (apt-get install valgrind)"
ensure_venv
[ $# -gt 0 ] || set -- "$BIN_DIR/entitlementd-testing"

work=$(mktemp -d "${TMPDIR:-/tmp}/notification-instructions.XXXXXX")
server_pid=""
trap 'stop_pid "$server_pid"; rm -rf "$work"' EXIT

# calls FILE NAME: how often NAME was called in a callgrind profile.
calls() {
    awk -v name="$2" '
        /^c?fn=\(/ { id = $1; sub(/^c?fn=/, "", id); n = $0; if (sub(/^c?fn=\([0-9]+\) /, "", n)) names[id] = n }
        /^cfn=/ { current = names[id]; next }
        /^calls=/ && current == name { split($1, c, "="); total += c[2] }
        END { print total + 0 }' "$1"
}

for bin in "$@"; do
    started_addr=""
    rm -rf "$work"/run; mkdir -p "$work/run"
    head -"$((WARM + COUNT))" "$DATA/v2-owners.jsonl" >"$work/run/owners.jsonl"
    # Not start_entitlementd: under valgrind the listening line can take longer than its 10 s.
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/run/callgrind.out" "$bin" \
        --listen 127.0.0.1:0 --threads 1 --database "$work/run/bench.sqlite" --apple-root-ca "$DATA/pki/root.pem" \
        --apple-shared-secret SHARED-SECRET --log-level warning >"$work/run/server.out" 2>"$work/run/server.err" &
    server_pid=$!
    for _ in $(seq 12); do
        started_addr=$(wait_listen_line "$work/run/server.out" "entitlementd listening on " 2>/dev/null) && break
    done
    [ -n "${started_addr:-}" ] || { cat "$work/run/server.err" >&2; die "$bin did not start under valgrind"; }
    "$VENV_PY" "$ROOT/Benchmarks/seed_owners.py" "$started_addr" "$DATA/stubs" "$work/run/owners.jsonl" >&2
    "$VENV_PY" "$ROOT/Benchmarks/post_bodies.py" "$started_addr" "$DATA/v2.jsonl" 0 "$WARM" "$CONNECTIONS" >&2
    callgrind_control -i on "$server_pid" >/dev/null
    "$VENV_PY" "$ROOT/Benchmarks/post_bodies.py" "$started_addr" "$DATA/v2.jsonl" "$WARM" "$((WARM + COUNT))" \
        "$CONNECTIONS" >&2
    callgrind_control -i off "$server_pid" >/dev/null
    callgrind_control -d "$server_pid" >/dev/null
    stop_pid "$server_pid"; server_pid=""
    profile=$(ls "$work"/run/callgrind.out.* | head -1)
    total=$(awk '/^totals:/ { print $2; exit }' "$profile")
    per() { awk -v n="$1" -v c="$COUNT" 'BEGIN { printf "%.2f", n / c }'; }
    echo "$bin: $(awk -v t="$total" -v c="$COUNT" 'BEGIN { printf "%.0f", t / c }')" \
         "instructions per V2 notification ($COUNT after $WARM, $CONNECTIONS connection(s)); per notification:" \
         "EVP_DigestVerifyFinal $(per "$(calls "$profile" EVP_DigestVerifyFinal)")," \
         "EVP_DigestVerifyInit $(per "$(calls "$profile" EVP_DigestVerifyInit)")," \
         "X509_verify_cert $(per "$(calls "$profile" X509_verify_cert)")," \
         "fdatasync $(per "$(calls "$profile" fdatasync)")"
done
