#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis answer on their usual local ports, starting any that is installed but
# not running, and that nats-server (2.9 or later) is installed: `npm test` and `npm start` run their own
# authenticated nats-server (JetStream on, each service with its own nkey), so none needs to be running.
# Redis must never evict keys: every service refuses to start on one whose maxmemory-policy is not
# noeviction, so a running Redis with another policy is switched to it (CONFIG SET, not persisted).
# Used by CI and by `npm test`/`npm start` on a development machine.
set -uo pipefail

PG_PORT=${PG_PORT:-5432}; REDIS_PORT=${REDIS_PORT:-6379}

up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() {
  local name=$1 port=$2
  for _ in $(seq 1 50); do up "$port" && { echo "$name is up on 127.0.0.1:$port"; return 0; }; sleep 0.2; done
  echo "$name is NOT reachable on 127.0.0.1:$port" >&2
  return 1
}

start_postgres() {
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    for version in $(ls /etc/postgresql 2>/dev/null); do pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || true; done
  fi
}

start_redis() {
  command -v redis-server >/dev/null 2>&1 && redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no --maxmemory-policy noeviction >/dev/null
}

redis_noeviction() {
  command -v redis-cli >/dev/null 2>&1 || { echo "redis-cli not installed: Redis's maxmemory-policy is not checked"; return 0; }
  local policy
  policy=$(redis-cli -p "$REDIS_PORT" config get maxmemory-policy 2>/dev/null | sed -n 2p)
  [ "$policy" = noeviction ] && { echo "Redis's maxmemory-policy is noeviction"; return 0; }
  echo "Redis's maxmemory-policy is ${policy:-unknown}: setting noeviction"
  redis-cli -p "$REDIS_PORT" config set maxmemory-policy noeviction >/dev/null || { echo "could NOT set Redis's maxmemory-policy to noeviction" >&2; return 1; }
}

nats_server() {
  local bin=${NATS_SERVER_BIN:-}
  [ -n "$bin" ] || bin=$(command -v nats-server) || {
    echo "nats-server is NOT installed: install it (https://docs.nats.io/running-a-nats-service/introduction/installation," >&2
    echo "  e.g. apt-get install nats-server) or set NATS_SERVER_BIN" >&2
    return 1
  }
  echo "nats-server is installed: $("$bin" --version)"
}

status=0
up "$PG_PORT" || { echo "starting PostgreSQL"; start_postgres; }
up "$REDIS_PORT" || { echo "starting Redis"; start_redis; }
wait_for PostgreSQL "$PG_PORT" || status=1
wait_for Redis "$REDIS_PORT" && { redis_noeviction || status=1; } || status=1
nats_server || status=1
exit $status
