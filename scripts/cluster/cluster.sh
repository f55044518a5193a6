#!/usr/bin/env bash
# A Meridian cluster on this machine, as local processes on loopback:
#
#   HAProxy :BASE+20 (/readyz checks) --> serve a :BASE+10, serve b :BASE+11
#   serve --(queries)--> PgBouncer :BASE+2 (transaction mode) --> primary :BASE
#   serve --(LISTEN)---> primary directly (both nodes listed, target_session_attrs=read-write)
#   serve --(reads)----> standby :BASE+1 (pg_basebackup, synchronous, remote_apply)
#
# Usage: cluster.sh up | stop | status | failover | stop-serve NAME | start-serve NAME
#                   | sync-commit remote_apply|local
#
#   up           make and start everything in CLUSTER_DIR, print the URL (and
#                write CLUSTER_DIR/cluster.env for scripts and the cluster test)
#   stop         stop every process and delete CLUSTER_DIR (CLUSTER_KEEP=1: keep it)
#   failover     the drill's operator step, scripted: stop the primary at once
#                (pg_ctl -m immediate, a crash), promote the standby
#                (pg_ctl promote), point PgBouncer at it and reload PgBouncer
#   sync-commit  set synchronous_commit on the primary (remote_apply: the
#                default here; local: no wait for the standby), reload
#
# Environment (defaults): CLUSTER_DIR=/tmp/meridian-cluster  CLUSTER_BASE_PORT=25400
#   MERIDIAN_BIN=bin/meridian  CLUSTER_DEMO=1 (seed demo users alice/bob)
#   CLUSTER_LOG_LEVEL=warn  CLUSTER_DAILY_TRANSFER_LIMIT=10000.00 (serve's
#                daily_transfer_limit; the cluster test raises it so its load
#                measures payments, not refusals)
#   CLUSTER_POOLER=pgbouncer  none: no PgBouncer; serve's database_url lists both
#                nodes with target_session_attrs=read-write, like its LISTEN
#                session, and failover has nothing to repoint
#
# PostgreSQL and PgBouncer refuse to run as root: when run as root they run
# as the user "postgres" (or "nobody"). Config files come from deploy/
# (pgbouncer.ini, haproxy.cfg), rendered with this cluster's ports and paths.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${CLUSTER_DIR:-/tmp/meridian-cluster}
BASE=${CLUSTER_BASE_PORT:-25400}
POOLER=${CLUSTER_POOLER:-pgbouncer}
# A cluster that is up keeps the ports and the pooler it was made with.
if [[ -f $DIR/cluster.env ]] && grep -q '^BASE_PORT=' "$DIR/cluster.env"; then
	BASE=$(sed -n 's/^BASE_PORT=//p' "$DIR/cluster.env" | tail -n 1)
	POOLER=$(sed -n 's/^POOLER=//p' "$DIR/cluster.env" | tail -n 1)
fi
BIN=${MERIDIAN_BIN:-$ROOT/bin/meridian}
[[ $BIN == /* ]] || BIN=$ROOT/$BIN
LOG_LEVEL=${CLUSTER_LOG_LEVEL:-warn}

P_PRIMARY=$BASE
P_STANDBY=$((BASE + 1))
P_PGBOUNCER=$((BASE + 2))
P_SERVE_A=$((BASE + 10))
P_SERVE_B=$((BASE + 11))
P_HAPROXY=$((BASE + 20))
HOST=127.0.0.1

die() { echo "cluster.sh: $*" >&2; exit 1; }
log() { echo "cluster.sh: $*" >&2; }

# PostgreSQL's server binaries: the newest /usr/lib/postgresql/*/bin.
PGBIN=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
	[[ -x $d/pg_basebackup && -x $d/postgres ]] && { PGBIN=$d; break; }
done
PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
HAPROXY=$(command -v haproxy || echo /usr/sbin/haproxy)

# The unprivileged user PostgreSQL and PgBouncer run as when we are root.
RUNAS=""
if [[ $(id -u) == 0 ]]; then
	if id postgres >/dev/null 2>&1; then RUNAS=postgres; else RUNAS=nobody; fi
fi
as_pg() {
	if [[ -n $RUNAS ]]; then (cd / && runuser -u "$RUNAS" -- "$@"); else (cd / && "$@"); fi
}
give() { [[ -z $RUNAS ]] || chown -R "$RUNAS" "$@"; }

# Superuser SQL on a node, over its Unix socket (peer authentication).
psql_su() { local port=$1; shift; as_pg "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR/run" -p "$port" -U postgres -d "${DB:-postgres}" "$@"; }

state() { [[ -f $DIR/cluster.env ]] && sed -n "s/^$1=//p" "$DIR/cluster.env" | tail -n 1; }
set_state() {
	touch "$DIR/cluster.env"
	sed -i "/^$1=/d" "$DIR/cluster.env"
	echo "$1=$2" >>"$DIR/cluster.env"
}

render() { # template output KEY=VALUE...
	local tpl=$1 out=$2 expr=() kv
	shift 2
	for kv in "$@"; do expr+=(-e "s|@${kv%%=*}@|${kv#*=}|g"); done
	sed "${expr[@]}" "$tpl" >"$out"
	! grep -q '@[A-Z_]*@' "$out" || die "unrendered value in $out: $(grep -o '@[A-Z_]*@' "$out" | head -n 1)"
}

pg_start() { # datadir port log [extra postgres -c options]
	local data=$1 port=$2 logf=$3
	shift 3
	as_pg "$PGBIN/pg_ctl" -D "$data" -l "$logf" -w -t 60 \
		-o "-p $port -c listen_addresses=$HOST -c unix_socket_directories=$DIR/run $*" start >/dev/null
}

serve_env() { # name port
	local name=$1 port=$2
	local app="postgres://meridian_app:$(state APP_PASSWORD)@$HOST"
	# Every node; lib/pq keeps the one that accepts writes.
	local nodes="host=$HOST,$HOST port=$P_PRIMARY,$P_STANDBY user=meridian_app password=$(state APP_PASSWORD) dbname=meridian sslmode=disable target_session_attrs=read-write"
	local url="$app:$P_PGBOUNCER/meridian?sslmode=disable"
	[[ $POOLER == pgbouncer ]] || url=$nodes
	cat <<-EOF
		MERIDIAN_ADDR=$HOST:$port
		MERIDIAN_JWT_SECRET=$(state JWT_SECRET)
		MERIDIAN_DATABASE_URL=$url
		MERIDIAN_DATABASE_LISTEN_URL=$nodes
		MERIDIAN_DATABASE_READ_URLS=$app:$P_STANDBY/meridian?sslmode=disable
		MERIDIAN_TRUSTED_PROXIES=$HOST
		MERIDIAN_DATA_DIR=$DIR/serve-$name
		MERIDIAN_LOG_LEVEL=$LOG_LEVEL
		MERIDIAN_DEMO_SEED=false
		MERIDIAN_DAILY_TRANSFER_LIMIT=${CLUSTER_DAILY_TRANSFER_LIMIT:-10000.00}
	EOF
}

start_serve() { # name
	local name=$1 port
	case $name in a) port=$P_SERVE_A ;; b) port=$P_SERVE_B ;; *) die "no instance $name (a or b)" ;; esac
	mkdir -p "$DIR/serve-$name"
	serve_env "$name" "$port" >"$DIR/serve-$name.env"
	chmod 0600 "$DIR/serve-$name.env"
	(
		set -a
		# shellcheck disable=SC1090
		source <(sed 's/^\([A-Z_]*\)=\(.*\)$/\1='"'"'\2'"'"'/' "$DIR/serve-$name.env")
		set +a
		exec setsid "$BIN" serve >>"$DIR/log/serve-$name.log" 2>&1 </dev/null
	) &
	echo $! >"$DIR/run/serve-$name.pid"
	local t0=$SECONDS
	until curl -fsS -o /dev/null "http://$HOST:$port/readyz" 2>/dev/null; do
		kill -0 "$(cat "$DIR/run/serve-$name.pid")" 2>/dev/null || { tail -n 20 "$DIR/log/serve-$name.log" >&2; die "serve $name exited"; }
		((SECONDS - t0 < 60)) || { tail -n 20 "$DIR/log/serve-$name.log" >&2; die "serve $name not ready after 60 s"; }
		sleep 0.2
	done
}

stop_pid() { # pidfile
	local f=$1 pid
	[[ -f $f ]] || return 0
	pid=$(head -n 1 "$f")
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$f"
}

stop_serve() { stop_pid "$DIR/run/serve-$1.pid"; }

render_pgbouncer() { # primary port
	render "$ROOT/deploy/pgbouncer.ini" "$DIR/pgbouncer/pgbouncer.ini" \
		PRIMARY_HOST="$HOST" PRIMARY_PORT="$1" LISTEN_ADDR="$HOST" PGBOUNCER_PORT="$P_PGBOUNCER" \
		RUN_DIR="$DIR/run" LOG_DIR="$DIR/log" AUTH_FILE="$DIR/pgbouncer/userlist.txt" ADMIN_USER=pgbouncer_admin
	give "$DIR/pgbouncer"
}

up() {
	[[ -n $PGBIN ]] || die "PostgreSQL server binaries not found in /usr/lib/postgresql/*/bin (make deps-cluster)"
	[[ -x $PGBOUNCER ]] || die "pgbouncer not found (make deps-cluster)"
	[[ -x $HAPROXY ]] || die "haproxy not found (make deps-cluster)"
	[[ -x $BIN ]] || die "$BIN not found (go build -o bin/meridian ./cmd/meridian)"
	if [[ -f $DIR/cluster.env ]]; then die "$DIR holds a cluster already (cluster.sh stop first)"; fi
	[[ $POOLER == pgbouncer || $POOLER == none ]] || die "CLUSTER_POOLER must be pgbouncer or none"
	local sockpath="$DIR/run/.s.PGSQL.$P_HAPROXY"
	((${#sockpath} <= 100)) || die "CLUSTER_DIR is too long for a Unix socket path ($sockpath)"
	for p in $P_PRIMARY $P_STANDBY $P_PGBOUNCER $P_SERVE_A $P_SERVE_B $P_HAPROXY; do
		if (exec 3<>"/dev/tcp/$HOST/$p") 2>/dev/null; then die "port $p is in use (set CLUSTER_BASE_PORT)"; fi
	done

	# A failure half-way stops what was started, keeping the files.
	trap 'rc=$?; if ((rc != 0)); then CLUSTER_KEEP=1 stop; log "up failed: logs in $DIR/log; cluster.sh stop deletes $DIR"; fi' EXIT
	mkdir -p "$DIR"/{run,log,pgbouncer}
	chmod 0755 "$DIR"
	# Every parent must be traversable by the unprivileged user.
	give "$DIR/run" "$DIR/log"
	: >"$DIR/cluster.env"
	chmod 0600 "$DIR/cluster.env"
	set_state BASE_PORT "$BASE"
	set_state POOLER "$POOLER"
	set_state PRIMARY_PORT "$P_PRIMARY"
	set_state STANDBY_PORT "$P_STANDBY"
	set_state PGBOUNCER_PORT "$P_PGBOUNCER"
	set_state SERVE_A_URL "http://$HOST:$P_SERVE_A"
	set_state SERVE_B_URL "http://$HOST:$P_SERVE_B"
	set_state URL "http://$HOST:$P_HAPROXY"
	set_state HAPROXY_SOCKET "$DIR/run/haproxy.sock"
	set_state APP_PASSWORD "$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"
	set_state OWNER_PASSWORD "$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"
	set_state JWT_SECRET "$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"

	log "primary: initdb, start on :$P_PRIMARY"
	mkdir -p "$DIR/primary" "$DIR/standby"
	give "$DIR/primary" "$DIR/standby"
	chmod 0700 "$DIR/primary" "$DIR/standby"
	as_pg "$PGBIN/initdb" -D "$DIR/primary" -U postgres --auth-local=peer --auth-host=scram-sha-256 \
		--encoding=UTF8 --locale=C >"$DIR/log/initdb.log" 2>&1 || { cat "$DIR/log/initdb.log" >&2; die "initdb failed"; }
	cat >"$DIR/primary/pg_hba.conf" <<-EOF
		# Superuser and replication over the Unix socket only; roles over TCP with SCRAM.
		local   all             postgres                                peer
		local   replication     postgres                                peer
		host    all             all             127.0.0.1/32            scram-sha-256
	EOF
	cat >>"$DIR/primary/postgresql.conf" <<-EOF
		# scripts/cluster/cluster.sh
		wal_level = replica
		max_wal_senders = 5
		hot_standby = on
		hot_standby_feedback = on
		wal_log_hints = on
		max_connections = 120
		shared_buffers = 128MB
		logging_collector = off
	EOF
	give "$DIR/primary"
	pg_start "$DIR/primary" "$P_PRIMARY" "$DIR/log/primary.log"
	set_state PRIMARY_DIR "$DIR/primary"
	set_state STANDBY_DIR "$DIR/standby"

	log "roles meridian_owner and meridian_app, database meridian, migrations"
	psql_su "$P_PRIMARY" <<-EOF
		CREATE ROLE meridian_owner LOGIN PASSWORD '$(state OWNER_PASSWORD)';
		CREATE ROLE meridian_app LOGIN PASSWORD '$(state APP_PASSWORD)' NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
		-- PgBouncer cannot pass statement_timeout per client: the role carries serve's request_timeout.
		ALTER ROLE meridian_app SET statement_timeout = '10s';
		ALTER ROLE meridian_app SET lock_timeout = '9s';
		CREATE DATABASE meridian OWNER meridian_owner;
		REVOKE ALL ON DATABASE meridian FROM PUBLIC;
		GRANT CONNECT, TEMPORARY ON DATABASE meridian TO meridian_app;
	EOF
	local app_direct="postgres://meridian_app:$(state APP_PASSWORD)@$HOST:$P_PRIMARY/meridian?sslmode=disable"
	local owner_direct="postgres://meridian_owner:$(state OWNER_PASSWORD)@$HOST:$P_PRIMARY/meridian?sslmode=disable"
	set_state APP_PRIMARY_URL "$app_direct"
	set_state OWNER_PRIMARY_URL "$owner_direct"
	set_state OWNER_STANDBY_URL "postgres://meridian_owner:$(state OWNER_PASSWORD)@$HOST:$P_STANDBY/meridian?sslmode=disable"
	MERIDIAN_DATABASE_URL=$app_direct MERIDIAN_DATABASE_OWNER_URL=$owner_direct \
		"$BIN" migrate up --data-dir "$DIR/serve-a" --log-level warn >"$DIR/log/migrate.log" 2>&1 ||
		{ cat "$DIR/log/migrate.log" >&2; die "migrate up failed"; }
	if [[ ${CLUSTER_DEMO:-1} == 1 ]]; then
		MERIDIAN_DATABASE_URL=$app_direct MERIDIAN_DEMO_SEED=true \
			"$BIN" seed --data-dir "$DIR/serve-a" --log-level warn >"$DIR/log/seed.log" 2>&1 ||
			{ cat "$DIR/log/seed.log" >&2; die "seed failed"; }
	fi

	log "standby: pg_basebackup -R, start on :$P_STANDBY"
	as_pg "$PGBIN/pg_basebackup" -h "$DIR/run" -p "$P_PRIMARY" -U postgres -D "$DIR/standby" -R -X stream \
		-c fast >"$DIR/log/basebackup.log" 2>&1 || { cat "$DIR/log/basebackup.log" >&2; die "pg_basebackup failed"; }
	pg_start "$DIR/standby" "$P_STANDBY" "$DIR/log/standby.log" -c cluster_name=standby
	set_state PRIMARY current
	set_state PRIMARY_NODE primary

	log "synchronous replication: synchronous_standby_names, synchronous_commit = remote_apply"
	# Only now, so the standby's copy of the configuration has neither: after
	# a promotion it must not wait for a standby of its own.
	psql_su "$P_PRIMARY" -c "ALTER SYSTEM SET synchronous_standby_names = 'standby'" \
		-c "ALTER SYSTEM SET synchronous_commit = 'remote_apply'" -c "SELECT pg_reload_conf()" >/dev/null
	local t0=$SECONDS
	until [[ $(psql_su "$P_PRIMARY" -At -c "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync' AND application_name = 'standby'") == 1 ]]; do
		((SECONDS - t0 < 30)) || die "the standby did not become synchronous in 30 s"
		sleep 0.2
	done

	if [[ $POOLER == pgbouncer ]]; then
		log "PgBouncer (transaction mode) on :$P_PGBOUNCER"
		{
			echo "\"meridian_app\" \"$(state APP_PASSWORD)\""
			echo "\"pgbouncer_admin\" \"$(state OWNER_PASSWORD)\""
		} >"$DIR/pgbouncer/userlist.txt"
		chmod 0600 "$DIR/pgbouncer/userlist.txt"
		render_pgbouncer "$P_PRIMARY"
		as_pg "$PGBOUNCER" -d -q "$DIR/pgbouncer/pgbouncer.ini" || die "pgbouncer did not start (see $DIR/log/pgbouncer.log)"
		t0=$SECONDS
		until (exec 3<>"/dev/tcp/$HOST/$P_PGBOUNCER") 2>/dev/null; do
			((SECONDS - t0 < 10)) || die "pgbouncer not listening after 10 s"
			sleep 0.1
		done
	fi

	log "meridian serve a on :$P_SERVE_A, b on :$P_SERVE_B"
	start_serve a
	start_serve b

	log "HAProxy on :$P_HAPROXY"
	render "$ROOT/deploy/haproxy.cfg" "$DIR/haproxy.cfg" \
		RUN_DIR="$DIR/run" LISTEN_ADDR="$HOST" HAPROXY_PORT="$P_HAPROXY" \
		SERVERS="    server a $HOST:$P_SERVE_A check\n    server b $HOST:$P_SERVE_B check"
	sed -i 's/\\n/\n/g' "$DIR/haproxy.cfg"
	"$HAPROXY" -c -q -f "$DIR/haproxy.cfg" || die "haproxy rejects $DIR/haproxy.cfg"
	"$HAPROXY" -D -f "$DIR/haproxy.cfg" >>"$DIR/log/haproxy.log" 2>&1 || die "haproxy did not start"
	t0=$SECONDS
	until curl -fsS -o /dev/null "http://$HOST:$P_HAPROXY/readyz" 2>/dev/null; do
		((SECONDS - t0 < 20)) || die "HAProxy not answering /readyz after 20 s"
		sleep 0.2
	done

	trap - EXIT
	echo "Meridian cluster up: http://$HOST:$P_HAPROXY"
	if [[ $POOLER == pgbouncer ]]; then pooler="PgBouncer :$P_PGBOUNCER"; else pooler="no pooler"; fi
	echo "  HAProxy :$P_HAPROXY -> serve a :$P_SERVE_A, b :$P_SERVE_B; $pooler;"
	echo "  PostgreSQL primary :$P_PRIMARY, synchronous standby :$P_STANDBY; files and logs in $DIR"
	if [[ ${CLUSTER_DEMO:-1} == 1 ]]; then echo "  sign in as alice@meridian.test / alice12345 (admin: admin@meridian.test / admin12345)"; fi
	echo "  stop it with: make cluster-stop"
}

failover() {
	[[ -f $DIR/cluster.env ]] || die "no cluster in $DIR"
	[[ $(state PRIMARY_NODE) == primary ]] || die "the standby was promoted already"
	local t0
	t0=$(date +%s.%N)
	log "stopping the primary (pg_ctl stop -m immediate: no shutdown checkpoint, like a crash)"
	as_pg "$PGBIN/pg_ctl" -D "$DIR/primary" -m immediate -w stop >/dev/null
	log "promoting the standby (pg_ctl promote)"
	as_pg "$PGBIN/pg_ctl" -D "$DIR/standby" -w -t 60 promote >/dev/null
	if [[ $POOLER == pgbouncer ]]; then
		log "pointing PgBouncer at :$P_STANDBY and reloading it"
		render_pgbouncer "$P_STANDBY"
		kill -HUP "$(cat "$DIR/run/pgbouncer.pid")"
	fi
	set_state PRIMARY_NODE standby
	set_state PRIMARY_PORT "$P_STANDBY"
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "cluster.sh: failover done in %.2f s\n", b - a }' >&2
}

sync_commit() {
	local mode=$1 port
	[[ $mode == remote_apply || $mode == local || $mode == on ]] || die "sync-commit takes remote_apply, on or local"
	port=$(state PRIMARY_PORT)
	psql_su "$port" -c "ALTER SYSTEM SET synchronous_commit = '$mode'" -c "SELECT pg_reload_conf()" >/dev/null
}

status() {
	[[ -f $DIR/cluster.env ]] || die "no cluster in $DIR"
	echo "URL $(state URL); primary is the node '$(state PRIMARY_NODE)' on :$(state PRIMARY_PORT)"
	for n in primary standby; do
		if as_pg "$PGBIN/pg_ctl" -D "$DIR/$n" status >/dev/null 2>&1; then echo "postgres $n: running"; else echo "postgres $n: stopped"; fi
	done
	for f in pgbouncer haproxy serve-a serve-b; do
		if [[ -f $DIR/run/$f.pid ]] && kill -0 "$(head -n 1 "$DIR/run/$f.pid")" 2>/dev/null; then echo "$f: running"; else echo "$f: stopped"; fi
	done
}

stop() {
	[[ -d $DIR ]] || { log "nothing in $DIR"; return 0; }
	[[ -f $DIR/cluster.env || -d $DIR/run ]] || die "$DIR does not look like a cluster directory; not touching it"
	stop_pid "$DIR/run/haproxy.pid"
	stop_serve a
	stop_serve b
	stop_pid "$DIR/run/pgbouncer.pid"
	for n in primary standby; do
		if [[ -n $PGBIN && -f $DIR/$n/postmaster.pid ]]; then
			as_pg "$PGBIN/pg_ctl" -D "$DIR/$n" -m immediate -w stop >/dev/null 2>&1 || true
		fi
	done
	if [[ ${CLUSTER_KEEP:-0} == 1 ]]; then log "kept $DIR"; else rm -rf "$DIR"; fi
	log "stopped"
}

case ${1:-} in
up) up ;;
stop) stop ;;
status) status ;;
failover) failover ;;
sync-commit) sync_commit "${2:-}" ;;
stop-serve) stop_serve "${2:?name}" ;;
start-serve) start_serve "${2:?name}" ;;
*) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
