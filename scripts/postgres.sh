# Sourced by scripts/test: starts a private PostgreSQL 15 for the storage tests and stops it on exit —
# made by Tests/System/Support/processes.py's PrivatePostgres like every other private PostgreSQL of the project:
# as the `postgres` user when we are root (PostgreSQL refuses to run as root), on its own port, socket
# directory and data directory, listening on 127.0.0.1 only, with a random scram-sha-256 password
# (scripts/provision installs PostgreSQL 15).

start_postgres() {
  PG_DIR=$(mktemp -d /tmp/latchkey-pg.XXXXXX)
  local url
  url=$(python3 Tests/System/Support/processes.py postgres-up "$PG_DIR" latchkey_test fsync=off)
  export LATCHKEY_TEST_POSTGRES_URL="$url"
  export LATCHKEY_REQUIRE_POSTGRES=1
  echo "== PostgreSQL 15 on 127.0.0.1:$(cat "$PG_DIR/port") (password authentication)"
}

stop_postgres() {
  if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR" ]; then
    python3 Tests/System/Support/processes.py postgres-down "$PG_DIR" || true
    rm -rf "$PG_DIR"
  fi
}
