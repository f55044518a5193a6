#!/usr/bin/env bash
# Meridian load benchmark: the API against the same SQL in pgbench.
#
# Starts `meridian serve` on a fresh embedded PostgreSQL in a temp dir, runs
# `meridian bench` (transfers between random pairs from BENCH_CLIENTS clients
# for BENCH_DURATION, then history/dashboard reads, then WebSocket push
# timing, then the invariant check), a second run where every transfer pays
# one merchant account (the hot account), then, on the same cluster and at
# the same concurrency and duration, pgbench with scripts/pgbench/transfer.sql
# (the same SQL as one transfer) and pgbench's built-in TPC-B (scale 10, in a
# database of its own). It checks the invariant again and prints the rates,
# the ratios API / TPC-B and API / transfer.sql, and PostgreSQL's CPU time per
# transaction in each run; last, with the Go toolchain, the time and peak heap
# of a 10,000-row statement as CSV and PDF (BenchmarkStatement10k). Stops
# everything on exit.
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
# The daily limit is checked on every transfer (as in production) but set high
# enough that the load's 200 senders never reach it; transfer.sql passes the same.
"$BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$DIR" --demo-seed false --log-level warn \
	--daily-transfer-limit 1000000000.00 >"$DIR/serve.log" 2>&1 &
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

# PostgreSQL's CPU time so far, in clock ticks: the postmaster's own and its
# finished children's (cutime, cstime), plus every live backend's.
CLK_TCK=$(getconf CLK_TCK)
pg_ticks() {
	local pm total=0 f
	pm=$(head -n 1 "$DIR/postgres/postmaster.pid")
	read -r -a f < <(sed 's/^.*) //' "/proc/$pm/stat")
	total=$(( f[11] + f[12] + f[13] + f[14] ))
	for c in $(ps -o pid= --ppid "$pm"); do
		if read -r -a f < <(sed 's/^.*) //' "/proc/$c/stat" 2>/dev/null); then
			total=$(( total + f[11] + f[12] ))
		fi
	done
	echo "$total"
}
# serve's own CPU time so far, and that of this script's finished children
# (the load driver), in clock ticks.
serve_ticks() { local f; read -r -a f < <(sed 's/^.*) //' "/proc/$SERVE_PID/stat"); echo $(( f[11] + f[12] )); }
driver_ticks() { local f; read -r -a f < <(sed 's/^.*) //' "/proc/$$/stat"); echo $(( f[13] + f[14] )); }
# Milliseconds of PostgreSQL CPU per transaction between two pg_ticks readings.
cpu_per() { awk -v a="$1" -v b="$2" -v n="$3" -v hz="$CLK_TCK" 'BEGIN { if (n > 0) printf "%.2f ms", (b - a) * 1000 / hz / n; else print "n/a" }'; }
MAX_USER=$(psql_q "SELECT COALESCE(max(id), 0) FROM users")

echo "== API: seed $USERS customers and warm up"
bench_rc=0
"$BIN" bench --url "$URL" --data-dir "$DIR" --log-level warn \
	--users "$USERS" --concurrency "$CLIENTS" --count 500 >"$DIR/warmup.txt" || { cat "$DIR/warmup.txt"; bench_rc=1; }

echo "== API: meridian bench (random pairs)"
BENCH_OUT=$DIR/bench.txt
# The CPU figures count from the moment the driver starts sending (after its
# sign-ins, whose bcrypt would swamp serve's share) to its end.
d_api0=$(driver_ticks)
"$BIN" bench --url "$URL" --data-dir "$DIR" --log-level warn --from-existing \
	--users "$USERS" --concurrency "$CLIENTS" --duration "$DURATION" >"$BENCH_OUT" 2>"$DIR/bench.progress" &
bench_pid=$!
until grep -q '^sending transfers' "$DIR/bench.progress" 2>/dev/null || ! kill -0 "$bench_pid" 2>/dev/null; do sleep 0.05; done
t_api0=$(pg_ticks); s_api0=$(serve_ticks)
wait "$bench_pid" || bench_rc=$?
t_api1=$(pg_ticks); s_api1=$(serve_ticks); d_api1=$(driver_ticks)
cat "$DIR/bench.progress" >&2
cat "$BENCH_OUT"
grep -c 'ERROR:  deadlock detected' "$DIR/postgres.log" >"$DIR/deadlocks_api" 2>/dev/null || true
metric() { awk -F'  +' -v k="$1" '$1 == k { print $2; exit }' "$BENCH_OUT"; }

echo "== API: reads and WebSocket push timing"
READS_OUT=$DIR/reads.txt
"$BIN" bench --url "$URL" --data-dir "$DIR" --log-level warn --from-existing \
	--users "$USERS" --concurrency "$CLIENTS" --duration 0 \
	--reads --read-duration "$READ_DURATION" --notify --notify-samples "$NOTIFY_SAMPLES" | tee "$READS_OUT" || bench_rc=$?
rmetric() { awk -F'  +' -v k="$1" '$1 == k { print $2; exit }' "$READS_OUT"; }
hot() { awk -F'  +' -v k="$1" '$1 == k { print $2; exit }' "$HOT_OUT"; }

# After the push probe: the hot run drains many senders.
echo "== API: meridian bench --hot-account (every transfer pays one merchant)"
HOT_OUT=$DIR/hot.txt
t_hot0=$(pg_ticks)
"$BIN" bench --url "$URL" --data-dir "$DIR" --log-level warn --from-existing --hot-account \
	--users "$USERS" --concurrency "$CLIENTS" --duration "$DURATION" | tee "$HOT_OUT" || bench_rc=$?
t_hot1=$(pg_ticks)

echo "== pgbench: scripts/pgbench/transfer.sql"
# The same customers' accounts as the API bench (those it seeded), so both
# see the same contention.
read -r LO HI < <(psql_q "SELECT min(id), max(id) FROM accounts WHERE user_id > $MAX_USER AND account_number LIKE 'BK%'")
[[ -n $LO && -n $HI ]] || die "no accounts seeded by meridian bench in the database"
PGB_OUT=$DIR/pgbench.txt
t_pgb0=$(pg_ticks)
"$PGBIN/pgbench" -n -c "$CLIENTS" -j 2 -T "$SECS" -f scripts/pgbench/transfer.sql \
	-D lo="$LO" -D hi="$HI" -h "$DIR/run" -U meridian meridian 2>&1 | tee "$PGB_OUT"
t_pgb1=$(pg_ticks)
PGB_TPS=$(awk '/^tps = / { printf "%.1f", $3; exit }' "$PGB_OUT")
PGB_LAT=$(awk '/^latency average = / { print $4; exit }' "$PGB_OUT")
PGB_N=$(awk '/^number of transactions actually processed: / { split($6, a, "/"); print a[1]; exit }' "$PGB_OUT")

echo "== pgbench: built-in TPC-B, scale 10, database tpcb on the same cluster"
psql_q "DROP DATABASE IF EXISTS tpcb" >/dev/null
psql_q "CREATE DATABASE tpcb" >/dev/null
"$PGBIN/pgbench" -i -q -s 10 -h "$DIR/run" -U meridian tpcb >"$DIR/tpcb-init.txt" 2>&1 || { cat "$DIR/tpcb-init.txt" >&2; die "pgbench -i failed"; }
TPCB_OUT=$DIR/tpcb.txt
t_tpcb0=$(pg_ticks)
"$PGBIN/pgbench" -n -c "$CLIENTS" -j 2 -T "$SECS" -h "$DIR/run" -U meridian tpcb 2>&1 | tee "$TPCB_OUT"
t_tpcb1=$(pg_ticks)
TPCB_TPS=$(awk '/^tps = / { printf "%.1f", $3; exit }' "$TPCB_OUT")
TPCB_LAT=$(awk '/^latency average = / { print $4; exit }' "$TPCB_OUT")
TPCB_N=$(awk '/^number of transactions actually processed: / { split($6, a, "/"); print a[1]; exit }' "$TPCB_OUT")

echo "== invariant after pgbench"
check_rc=0
"$BIN" bench --check-only --data-dir "$DIR" --log-level warn | tee "$DIR/check.txt" || check_rc=$?

if [[ $BIG == 1 ]]; then
	echo "== reads over the bulk-seeded population"
	"$BIN" bench --url "$URL" --data-dir "$DIR" --log-level warn --from-existing --users "$USERS" --seed 5 \
		--concurrency "$CLIENTS" --duration 0 --reads --read-duration "$READ_DURATION" | tee "$DIR/bigreads.txt" || check_rc=$?
fi

# Statements: BenchmarkStatement10k (pkg/bank, on a database of its own
# from pkg/testdb) writes a 10,000-row statement as CSV and as PDF; it needs
# the Go toolchain and the source tree.
echo "== statements: BenchmarkStatement10k"
STMT_LINE="not run (no Go toolchain)"
if command -v "${GO:-go}" >/dev/null 2>&1; then
	STMT_OUT=$DIR/statement.txt
	if "${GO:-go}" test ./pkg/bank -run '^$' -bench '^BenchmarkStatement10k$' -benchtime 3x -count 1 | tee "$STMT_OUT"; then
		# "X ms / Y MB peak" of one sub-benchmark: its ns/op and peak-MB columns.
		stmt() { awk -v name="BenchmarkStatement10k/$1" 'index($1, name) == 1 {
			for (i = 2; i < NF; i++) { if ($(i+1) == "ns/op") ms = $i / 1e6; if ($(i+1) == "peak-MB") mb = $i }
			printf "%.0f ms / %.1f MB peak", ms, mb; exit }' "$STMT_OUT"; }
		STMT_LINE="csv $(stmt csv), pdf $(stmt pdf)"
	else
		STMT_LINE="failed (see above)"
	fi
fi

API_RPS=$(metric "transfer requests/s")
API_OK=$(metric "transfers/s (201)")
# Deadlocks PostgreSQL detected (each costs deadlock_timeout, 1 s, before a retry).
DEADLOCKS_API=$(cat "$DIR/deadlocks_api" 2>/dev/null || echo "?")
DEADLOCKS_ALL=$(grep -c 'ERROR:  deadlock detected' "$DIR/postgres.log" 2>/dev/null || true)
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
RATIO=$(ratio "$API_RPS" "$PGB_TPS")
RATIO_TPCB=$(ratio "$API_RPS" "$TPCB_TPS")
HOT_RPS=$(hot "transfer requests/s")
HOT_N=$(hot "transfer requests" | awk '{ print $1 }')
HOT_RATIO=$(ratio "$HOT_RPS" "$API_RPS")
API_N=$(metric "transfer requests" | awk '{ print $1 }')

echo
echo "== Summary ($CLIENTS clients, $DURATION each, 2 cores shared by load, server and database)"
printf '%-38s %s\n' \
	"API transfer requests/s" "${API_RPS:-?}  (201/s: ${API_OK:-?}; answers $(metric answers))" \
	"pgbench transfer.sql transactions/s" "${PGB_TPS:-?}  (latency average ${PGB_LAT:-?} ms)" \
	"pgbench TPC-B (scale 10) transactions/s" "${TPCB_TPS:-?}  (latency average ${TPCB_LAT:-?} ms)" \
	"ratio API / TPC-B" "$RATIO_TPCB" \
	"ratio API / transfer.sql" "$RATIO" \
	"API transfer p50 / p95 / p99 / max" "$(metric 'transfer p50') / $(metric 'transfer p95') / $(metric 'transfer p99') / $(metric 'transfer max')" \
	"hot account requests/s" "${HOT_RPS:-?}  (x$HOT_RATIO of the random-pairs run; p99 $(hot 'transfer p99'); answers $(hot answers))" \
	"PostgreSQL CPU per transaction" "API $(cpu_per "$t_api0" "$t_api1" "${API_N:-0}"), hot account $(cpu_per "$t_hot0" "$t_hot1" "${HOT_N:-0}"), transfer.sql $(cpu_per "$t_pgb0" "$t_pgb1" "${PGB_N:-0}"), TPC-B $(cpu_per "$t_tpcb0" "$t_tpcb1" "${TPCB_N:-0}")" \
	"API CPU per transfer request" "PostgreSQL $(cpu_per "$t_api0" "$t_api1" "${API_N:-0}"), serve $(cpu_per "$s_api0" "$s_api1" "${API_N:-0}"), load driver $(cpu_per "$d_api0" "$d_api1" "${API_N:-0}") (with its sign-ins)" \
	"API errors" "$(metric errors)" \
	"deadlocks detected: API run / total" "${DEADLOCKS_API:-0} / ${DEADLOCKS_ALL:-0}" \
	"history p99 (limit=50)" "$(rmetric 'history p99')" \
	"dashboard summary p99" "$(rmetric 'dashboard p99')" \
	"ledger rows (after API run)" "$(metric 'ledger rows')" \
	"push p99 since request / after 201" "$(rmetric 'push since request p99') / $(rmetric 'push after 201 p99')  ($(rmetric pushes))" \
	"invariant after API / after pgbench" "$(metric invariant) / $(awk -F'  +' '$1 == "invariant" { print $2 }' "$DIR/check.txt")"
echo "statement 10,000 rows: $STMT_LINE"
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
