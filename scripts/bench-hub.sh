#!/usr/bin/env bash
# `make bench-hub`: `hkid-bench hub` (docs/scale.md) against a throwaway
# PostgreSQL 15 on a free loopback port, in a temporary directory, with
# PostgreSQL's durable defaults (fsync and synchronous_commit on). As root
# (CI), the server runs as `nobody`: initdb refuses root. Arguments go to
# the benchmark (e.g. --checks 12 --rounds 5 FILE); the binaries are
# .build/$CONFIG's, release unless CONFIG says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
config=${CONFIG:-release}
bin=/usr/lib/postgresql/15/bin
[ -x "$bin/initdb" ] || { echo "bench-hub: $bin/initdb is missing: run scripts/install-deps.sh" >&2; exit 1; }
dir=$(mktemp -d /tmp/hkid-bench-pg.XXXXXX)
as_server=()
if [ "$(id -u)" = 0 ]; then
  chown nobody:nogroup "$dir"
  as_server=(runuser -u nobody --)
fi
stop() {
  "${as_server[@]}" "$bin/pg_ctl" -D "$dir/data" -w -t 30 stop -m fast >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$dir" && "${as_server[@]}" "$bin/initdb" -D "$dir/data" -U hub --auth=trust -E UTF8 --locale=C >/dev/null)
(cd "$dir" && "${as_server[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 30 start \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200" >/dev/null)
(cd "$dir" && "${as_server[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U hub bench)
postmaster=$(head -1 "$dir/data/postmaster.pid")
".build/$config/hkid-bench" hub --database "postgres://hub@127.0.0.1:$port/bench" \
  --worker ".build/$config/hkid-worker" --binary ".build/$config/hkid-liveness" --postgres-pid "$postmaster" "$@"
