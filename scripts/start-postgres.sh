#!/usr/bin/env bash
# Starts Debian's PostgreSQL on 127.0.0.1:5432 with password auth and prints the DATABASE_URL.
set -euo pipefail
# Only the URL goes to stdout (callers capture it); every tool's chatter goes to stderr.
exec 3>&1 1>&2

# The server daemonises and inherits every open descriptor of this script. Were it to keep
# the caller's `$(...)` pipe (fd 3 here) or any other pipe the caller handed down, the caller
# would wait for end-of-file forever, so the server is started with only 0-2 open.
start_cluster() {
  local fd
  for fd in $(ls /proc/$BASHPID/fd); do
    if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
  pg_ctlcluster "$1" main start </dev/null
}

version=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | grep -q "^$version main"; then
  pg_createcluster "$version" main >/dev/null 3>&-
fi
(start_cluster "$version") 2>/dev/null || true
for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 && break; sleep 1; done
su postgres -c "psql -q -c \"alter user postgres password 'postgres'\"" >/dev/null 3>&-
echo "postgres://postgres:postgres@127.0.0.1:5432/postgres" >&3
