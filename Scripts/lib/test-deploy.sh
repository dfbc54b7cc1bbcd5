#!/usr/bin/env bash
# Checks Deploy/ with the tools an operator uses (the pytest files in Tests/Deploy):
#   - nginx: `nginx -t` on the shipped nginx.conf (rendered into a temp prefix with a throwaway
#     openssl certificate and free ports, run as the current user), then grpcio and HTTPS
#     clients through it, over TLS, against the production entitlementd;
#   - systemd: `systemd-analyze verify` (on a copy whose ExecStart names the built binary) and
#     `systemd-analyze security --offline=yes` at or under 2.0;
#   - the env file: every ENTITLEMENTD_* is a flag in `entitlementd --help`, none is set empty,
#     and the production binary starts with it;
#   - the Containerfile, as text (no container engine is installed or needed);
#   - haproxy: `haproxy -c` on the shipped haproxy.cfg, then a real haproxy running it in front
#     of two production replicas (grpcio over h2c, HTTP/1.1, health checks taking a replica
#     out), and entitlementd@.service like the single unit;
#   - Prometheus: `promtool check rules` on Deploy/prometheus/alerts.yml, `promtool test rules`
#     on its unit tests (alerts.test.yml), `promtool check config` on the example prometheus.yml,
#     and the Grafana dashboard's queries parsed as PromQL.
#
#   Scripts/lib/test-deploy.sh PRODUCTION_BIN PYTHON     (PYTHON: the venv with grpcio, pytest)
#
# Installs what is missing with apt-get: nginx, systemd (systemd-analyze), openssl, curl,
# procps (/bin/kill, the unit's ExecReload, which verify checks), haproxy and prometheus
# (promtool; the package also installs a Prometheus server, which these checks never use). A
# check whose tool cannot run on this machine is skipped with its reason, except with CI set
# (CI=1, ...) or DEPLOY_CHECKS=strict: then every skip is a failure.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=Scripts/lib/packages.sh
. "$ROOT/Scripts/lib/packages.sh"

[ $# -eq 2 ] || { echo "usage: $0 PRODUCTION_BIN PYTHON" >&2; exit 2; }
[ -x "$1" ] || { echo "no entitlementd at $1" >&2; exit 1; }
install_missing nginx systemd openssl curl procps haproxy prometheus \
    || { echo "cannot install the deploy tools (nginx systemd openssl curl procps haproxy prometheus)" >&2; exit 1; }

ENTITLEMENTD_PRODUCTION_BIN="$1" "$2" -m pytest "$ROOT/Tests/Deploy" -p no:cacheprovider -ra
rc=$?
# pytest's 5: no tests collected, which means the checks did not run at all.
[ $rc -eq 5 ] && echo "pytest collected no deploy checks" >&2
exit $rc
