#!/usr/bin/env bash
# The interop tests about replicas, against a cluster: for every server a test starts, N
# replicas of entitlementd-testing over one fresh PostgreSQL database, behind haproxy (h2c and
# HTTP/1.1 on one port). It runs the tests marked `replicas` (pytest -m replicas): test_cluster.py's
# cross-replica tests (which run here only) and the tests of what differs on PostgreSQL above the
# store (the singleton duties the lease starts, restarts on one database); every other test ran
# in the single-process stage. Tests that need one process or its SQLite file are skipped with
# their reason (marker single_process). Tests/Interop/cluster.py documents what goes where.
#
#   Scripts/lib/test-cluster.sh PYTHON      (PYTHON: the venv with grpcio, pytest; ENTITLEMENTD_BIN set)
#
# Env:
#   CLUSTER_REPLICAS    replicas per server (default 2; test_cluster.py picks its own 2 or 3)
#   ENTITLEMENTD_TEST_POSTGRES_URL   the PostgreSQL server to use (Scripts/test exports it);
#                       without it the suite starts one under .build/pg-interop and stops it
#   CLUSTER_MARKERS     the pytest -m selection (default `replicas`); set it empty for the whole
#                       suite against the cluster (Scripts/test --long does)
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
markers="${CLUSTER_MARKERS-replicas}"
select=()
[ -n "$markers" ] && select=(-m "$markers")
echo "cluster interop: pytest ${select[*]:-(the whole suite)}"
# Its own temp base: Scripts/test runs the single-process pytest at the same time.
ENTITLEMENTD_CLUSTER="${CLUSTER_REPLICAS:-2}" "$1" -m pytest Tests/Interop -p no:cacheprovider -ra --durations=10 \
    --basetemp "$ROOT/.build/pytest-cluster" ${select[@]+"${select[@]}"} ${extra[@]+"${extra[@]}"} 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
[ $rc -eq 5 ] && echo "pytest collected no tests" >&2
echo "cluster interop: $(grep -E '^=+ .*( in [0-9.]+s).* =+$' "$LOG" | tail -1)"
exit $rc
