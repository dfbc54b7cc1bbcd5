#!/usr/bin/env bash
# Prints Deploy/haproxy.cfg rendered for a local cluster: haproxy's address, its metrics
# address, one `server` line per replica port (in both backends), logs to stdout instead of
# syslog, and maxconn lowered to what this shell's hard open-files limit allows (haproxy needs
# 2 descriptors per connection and refuses to start when it cannot raise its limit that far).
# Everything else (timeouts, health checks, routing) is the shipped file's.
#
#   Scripts/lib/haproxy-config.sh LISTEN METRICS_LISTEN REPLICA_PORT... > haproxy.cfg
#
# Used by Scripts/cluster and Benchmarks/cluster.sh; check the result with `haproxy -c -f`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[ $# -ge 3 ] || { echo "usage: $0 LISTEN METRICS_LISTEN REPLICA_PORT..." >&2; exit 2; }
listen=$1 metrics=$2; shift 2
maxconn=$(( ($(ulimit -Hn) - 200) / 2 )); [ "$maxconn" -gt 20000 ] && maxconn=20000
awk -v listen="$listen" -v metrics="$metrics" -v ports="$*" -v maxconn="$maxconn" '
    BEGIN { n = split(ports, port, " ") }
    /^ *log \/dev\/log/ { print "    log stdout format short local0"; next }
    /^ *maxconn [0-9]+$/ { print "    maxconn " maxconn; next }
    /^ *bind 127\.0\.0\.1:8080$/ { print "    bind " listen; binds++; next }
    /^ *bind 127\.0\.0\.1:8405$/ { print "    bind " metrics; binds++; next }
    /^ *server replica1 / {
        for (k = 1; k <= n; k++) {
            line = $0
            gsub(/replica1/, "replica" k, line); gsub(/127\.0\.0\.1:50051/, "127.0.0.1:" port[k], line)
            print line
        }
        rendered++
        next
    }
    /^ *server replica[0-9]+ / { next }
    { print }
    END {
        if (rendered != 2 || binds != 2) {
            print "haproxy-config.sh: Deploy/haproxy.cfg changed (expected its two binds and server replica1 in two backends)" > "/dev/stderr"
            exit 1
        }
    }
' "$ROOT/Deploy/haproxy.cfg"
