# Sourced by bin/dev and .ci/run: a throw-away PostgreSQL for the SQL differential test.
#   test_postgres_start   initdb a temporary data directory (as the postgres user when running as root),
#                         start the server on a free loopback port and export POSTGRES_ORACLE_ADDRESS=127.0.0.1:PORT
#   test_postgres_stop    stop it and delete the directory
# Finds initdb/pg_ctl on the PATH or under /usr/lib/postgresql/*/bin (Debian's postgresql package).

test_postgres_bin() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return 0
  fi
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

test_postgres_start() {
  local bin port
  bin="$(test_postgres_bin)" || return 1
  TEST_POSTGRES_DIR="$(mktemp -d /tmp/tandem-test-postgres.XXXXXX)"
  # a port nothing listens on
  local i
  for i in $(seq 1 100); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      break
    fi
  done
  local as=()
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$TEST_POSTGRES_DIR"
    as=(runuser -u postgres --)
  fi
  "${as[@]}" "$bin/initdb" -D "$TEST_POSTGRES_DIR/data" -U postgres --auth=trust --locale=C -E UTF8 >"$TEST_POSTGRES_DIR/initdb.log" 2>&1 || {
    cat "$TEST_POSTGRES_DIR/initdb.log" >&2
    return 1
  }
  "${as[@]}" "$bin/pg_ctl" -D "$TEST_POSTGRES_DIR/data" -l "$TEST_POSTGRES_DIR/server.log" -w \
    -o "-p $port -c listen_addresses=127.0.0.1 -k $TEST_POSTGRES_DIR -c fsync=off -c wal_level=logical -c max_replication_slots=20 -c max_wal_senders=20" start >/dev/null || {
    cat "$TEST_POSTGRES_DIR/server.log" >&2
    return 1
  }
  TEST_POSTGRES_BIN="$bin"
  export POSTGRES_ORACLE_ADDRESS="127.0.0.1:$port"
  echo "test PostgreSQL started at $POSTGRES_ORACLE_ADDRESS ($TEST_POSTGRES_DIR)"
}

test_postgres_stop() {
  if [ -n "${TEST_POSTGRES_DIR:-}" ] && [ -d "$TEST_POSTGRES_DIR/data" ]; then
    local as=()
    if [ "$(id -u)" -eq 0 ]; then
      as=(runuser -u postgres --)
    fi
    "${as[@]}" "$TEST_POSTGRES_BIN/pg_ctl" -D "$TEST_POSTGRES_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$TEST_POSTGRES_DIR"
  fi
}
