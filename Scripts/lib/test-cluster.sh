#!/usr/bin/env bash
# The interop suite again, against a cluster: for every server a test starts, N replicas of
# entitlementd-testing over one fresh PostgreSQL database, behind haproxy (h2c and HTTP/1.1 on
# one port). Tests that need one process or its SQLite file are skipped with their reason
# (marker single_process); test_cluster.py's cross-replica tests run here only.
# Tests/Interop/cluster.py documents what goes where.
#
#   Scripts/lib/test-cluster.sh PYTHON      (PYTHON: the venv with grpcio, pytest; ENTITLEMENTD_BIN set)
#
# Env:
#   CLUSTER_REPLICAS    replicas per server (default 2; test_cluster.py picks its own 2 or 3)
#   ENTITLEMENTD_TEST_POSTGRES_URL   the PostgreSQL server to use (Scripts/test exports it);
#                       without it the suite starts one under .build/pg-interop and stops it
#   PYTEST_ARGS         extra pytest arguments; word-split
#
# Installs haproxy and postgresql (for psql, and the server when none is exported) when missing.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT" || exit 1
# shellcheck source=Scripts/lib/packages.sh
. "$ROOT/Scripts/lib/packages.sh"

[ $# -eq 1 ] || { echo "usage: $0 PYTHON" >&2; exit 2; }
[ -n "${ENTITLEMENTD_BIN:-}" ] && [ -x "$ENTITLEMENTD_BIN" ] \
    || { echo "ENTITLEMENTD_BIN must name the built entitlementd-testing" >&2; exit 2; }
# psql makes and drops the tests' databases; a server, when none is exported, comes from
# Scripts/lib/postgres.sh, which installs postgresql itself.
wanted=(haproxy)
command -v psql >/dev/null 2>&1 || wanted+=(postgresql-client)
install_missing "${wanted[@]}" || { echo "cannot install ${wanted[*]}" >&2; exit 1; }

LOG="$ROOT/.build/interop-cluster-pytest.log"
# shellcheck disable=SC2206
extra=(${PYTEST_ARGS:-})
ENTITLEMENTD_CLUSTER="${CLUSTER_REPLICAS:-2}" "$1" -m pytest Tests/Interop -p no:cacheprovider -ra "${extra[@]}" \
    2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
[ $rc -eq 5 ] && echo "pytest collected no tests" >&2
echo "cluster interop: $(grep -E '^=+ .*( in [0-9.]+s).* =+$' "$LOG" | tail -1)"
exit $rc
