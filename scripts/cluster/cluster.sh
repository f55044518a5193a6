#!/usr/bin/env bash
# A Meridian cluster on this machine, as local processes on loopback:
#
#   HAProxy :BASE+20 (/readyz checks) --> serve a :BASE+10, serve b :BASE+11
#   serve --(queries)--> PgBouncer :BASE+2 (transaction mode) --> HAProxy :BASE+3
#   serve --(LISTEN)---> HAProxy :BASE+3 (the primary, directly: no pooler)
#   serve --(reads)----> HAProxy :BASE+4 (the standbys)
#   HAProxy :BASE+3 --> the node whose Patroni answers GET /primary 200
#   HAProxy :BASE+4 --> the nodes whose Patroni answers GET /replica 200
#   PostgreSQL node1 :BASE, node2 :BASE+1, each run by Patroni (REST :BASE+5,
#   :BASE+6), the leader key in etcd :BASE+7; synchronous_mode, remote_apply;
#   WAL archived and base backups taken by pgBackRest (repository in CLUSTER_DIR)
#
# Usage: cluster.sh up | stop | status | members | kill-primary
#                   | stop-serve NAME | start-serve NAME [BIN] | upgrade-serve NAME BIN
#                   | sync-commit remote_apply|local | pgbackrest ARGS...
#
#   up            make and start everything in CLUSTER_DIR, print the URL (and
#                 write CLUSTER_DIR/cluster.env for scripts and the cluster test)
#   stop          stop every process and delete CLUSTER_DIR (CLUSTER_KEEP=1: keep it)
#   members       Patroni's view of the nodes (patronictl list)
#   kill-primary  the failover drill's fault: SIGKILL to the primary's postmaster.
#                 Nothing else: Patroni fails over, HAProxy follows, the old
#                 primary comes back as a standby (pg_rewind), by themselves
#   upgrade-serve drain instance NAME in HAProxy, wait until it has no request
#                 in flight, stop it (SIGTERM), start BIN in its place, wait for
#                 /readyz, put it back: a rolling upgrade's step (README)
#   sync-commit   set synchronous_commit for the cluster through Patroni
#                 (remote_apply: the default here; local: no wait for the standby)
#   pgbackrest    run pgbackrest with the cluster's configuration, as the
#                 PostgreSQL user (pgbackrest info, backup, ...)
#
# Environment (defaults): CLUSTER_DIR=/tmp/meridian-cluster  CLUSTER_BASE_PORT=25400
#   MERIDIAN_BIN=bin/meridian  CLUSTER_DEMO=1 (seed demo users alice/bob)
#   CLUSTER_LOG_LEVEL=warn  CLUSTER_DAILY_TRANSFER_LIMIT=10000.00 (serve's
#                 daily_transfer_limit; the cluster test raises it so its load
#                 measures payments, not refusals)
#   CLUSTER_POOLER=pgbouncer  none: no PgBouncer; serve's database_url is
#                 HAProxy's primary port, like its LISTEN session
#   CLUSTER_BACKUPS=1  0: no pgBackRest stanza and no base backup (the WAL is
#                 then not archived: archive_command fails and PostgreSQL
#                 keeps it)
#
# PostgreSQL, Patroni, etcd, pgBackRest and PgBouncer run as the user
# "postgres" (or "nobody") when this runs as root: PostgreSQL refuses root.
# Config files come from deploy/ (patroni.yml, haproxy-postgres.cfg,
# pgbackrest.conf, pgbouncer.ini, haproxy.cfg), rendered with this cluster's
# ports and paths.
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

P_NODE1=$BASE
P_NODE2=$((BASE + 1))
P_PGBOUNCER=$((BASE + 2))
P_PG_PRIMARY=$((BASE + 3))
P_PG_REPLICA=$((BASE + 4))
P_REST1=$((BASE + 5))
P_REST2=$((BASE + 6))
P_ETCD=$((BASE + 7))
P_ETCD_PEER=$((BASE + 8))
P_SERVE_A=$((BASE + 10))
P_SERVE_B=$((BASE + 11))
P_HAPROXY=$((BASE + 20))
PORTS="$P_NODE1 $P_NODE2 $P_PGBOUNCER $P_PG_PRIMARY $P_PG_REPLICA $P_REST1 $P_REST2 $P_ETCD $P_ETCD_PEER $P_SERVE_A $P_SERVE_B $P_HAPROXY"
HOST=127.0.0.1

die() { echo "cluster.sh: $*" >&2; exit 1; }
log() { echo "cluster.sh: $*" >&2; }

# PostgreSQL's server binaries: the newest /usr/lib/postgresql/*/bin.
PGBIN=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
	[[ -x $d/pg_basebackup && -x $d/postgres && -x $d/pg_rewind ]] && { PGBIN=$d; break; }
done
PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
HAPROXY=$(command -v haproxy || echo /usr/sbin/haproxy)
PATRONI=$(command -v patroni || echo /usr/bin/patroni)
PATRONICTL=$(command -v patronictl || echo /usr/bin/patronictl)
ETCD=$(command -v etcd || echo /usr/bin/etcd)
PGBACKREST=$(command -v pgbackrest || echo /usr/bin/pgbackrest)

# The unprivileged user the database side runs as when we are root.
RUNAS=""
if [[ $(id -u) == 0 ]]; then
	if id postgres >/dev/null 2>&1; then RUNAS=postgres; else RUNAS=nobody; fi
fi
as_pg() {
	if [[ -n $RUNAS ]]; then (cd / && runuser -u "$RUNAS" -- "$@"); else (cd / && "$@"); fi
}
give() { [[ -z $RUNAS ]] || chown -R "$RUNAS" "$@"; }

# daemon NAME CMD...: start CMD in the background (its own session, as the
# PostgreSQL user), output to log/NAME.log, pid in run/NAME.pid.
daemon() {
	local name=$1
	shift
	local drop=()
	[[ -z $RUNAS ]] || drop=(setpriv --reuid="$RUNAS" --regid="$(id -g "$RUNAS")" --init-groups)
	(cd / && exec setsid "${drop[@]}" "$@" >>"$DIR/log/$name.log" 2>&1 </dev/null) &
	echo $! >"$DIR/run/$name.pid"
}

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
	sed -i 's/\\n/\n/g' "$out"
	! grep -q '@[A-Z_0-9]*@' "$out" || die "unrendered value in $out: $(grep -o '@[A-Z_0-9]*@' "$out" | head -n 1)"
}

wait_for() { # seconds what command...
	local secs=$1 what=$2 t0=$SECONDS
	shift 2
	until "$@" >/dev/null 2>&1; do
		((SECONDS - t0 < secs)) || die "$what: not after $secs s (logs in $DIR/log)"
		sleep 0.2
	done
}

# rest NODE PATH: GET on the node's Patroni REST API; the HTTP status.
rest() {
	local port
	case $1 in node1) port=$P_REST1 ;; node2) port=$P_REST2 ;; *) die "no node $1" ;; esac
	curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://$HOST:$port$2" || true
}
is_primary() { [[ $(rest "$1" /primary) == 200 ]]; }
is_replica() { [[ $(rest "$1" /replica) == 200 ]]; }
primary_node() {
	local n
	for n in node1 node2; do
		if is_primary $n; then echo $n; return 0; fi
	done
	return 1
}
node_port() { case $1 in node1) echo $P_NODE1 ;; node2) echo $P_NODE2 ;; esac; }

serve_env() { # name port
	local name=$1 port=$2
	local app="postgres://meridian_app:$(state APP_PASSWORD)@$HOST"
	local url="$app:$P_PGBOUNCER/meridian?sslmode=disable"
	[[ $POOLER == pgbouncer ]] || url="$app:$P_PG_PRIMARY/meridian?sslmode=disable"
	cat <<-EOF
		MERIDIAN_ADDR=$HOST:$port
		MERIDIAN_JWT_SECRET=$(state JWT_SECRET)
		MERIDIAN_DATABASE_URL=$url
		MERIDIAN_DATABASE_LISTEN_URL=$app:$P_PG_PRIMARY/meridian?sslmode=disable
		MERIDIAN_DATABASE_READ_URLS=$app:$P_PG_REPLICA/meridian?sslmode=disable
		MERIDIAN_TRUSTED_PROXIES=$HOST
		MERIDIAN_DATA_DIR=$DIR/serve-$name
		MERIDIAN_LOG_LEVEL=$LOG_LEVEL
		MERIDIAN_DEMO_SEED=false
		MERIDIAN_DAILY_TRANSFER_LIMIT=${CLUSTER_DAILY_TRANSFER_LIMIT:-10000.00}
		MERIDIAN_SHUTDOWN_DELAY=${CLUSTER_SHUTDOWN_DELAY:-3s}
	EOF
}

serve_port() { case $1 in a) echo $P_SERVE_A ;; b) echo $P_SERVE_B ;; *) die "no instance $1 (a or b)" ;; esac; }

start_serve() { # name [binary]
	local name=$1 bin=${2:-$(state "SERVE_${1^^}_BIN")} port
	[[ -n $bin ]] || bin=$BIN
	port=$(serve_port "$name")
	mkdir -p "$DIR/serve-$name"
	serve_env "$name" "$port" >"$DIR/serve-$name.env"
	chmod 0600 "$DIR/serve-$name.env"
	set_state "SERVE_${name^^}_BIN" "$bin"
	(
		set -a
		# shellcheck disable=SC1090
		source <(sed 's/^\([A-Z_]*\)=\(.*\)$/\1='"'"'\2'"'"'/' "$DIR/serve-$name.env")
		set +a
		exec setsid "$bin" serve >>"$DIR/log/serve-$name.log" 2>&1 </dev/null
	) &
	echo $! >"$DIR/run/serve-$name.pid"
	local t0=$SECONDS
	until curl -fsS -o /dev/null "http://$HOST:$port/readyz" 2>/dev/null; do
		kill -0 "$(cat "$DIR/run/serve-$name.pid")" 2>/dev/null || { tail -n 20 "$DIR/log/serve-$name.log" >&2; die "serve $name exited"; }
		((SECONDS - t0 < 60)) || { tail -n 20 "$DIR/log/serve-$name.log" >&2; die "serve $name not ready after 60 s"; }
		sleep 0.2
	done
}

stop_pid() { # pidfile [seconds]
	local f=$1 secs=${2:-10} pid
	[[ -f $f ]] || return 0
	pid=$(head -n 1 "$f")
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 $((secs * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$f"
}

# The longest a serve takes to stop: shutdown_delay, then request_timeout and
# the WebSockets' close.
stop_serve() { stop_pid "$DIR/run/serve-$1.pid" 30; }

# haproxy_cmd SOCKET COMMAND: one command on an HAProxy runtime socket.
haproxy_cmd() { echo "$2" | socat -t 2 - "UNIX-CONNECT:$1" 2>/dev/null || python3 -c '
import socket,sys
s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall((sys.argv[2]+"\n").encode())
out=b""
while True:
    b=s.recv(65536)
    if not b: break
    out+=b
sys.stdout.write(out.decode())' "$1" "$2"; }

# upgrade_serve NAME BIN: a rolling upgrade's step for one instance.
upgrade_serve() {
	local name=$1 bin=$2 sock t0
	[[ -x $bin ]] || die "$bin is not an executable"
	sock=$(state HAPROXY_SOCKET)
	log "serve $name: drained in HAProxy (no new requests), waiting for its requests in flight"
	haproxy_cmd "$sock" "set server meridian/$name state drain" >/dev/null
	t0=$SECONDS
	while :; do
		# show stat: field 5 is scur (current sessions) of the server's row.
		local cur
		cur=$(haproxy_cmd "$sock" "show stat" | awk -F, -v s="$name" '$1 == "meridian" && $2 == s { print $5 }')
		[[ ${cur:-0} == 0 ]] && break
		((SECONDS - t0 < 30)) || { log "serve $name still has $cur sessions after 30 s; stopping it anyway"; break; }
		sleep 0.1
	done
	log "serve $name: stopping (SIGTERM: requests in flight finish, WebSockets close with 1001)"
	stop_serve "$name"
	log "serve $name: starting $bin"
	start_serve "$name" "$bin"
	haproxy_cmd "$sock" "set server meridian/$name state ready" >/dev/null
	t0=$SECONDS
	until [[ $(haproxy_cmd "$sock" "show stat" | awk -F, -v s="$name" '$1 == "meridian" && $2 == s { print $18 }') == UP ]]; do
		((SECONDS - t0 < 30)) || die "serve $name not UP in HAProxy after 30 s"
		sleep 0.1
	done
	log "serve $name: back in HAProxy"
}

render_pgbouncer() {
	render "$ROOT/deploy/pgbouncer.ini" "$DIR/pgbouncer/pgbouncer.ini" \
		PRIMARY_HOST="$HOST" PRIMARY_PORT="$P_PG_PRIMARY" LISTEN_ADDR="$HOST" PGBOUNCER_PORT="$P_PGBOUNCER" \
		RUN_DIR="$DIR/run" LOG_DIR="$DIR/log" AUTH_FILE="$DIR/pgbouncer/userlist.txt" ADMIN_USER=pgbouncer_admin
	give "$DIR/pgbouncer"
}

render_patroni() { # node rest_port pg_port
	local name=$1
	render "$ROOT/deploy/patroni.yml" "$DIR/patroni/$name.yml" \
		NAME="$name" HOST="$HOST" REST_PORT="$2" PG_PORT="$3" ETCD_HOSTS="$HOST:$P_ETCD" \
		DATA_DIR="$DIR/$name" PG_BIN="$PGBIN" PGPASS="$DIR/patroni/$name.pgpass" SOCKET_DIR="$DIR/run" \
		SUPERUSER_PASSWORD="$(state SUPERUSER_PASSWORD)" REPLICATION_USER=replicator \
		REPLICATION_PASSWORD="$(state REPLICATION_PASSWORD)" PGBACKREST_CONF="$DIR/pgbackrest/pgbackrest.conf"
	chmod 0600 "$DIR/patroni/$name.yml"
	give "$DIR/patroni"
}

secret() { head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

up() {
	[[ -n $PGBIN ]] || die "PostgreSQL server binaries not found in /usr/lib/postgresql/*/bin (make deps-cluster)"
	local tool
	for tool in "$PGBOUNCER" "$HAPROXY" "$PATRONI" "$PATRONICTL" "$ETCD" "$PGBACKREST"; do
		[[ -x $tool ]] || die "$tool not found (make deps-cluster)"
	done
	[[ -x $BIN ]] || die "$BIN not found (go build -o bin/meridian ./cmd/meridian)"
	if [[ -f $DIR/cluster.env ]]; then die "$DIR holds a cluster already (cluster.sh stop first)"; fi
	[[ $POOLER == pgbouncer || $POOLER == none ]] || die "CLUSTER_POOLER must be pgbouncer or none"
	local sockpath="$DIR/run/.s.PGSQL.$P_HAPROXY"
	((${#sockpath} <= 100)) || die "CLUSTER_DIR is too long for a Unix socket path ($sockpath)"
	for p in $PORTS; do
		if (exec 3<>"/dev/tcp/$HOST/$p") 2>/dev/null; then die "port $p is in use (set CLUSTER_BASE_PORT)"; fi
	done

	# A failure half-way stops what was started, keeping the files.
	trap 'rc=$?; if ((rc != 0)); then CLUSTER_KEEP=1 stop; log "up failed: logs in $DIR/log; cluster.sh stop deletes $DIR"; fi' EXIT
	mkdir -p "$DIR"/{run,log,pgbouncer,patroni,etcd,pgbackrest/repo,node1,node2}
	chmod 0755 "$DIR"
	chmod 0700 "$DIR/etcd" "$DIR/patroni" "$DIR/pgbackrest" "$DIR/node1" "$DIR/node2"
	give "$DIR/run" "$DIR/log" "$DIR/etcd" "$DIR/patroni" "$DIR/pgbackrest" "$DIR/node1" "$DIR/node2"
	: >"$DIR/cluster.env"
	chmod 0600 "$DIR/cluster.env"
	set_state BASE_PORT "$BASE"
	set_state POOLER "$POOLER"
	set_state NODE1_PORT "$P_NODE1"
	set_state NODE2_PORT "$P_NODE2"
	set_state NODE1_DIR "$DIR/node1"
	set_state NODE2_DIR "$DIR/node2"
	set_state NODE1_REST "http://$HOST:$P_REST1"
	set_state NODE2_REST "http://$HOST:$P_REST2"
	set_state PGBOUNCER_PORT "$P_PGBOUNCER"
	set_state PG_PRIMARY_PORT "$P_PG_PRIMARY"
	set_state PG_REPLICA_PORT "$P_PG_REPLICA"
	set_state SERVE_A_URL "http://$HOST:$P_SERVE_A"
	set_state SERVE_B_URL "http://$HOST:$P_SERVE_B"
	set_state URL "http://$HOST:$P_HAPROXY"
	set_state HAPROXY_SOCKET "$DIR/run/haproxy.sock"
	set_state HAPROXY_PG_SOCKET "$DIR/run/haproxy-postgres.sock"
	set_state PGBACKREST_CONF "$DIR/pgbackrest/pgbackrest.conf"
	set_state SOCKET_DIR "$DIR/run"
	set_state APP_PASSWORD "$(secret)"
	set_state OWNER_PASSWORD "$(secret)"
	set_state SUPERUSER_PASSWORD "$(secret)"
	set_state REPLICATION_PASSWORD "$(secret)"
	set_state JWT_SECRET "$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"

	log "etcd on :$P_ETCD (the leader key)"
	daemon etcd "$ETCD" --name m1 --data-dir "$DIR/etcd/m1" \
		--listen-client-urls "http://$HOST:$P_ETCD" --advertise-client-urls "http://$HOST:$P_ETCD" \
		--listen-peer-urls "http://$HOST:$P_ETCD_PEER" --initial-advertise-peer-urls "http://$HOST:$P_ETCD_PEER" \
		--initial-cluster "m1=http://$HOST:$P_ETCD_PEER" --initial-cluster-state new --log-level warn --logger zap
	wait_for 30 "etcd health" curl -fsS "http://$HOST:$P_ETCD/health"

	log "pgBackRest configuration (repository in $DIR/pgbackrest/repo)"
	render "$ROOT/deploy/pgbackrest.conf" "$DIR/pgbackrest/pgbackrest.conf" REPO_DIR="$DIR/pgbackrest/repo" \
		LOG_DIR="$DIR/log" LOCK_DIR="$DIR/run" NODE1_DIR="$DIR/node1" NODE1_PORT="$P_NODE1" \
		NODE2_DIR="$DIR/node2" NODE2_PORT="$P_NODE2" SOCKET_DIR="$DIR/run"
	give "$DIR/pgbackrest"

	log "Patroni node1: bootstrap (initdb), primary on :$P_NODE1"
	render_patroni node1 "$P_REST1" "$P_NODE1"
	render_patroni node2 "$P_REST2" "$P_NODE2"
	daemon patroni-node1 "$PATRONI" "$DIR/patroni/node1.yml"
	wait_for 90 "node1 primary (GET /primary)" is_primary node1

	log "HAProxy for PostgreSQL: primary :$P_PG_PRIMARY, replicas :$P_PG_REPLICA (Patroni's REST checks)"
	render "$ROOT/deploy/haproxy-postgres.cfg" "$DIR/haproxy-postgres.cfg" RUN_DIR="$DIR/run" LISTEN_ADDR="$HOST" \
		PRIMARY_PORT="$P_PG_PRIMARY" REPLICA_PORT="$P_PG_REPLICA" \
		PRIMARY_SERVERS="    server node1 $HOST:$P_NODE1 check port $P_REST1\n    server node2 $HOST:$P_NODE2 check port $P_REST2" \
		REPLICA_SERVERS="    server node1 $HOST:$P_NODE1 check port $P_REST1\n    server node2 $HOST:$P_NODE2 check port $P_REST2"
	"$HAPROXY" -c -q -f "$DIR/haproxy-postgres.cfg" || die "haproxy rejects $DIR/haproxy-postgres.cfg"
	"$HAPROXY" -D -f "$DIR/haproxy-postgres.cfg" >>"$DIR/log/haproxy-postgres.log" 2>&1 || die "haproxy (postgres) did not start"

	log "roles meridian_owner and meridian_app, database meridian"
	psql_su "$P_NODE1" <<-EOF
		CREATE ROLE meridian_owner LOGIN PASSWORD '$(state OWNER_PASSWORD)';
		CREATE ROLE meridian_app LOGIN PASSWORD '$(state APP_PASSWORD)' NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
		-- PgBouncer cannot pass statement_timeout per client: the role carries serve's request_timeout.
		ALTER ROLE meridian_app SET statement_timeout = '10s';
		ALTER ROLE meridian_app SET lock_timeout = '9s';
		CREATE DATABASE meridian OWNER meridian_owner;
		REVOKE ALL ON DATABASE meridian FROM PUBLIC;
		GRANT CONNECT, TEMPORARY ON DATABASE meridian TO meridian_app;
	EOF
	local app_primary="postgres://meridian_app:$(state APP_PASSWORD)@$HOST:$P_PG_PRIMARY/meridian?sslmode=disable"
	local owner_primary="postgres://meridian_owner:$(state OWNER_PASSWORD)@$HOST:$P_PG_PRIMARY/meridian?sslmode=disable"
	set_state APP_PRIMARY_URL "$app_primary"
	set_state OWNER_PRIMARY_URL "$owner_primary"
	set_state OWNER_REPLICA_URL "postgres://meridian_owner:$(state OWNER_PASSWORD)@$HOST:$P_PG_REPLICA/meridian?sslmode=disable"
	set_state OWNER_NODE1_URL "postgres://meridian_owner:$(state OWNER_PASSWORD)@$HOST:$P_NODE1/meridian?sslmode=disable"
	set_state OWNER_NODE2_URL "postgres://meridian_owner:$(state OWNER_PASSWORD)@$HOST:$P_NODE2/meridian?sslmode=disable"
	wait_for 20 "HAProxy's primary port" "$PGBIN/pg_isready" -q -h "$HOST" -p "$P_PG_PRIMARY"

	log "migrations (as meridian_owner, through HAProxy's primary port)"
	MERIDIAN_DATABASE_URL=$app_primary MERIDIAN_DATABASE_OWNER_URL=$owner_primary \
		"$BIN" migrate up --data-dir "$DIR/serve-a" --log-level warn >"$DIR/log/migrate.log" 2>&1 ||
		{ cat "$DIR/log/migrate.log" >&2; die "migrate up failed"; }
	if [[ ${CLUSTER_DEMO:-1} == 1 ]]; then
		MERIDIAN_DATABASE_URL=$app_primary MERIDIAN_DEMO_SEED=true \
			"$BIN" seed --data-dir "$DIR/serve-a" --log-level warn >"$DIR/log/seed.log" 2>&1 ||
			{ cat "$DIR/log/seed.log" >&2; die "seed failed"; }
	fi

	log "Patroni node2: a standby cloned from node1 (pg_basebackup), synchronous"
	daemon patroni-node2 "$PATRONI" "$DIR/patroni/node2.yml"
	wait_for 90 "node2 replica (GET /replica)" is_replica node2
	wait_for 30 "node2 synchronous (pg_stat_replication)" \
		bash -c "[[ \$(cd / && ${RUNAS:+runuser -u $RUNAS --} $PGBIN/psql -X -At -h $DIR/run -p $P_NODE1 -U postgres -d postgres -c \"SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'\") == 1 ]]"
	set_state PRIMARY_NODE node1

	if [[ ${CLUSTER_BACKUPS:-1} == 1 ]]; then
		log "pgBackRest: stanza meridian, archiving checked, a full backup"
		as_pg "$PGBACKREST" --config="$DIR/pgbackrest/pgbackrest.conf" --stanza=meridian stanza-create >>"$DIR/log/pgbackrest-setup.log" 2>&1 ||
			{ tail -n 20 "$DIR/log/pgbackrest-setup.log" >&2; die "pgbackrest stanza-create failed"; }
		as_pg "$PGBACKREST" --config="$DIR/pgbackrest/pgbackrest.conf" --stanza=meridian check >>"$DIR/log/pgbackrest-setup.log" 2>&1 ||
			{ tail -n 20 "$DIR/log/pgbackrest-setup.log" >&2; die "pgbackrest check failed"; }
		as_pg "$PGBACKREST" --config="$DIR/pgbackrest/pgbackrest.conf" --stanza=meridian --type=full backup >>"$DIR/log/pgbackrest-setup.log" 2>&1 ||
			{ tail -n 20 "$DIR/log/pgbackrest-setup.log" >&2; die "pgbackrest backup failed"; }
	fi

	if [[ $POOLER == pgbouncer ]]; then
		log "PgBouncer (transaction mode) on :$P_PGBOUNCER, to HAProxy's primary port"
		{
			echo "\"meridian_app\" \"$(state APP_PASSWORD)\""
			echo "\"pgbouncer_admin\" \"$(state OWNER_PASSWORD)\""
		} >"$DIR/pgbouncer/userlist.txt"
		chmod 0600 "$DIR/pgbouncer/userlist.txt"
		render_pgbouncer
		as_pg "$PGBOUNCER" -d -q "$DIR/pgbouncer/pgbouncer.ini" || die "pgbouncer did not start (see $DIR/log/pgbouncer.log)"
		wait_for 10 "pgbouncer listening" bash -c "exec 3<>/dev/tcp/$HOST/$P_PGBOUNCER"
	fi

	log "meridian serve a on :$P_SERVE_A, b on :$P_SERVE_B"
	start_serve a
	start_serve b

	log "HAProxy on :$P_HAPROXY"
	render "$ROOT/deploy/haproxy.cfg" "$DIR/haproxy.cfg" \
		RUN_DIR="$DIR/run" LISTEN_ADDR="$HOST" HAPROXY_PORT="$P_HAPROXY" DEPLOY_DIR="$ROOT/deploy" \
		SERVERS="    server a $HOST:$P_SERVE_A check\n    server b $HOST:$P_SERVE_B check"
	"$HAPROXY" -c -q -f "$DIR/haproxy.cfg" || die "haproxy rejects $DIR/haproxy.cfg"
	"$HAPROXY" -D -f "$DIR/haproxy.cfg" >>"$DIR/log/haproxy.log" 2>&1 || die "haproxy did not start"
	wait_for 20 "HAProxy answering /readyz" curl -fsS -o /dev/null "http://$HOST:$P_HAPROXY/readyz"

	trap - EXIT
	echo "Meridian cluster up: http://$HOST:$P_HAPROXY"
	if [[ $POOLER == pgbouncer ]]; then pooler="PgBouncer :$P_PGBOUNCER"; else pooler="no pooler"; fi
	echo "  HAProxy :$P_HAPROXY -> serve a :$P_SERVE_A, b :$P_SERVE_B; $pooler; PostgreSQL through HAProxy :$P_PG_PRIMARY (primary), :$P_PG_REPLICA (standbys)"
	echo "  Patroni node1 (PostgreSQL :$P_NODE1, REST :$P_REST1) and node2 (:$P_NODE2, REST :$P_REST2), etcd :$P_ETCD; files and logs in $DIR"
	if [[ ${CLUSTER_DEMO:-1} == 1 ]]; then echo "  sign in as alice@meridian.test / alice12345 (admin: admin@meridian.test / admin12345)"; fi
	echo "  scripts/cluster/cluster.sh members | kill-primary | pgbackrest info; stop it with: make cluster-stop"
}

members() {
	[[ -f $DIR/cluster.env ]] || die "no cluster in $DIR"
	as_pg "$PATRONICTL" -c "$DIR/patroni/node1.yml" list
}

kill_primary() {
	[[ -f $DIR/cluster.env ]] || die "no cluster in $DIR"
	local node pid
	node=$(primary_node) || die "no node is primary now"
	pid=$(head -n 1 "$DIR/$node/postmaster.pid")
	log "SIGKILL to $node's postmaster (pid $pid); Patroni takes it from here"
	kill -KILL "$pid"
	echo "$node"
}

sync_commit() {
	local mode=$1
	[[ $mode == remote_apply || $mode == local || $mode == on ]] || die "sync-commit takes remote_apply, on or local"
	as_pg "$PATRONICTL" -c "$DIR/patroni/node1.yml" edit-config --force --quiet -s "postgresql.parameters.synchronous_commit=$mode" >/dev/null
	# Patroni applies it at its next loop (a reload): wait until the primary has it.
	local node
	node=$(primary_node)
	wait_for 15 "synchronous_commit = $mode" \
		bash -c "[[ \$(cd / && ${RUNAS:+runuser -u $RUNAS --} $PGBIN/psql -X -At -h $DIR/run -p $(node_port "$node") -U postgres -d postgres -c 'SHOW synchronous_commit') == $mode ]]"
}

status() {
	[[ -f $DIR/cluster.env ]] || die "no cluster in $DIR"
	echo "URL $(state URL); primary: $(primary_node || echo none)"
	for n in node1 node2; do
		echo "$n: /primary $(rest $n /primary), /replica $(rest $n /replica)"
	done
	for f in etcd patroni-node1 patroni-node2 pgbouncer haproxy haproxy-postgres serve-a serve-b; do
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
	stop_pid "$DIR/run/haproxy-postgres.pid"
	# Patroni stops its PostgreSQL on SIGTERM.
	stop_pid "$DIR/run/patroni-node2.pid" 30
	stop_pid "$DIR/run/patroni-node1.pid" 30
	for n in node1 node2; do
		if [[ -n $PGBIN && -f $DIR/$n/postmaster.pid ]]; then
			as_pg "$PGBIN/pg_ctl" -D "$DIR/$n" -m immediate -w stop >/dev/null 2>&1 || true
		fi
	done
	stop_pid "$DIR/run/etcd.pid"
	if [[ ${CLUSTER_KEEP:-0} == 1 ]]; then log "kept $DIR"; else rm -rf "$DIR"; fi
	log "stopped"
}

case ${1:-} in
up) up ;;
stop) stop ;;
status) status ;;
members) members ;;
kill-primary) kill_primary ;;
sync-commit) sync_commit "${2:-}" ;;
stop-serve) stop_serve "${2:?name}" ;;
start-serve) start_serve "${2:?name}" "${3:-}" ;;
upgrade-serve) upgrade_serve "${2:?name}" "${3:?binary}" ;;
pgbackrest) shift; as_pg "$PGBACKREST" --config="$DIR/pgbackrest/pgbackrest.conf" --stanza=meridian "$@" ;;
*) sed -n '2,47p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
