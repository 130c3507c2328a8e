# Sourced by scripts/test: starts a private PostgreSQL 15 for the storage tests and stops it on exit.
# It runs as the `postgres` user when we are root (PostgreSQL refuses to run as root), on its own port,
# socket directory and data directory, listening on 127.0.0.1 only.

start_postgres() {
  local bin=/usr/lib/postgresql/15/bin
  if [ ! -x "$bin/postgres" ]; then
    echo "== installing PostgreSQL 15 (apt)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
  fi
  PG_DIR=$(mktemp -d /tmp/latchkey-pg.XXXXXX)
  PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  local run=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres "$PG_DIR"
    run=(runuser -u postgres --)
  fi
  "${run[@]}" "$bin/initdb" -D "$PG_DIR/data" -A trust -U postgres -E UTF8 >"$PG_DIR/initdb.log" 2>&1
  "${run[@]}" "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
  "${run[@]}" "$bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres latchkey_test
  export LATCHKEY_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$PG_PORT/latchkey_test?tlsmode=disable"
  export LATCHKEY_REQUIRE_POSTGRES=1
  PG_RUN=("${run[@]}")
  PG_BIN=$bin
  echo "== PostgreSQL 15 on 127.0.0.1:$PG_PORT"
}

stop_postgres() {
  if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/data" ]; then
    "${PG_RUN[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
  fi
}
