#!/usr/bin/env bash
# Meridian load benchmark: the API against the same SQL in pgbench.
#
# Starts `meridian serve` on a fresh embedded PostgreSQL in a temp dir, runs
# `meridian bench` (transfers from BENCH_CLIENTS clients for BENCH_DURATION,
# then history/dashboard reads, then WebSocket push timing, then the
# invariant check), then runs scripts/pgbench/transfer.sql with pgbench at
# the same concurrency and duration on the same database, checks the
# invariant again, and prints both rates and their ratio. Stops everything
# on exit.
#
# Environment (defaults):
#   MERIDIAN_BIN=bin/meridian  BENCH_DURATION=20s  BENCH_CLIENTS=32
#   BENCH_USERS=200  BENCH_READ_DURATION=10s  BENCH_NOTIFY_SAMPLES=200
#   BENCH_BIG=0      1: first bulk-seed BENCH_BIG_USERS=100000 customers with
#                    5 transfers each (about 1,100,000 ledger rows), timed;
#                    at the end, also read history and dashboards of 200 of
#                    those customers (their rows are spread over the ledger)
#   BENCH_PORT=      (a free port)   BENCH_KEEP=0 (1: keep the temp dir)
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${MERIDIAN_BIN:-bin/meridian}
DURATION=${BENCH_DURATION:-20s}
CLIENTS=${BENCH_CLIENTS:-32}
USERS=${BENCH_USERS:-200}
READ_DURATION=${BENCH_READ_DURATION:-10s}
NOTIFY_SAMPLES=${BENCH_NOTIFY_SAMPLES:-200}
BIG=${BENCH_BIG:-0}
BIG_USERS=${BENCH_BIG_USERS:-100000}

die() { echo "bench.sh: $*" >&2; exit 1; }

[[ -x $BIN ]] || die "$BIN not found; build it first (make build, or go build -o bin/meridian ./cmd/meridian)"

# Seconds for pgbench -T from a Go-style duration: 20, 20s, 2m, 1m30s.
seconds() {
	local d=$1 total=0
	[[ $d =~ ^[0-9]+$ ]] && { echo "$d"; return; }
	[[ $d =~ ^([0-9]+m)?([0-9]+s)?$ && -n $d ]] || die "cannot read the duration '$d' (use e.g. 20s or 2m)"
	[[ -n ${BASH_REMATCH[1]} ]] && total=$(( total + ${BASH_REMATCH[1]%m} * 60 ))
	[[ -n ${BASH_REMATCH[2]} ]] && total=$(( total + ${BASH_REMATCH[2]%s} ))
	echo "$total"
}
SECS=$(seconds "$DURATION")
(( SECS > 0 )) || die "BENCH_DURATION must be positive"

# PostgreSQL client tools: PATH, else the newest /usr/lib/postgresql/*/bin.
PGBIN=""
if command -v pgbench >/dev/null 2>&1; then
	PGBIN=$(dirname "$(command -v pgbench)")
else
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		[[ -x $d/pgbench ]] && { PGBIN=$d; break; }
	done
fi
[[ -n $PGBIN ]] || die "pgbench not found (install postgresql-contrib or the postgresql package)"

free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$(( 20000 + RANDOM % 20000 ))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
	die "no free port found"
}
PORT=${BENCH_PORT:-$(free_port)}
URL="http://127.0.0.1:$PORT"

DIR=$(mktemp -d /tmp/mbench.XXXXXX)
chmod 0755 "$DIR"
SERVE_PID=""

cleanup() {
	local rc=$?
	if [[ -n $SERVE_PID ]] && kill -0 "$SERVE_PID" 2>/dev/null; then
		kill -TERM "$SERVE_PID" 2>/dev/null || true
		for _ in $(seq 1 150); do kill -0 "$SERVE_PID" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$SERVE_PID" 2>/dev/null || true
		wait "$SERVE_PID" 2>/dev/null || true
	fi
	# A PostgreSQL left running for this data dir (serve was killed): stop it.
	if [[ -f $DIR/postgres/postmaster.pid ]]; then
		local owner
		owner=$(stat -c %U "$DIR/postgres")
		if [[ $(id -u) == 0 && $owner != root ]]; then
			(cd / && runuser -u "$owner" -- "$PGBIN/pg_ctl" -D "$DIR/postgres" -m fast -w stop >/dev/null 2>&1) || true
		else
			"$PGBIN/pg_ctl" -D "$DIR/postgres" -m fast -w stop >/dev/null 2>&1 || true
		fi
	fi
	if [[ ${BENCH_KEEP:-0} == 1 ]]; then
		echo "bench.sh: kept $DIR" >&2
	else
		rm -rf "$DIR"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

echo "== Meridian bench: $CLIENTS clients, $DURATION, data dir $DIR, $URL"
"$BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$DIR" --demo-seed false --log-level warn >"$DIR/serve.log" 2>&1 &
SERVE_PID=$!
t0=$(now)
until curl -fsS -o /dev/null "$URL/readyz" 2>/dev/null; do
	kill -0 "$SERVE_PID" 2>/dev/null || { tail -n 30 "$DIR/serve.log" >&2; die "serve exited during startup"; }
	(( $(date +%s) - ${t0%.*} < 120 )) || { tail -n 30 "$DIR/serve.log" >&2; die "serve not ready after 120 s"; }
	sleep 0.2
done
echo "server ready in $(since "$t0") s"

SEED_SECS=""
if [[ $BIG == 1 ]]; then
	echo "== bulk seed: $BIG_USERS customers, 5 transfers each"
	t0=$(now)
	"$BIN" seed --data-dir "$DIR" --users "$BIG_USERS" --transfers-per-user 5 --seed 7 --log-level warn
	SEED_SECS=$(since "$t0")
	echo "bulk seed took $SEED_SECS s"
fi
psql_q() { "$PGBIN/psql" -h "$DIR/run" -U meridian -d meridian -XAt -F' ' -c "$1"; }
MAX_USER=$(psql_q "SELECT COALESCE(max(id), 0) FROM users")

echo "== API: meridian bench"
BENCH_OUT=$DIR/bench.txt
bench_rc=0
"$BIN" bench --url "$URL" --data-dir "$DIR" --log-level warn \
	--users "$USERS" --concurrency "$CLIENTS" --duration "$DURATION" \
	--reads --read-duration "$READ_DURATION" --notify --notify-samples "$NOTIFY_SAMPLES" \
	| tee "$BENCH_OUT" || bench_rc=$?
grep -c 'ERROR:  deadlock detected' "$DIR/postgres.log" >"$DIR/deadlocks_api" 2>/dev/null || true
metric() { awk -F'  +' -v k="$1" '$1 == k { print $2; exit }' "$BENCH_OUT"; }

echo "== pgbench: scripts/pgbench/transfer.sql"
# The same customers' accounts as the API bench (those it seeded), so both
# see the same contention.
read -r LO HI < <(psql_q "SELECT min(id), max(id) FROM accounts WHERE user_id > $MAX_USER AND account_number LIKE 'BK%'")
[[ -n $LO && -n $HI ]] || die "no accounts seeded by meridian bench in the database"
PGB_OUT=$DIR/pgbench.txt
"$PGBIN/pgbench" -n -c "$CLIENTS" -j 2 -T "$SECS" -f scripts/pgbench/transfer.sql \
	-D lo="$LO" -D hi="$HI" -h "$DIR/run" -U meridian meridian 2>&1 | tee "$PGB_OUT"
PGB_TPS=$(awk '/^tps = / { printf "%.1f", $3; exit }' "$PGB_OUT")
PGB_LAT=$(awk '/^latency average = / { print $4; exit }' "$PGB_OUT")

echo "== invariant after pgbench"
check_rc=0
"$BIN" bench --check-only --data-dir "$DIR" --log-level warn | tee "$DIR/check.txt" || check_rc=$?

if [[ $BIG == 1 ]]; then
	echo "== reads over the bulk-seeded population"
	"$BIN" bench --url "$URL" --data-dir "$DIR" --log-level warn --from-existing --users "$USERS" --seed 5 \
		--concurrency "$CLIENTS" --duration 0 --reads --read-duration "$READ_DURATION" | tee "$DIR/bigreads.txt" || check_rc=$?
fi

API_RPS=$(metric "transfer requests/s")
API_OK=$(metric "transfers/s (201)")
# Deadlocks PostgreSQL detected (each costs deadlock_timeout, 1 s, before a retry).
DEADLOCKS_API=$(cat "$DIR/deadlocks_api" 2>/dev/null || echo "?")
DEADLOCKS_ALL=$(grep -c 'ERROR:  deadlock detected' "$DIR/postgres.log" 2>/dev/null || true)
RATIO=$(awk -v a="${API_RPS:-0}" -v b="${PGB_TPS:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
echo
echo "== Summary ($CLIENTS clients, $DURATION each, 2 cores shared by load, server and database)"
printf '%-38s %s\n' \
	"API transfer requests/s" "${API_RPS:-?}  (201/s: ${API_OK:-?}; answers $(metric answers))" \
	"pgbench transactions/s" "${PGB_TPS:-?}  (latency average ${PGB_LAT:-?} ms)" \
	"ratio API / pgbench" "$RATIO" \
	"API transfer p50 / p95 / p99 / max" "$(metric 'transfer p50') / $(metric 'transfer p95') / $(metric 'transfer p99') / $(metric 'transfer max')" \
	"API errors" "$(metric errors)" \
	"deadlocks detected: API run / total" "${DEADLOCKS_API:-0} / ${DEADLOCKS_ALL:-0}" \
	"history p99 (limit=50)" "$(metric 'history p99')" \
	"dashboard summary p99" "$(metric 'dashboard p99')" \
	"ledger rows (after API run)" "$(metric 'ledger rows')" \
	"push p99 since request / after 201" "$(metric 'push since request p99') / $(metric 'push after 201 p99')  ($(metric pushes))" \
	"invariant after API / after pgbench" "$(metric invariant) / $(awk -F'  +' '$1 == "invariant" { print $2 }' "$DIR/check.txt")"
if [[ $BIG == 1 ]]; then
	big() { awk -F'  +' -v k="$1" '$1 == k { print $2; exit }' "$DIR/bigreads.txt"; }
	printf '%-38s %s\n' \
		"bulk seed ($BIG_USERS users x 5 transfers)" "$SEED_SECS s" \
		"bulk customers: history p50 / p99" "$(big 'history p50') / $(big 'history p99')" \
		"bulk customers: dashboard p50 / p99" "$(big 'dashboard p50') / $(big 'dashboard p99')  ($(big 'read requests/s') req/s; $(big 'ledger rows') ledger rows)"
fi
if (( bench_rc != 0 || check_rc != 0 )); then
	die "the invariant check failed (bench exit $bench_rc, check after pgbench exit $check_rc)"
fi
