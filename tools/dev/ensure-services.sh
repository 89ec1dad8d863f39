#!/usr/bin/env bash
# Makes sure PostgreSQL, Redis and NATS (with JetStream) answer on their usual local ports, starting
# any that is installed but not running. Used by CI and by `npm test`/`npm start` on a development machine.
set -uo pipefail

PG_PORT=${PG_PORT:-5432}; REDIS_PORT=${REDIS_PORT:-6379}; NATS_PORT=${NATS_PORT:-4222}

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
  command -v redis-server >/dev/null 2>&1 && redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no >/dev/null
}

start_nats() {
  local bin
  bin=$(command -v nats-server || ls /usr/sbin/nats-server 2>/dev/null) || return 0
  local store="${TMPDIR:-/tmp}/availability-nats"
  mkdir -p "$store"
  nohup "$bin" -a 127.0.0.1 -p "$NATS_PORT" -js -sd "$store" >"$store/nats.log" 2>&1 &
}

status=0
up "$PG_PORT" || { echo "starting PostgreSQL"; start_postgres; }
up "$REDIS_PORT" || { echo "starting Redis"; start_redis; }
up "$NATS_PORT" || { echo "starting NATS"; start_nats; }
wait_for PostgreSQL "$PG_PORT" || status=1
wait_for Redis "$REDIS_PORT" || status=1
wait_for NATS "$NATS_PORT" || status=1
exit $status
