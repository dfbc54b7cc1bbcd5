#!/usr/bin/env bash
# Checks the server Scripts/lib/postgres.sh started, through its URL as the tests use it: the
# password works over TCP and a wrong one is refused, the settings the tests and benchmarks rely
# on are in force, and a test can create and drop its own database.
#
#   Scripts/lib/test-postgres.sh URL
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: $0 URL" >&2; exit 2; }
URL=$1
problems=0
check() { # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then echo "ok: $1 = $3"; else echo "FAIL: $1 is '$3', expected '$2'" >&2; problems=$((problems + 1)); fi
}
sql() { PGCONNECT_TIMEOUT=10 psql -w -X -qAt "$1" -c "$2" 2>&1; }

check "select 1 through the URL" 1 "$(sql "$URL" 'select 1')"
for setting in fsync:on synchronous_commit:on max_connections:300 listen_addresses:127.0.0.1 \
               password_encryption:scram-sha-256; do
    check "$setting" "${setting#*:}" "$(sql "$URL" "show ${setting%%:*}")"
done
check "the role is a superuser (tests create databases)" t "$(sql "$URL" 'select rolsuper from pg_roles where rolname = current_user')"

wrong=$(echo "$URL" | sed -E 's|^(postgres(ql)?://[^:]+:)[^@]+@|\1not-the-password@|')
if out=$(sql "$wrong" 'select 1'); then
    echo "FAIL: a wrong password was accepted: $out" >&2; problems=$((problems + 1))
else
    case "$out" in *"password authentication failed"*) echo "ok: a wrong password is refused" ;;
        *) echo "FAIL: wrong password: unexpected error: $out" >&2; problems=$((problems + 1)) ;; esac
fi

db="t_postgres_check_$$"
check "CREATE DATABASE $db" "CREATE DATABASE" "$(PGCONNECT_TIMEOUT=10 psql -w -X "$URL" -c "create database $db" 2>&1)"
check "a table in it" 42 "$(sql "${URL%/*}/$db" 'create table t (v int); insert into t values (42); select v from t')"
check "DROP DATABASE $db" "DROP DATABASE" "$(PGCONNECT_TIMEOUT=10 psql -w -X "$URL" -c "drop database $db" 2>&1)"
[ $problems -eq 0 ]
