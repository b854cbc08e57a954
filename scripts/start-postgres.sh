#!/usr/bin/env bash
# Starts Debian's PostgreSQL on 127.0.0.1:5432 with password auth and prints the DATABASE_URL.
set -euo pipefail
# Only the URL goes to stdout (callers capture it); every tool's chatter goes to stderr.
exec 3>&1 1>&2
version=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | grep -q "^$version main"; then
  pg_createcluster "$version" main >/dev/null
fi
pg_ctlcluster "$version" main start 2>/dev/null || true
for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 && break; sleep 1; done
su postgres -c "psql -q -c \"alter user postgres password 'postgres'\"" >/dev/null
echo "postgres://postgres:postgres@127.0.0.1:5432/postgres" >&3
