// Package db opens Meridian's PostgreSQL pool and runs its migrations.
package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"maps"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq" // the PostgreSQL driver
	"go.opentelemetry.io/otel/trace"
)

// Option configures the pools Open and OpenReplicas make: a run-time
// parameter of every connection (Timeouts), tracing (Traced).
type Option func(o *options)

type options struct {
	params map[string]string
	tracer trace.Tracer
}

// Timeouts caps every statement at d (statement_timeout) and every wait
// for a lock at nine tenths of it (lock_timeout, so a lock wait reports
// itself as one), on each connection of the pool, from its first statement:
// PostgreSQL itself ends a query that outlives the request it serves (serve
// passes request_timeout), even if the client is gone. A value already in
// the address wins.
func Timeouts(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.params["statement_timeout"] = strconv.FormatInt(d.Milliseconds(), 10)
			o.params["lock_timeout"] = strconv.FormatInt((d - d/10).Milliseconds(), 10)
		}
	}
}

// DefaultPoolSize is how many connections a pool opens at most (config
// database_pool_size). More connections than a machine's cores can run at
// once do not make PostgreSQL faster: the backends preempt one another,
// and one preempted while it holds a busy row lock (a merchant's account)
// holds up everyone waiting for that row. Requests beyond the pool wait in
// Go, within their deadline. Measured with `make bench` on 2 cores: 16
// served as many transfers as 48 did and twice the hot-account rate.
const DefaultPoolSize = 16

// Open connects to PostgreSQL with a pool of DefaultPoolSize connections and
// a session time zone of UTC, and waits up to 30 s for it to answer.
//
// The options travel as startup parameters. PgBouncer refuses parameters
// it does not know ("unsupported startup parameter"), statement_timeout and
// lock_timeout among them: then the pool connects without them (open), and
// runs with the role's own settings (README: Read replicas and poolers,
// ALTER ROLE … SET statement_timeout); StatementTimeout tells which.
func Open(ctx context.Context, dsn string, opts ...Option) (*sqlx.DB, error) {
	db, err := open(dsn, opts...)
	if err != nil {
		return nil, fmt.Errorf("database_url %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = db.PingContext(pctx)
		cancel()
		if err == nil {
			return db, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			db.Close()
			return nil, fmt.Errorf("cannot reach the database: %w", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// open makes the pool without connecting (Open and OpenReplicas). Its
// connections carry the options' parameters until a server refuses one as
// an unsupported startup parameter (PgBouncer): from then on they connect
// without them (fallbackConnector).
func open(dsn string, opts ...Option) (*sqlx.DB, error) {
	base := map[string]string{"timezone": "UTC", "binary_parameters": "yes"}
	o := options{params: maps.Clone(base)}
	for _, opt := range opts {
		opt(&o)
	}
	params := o.params
	without, err := pq.NewConnector(withParams(dsn, base))
	if err != nil {
		return nil, fmt.Errorf("is not a usable PostgreSQL address: %w", err)
	}
	var connector driver.Connector = without
	if !maps.Equal(params, base) {
		with, err := pq.NewConnector(withParams(dsn, params))
		if err != nil {
			return nil, fmt.Errorf("is not a usable PostgreSQL address: %w", err)
		}
		connector = &fallbackConnector{with: with, without: without}
	}
	if o.tracer != nil {
		connector = tracedConnector{Connector: connector, tracer: o.tracer}
	}
	db := sqlx.NewDb(sql.OpenDB(connector), "postgres")
	db.SetMaxOpenConns(DefaultPoolSize)
	db.SetMaxIdleConns(DefaultPoolSize)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return db, nil
}

// fallbackConnector connects with the options' parameters (with) until a
// server refuses one as an unsupported startup parameter, then, for that
// connection and every later one, without them (without).
type fallbackConnector struct {
	with, without driver.Connector
	dropped       atomic.Bool // a server refused the options' parameters
}

func (c *fallbackConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if !c.dropped.Load() {
		conn, err := c.with.Connect(ctx)
		if err == nil || !unsupportedStartupParameter(err) {
			return conn, err
		}
		c.dropped.Store(true)
	}
	return c.without.Connect(ctx)
}

func (c *fallbackConnector) Driver() driver.Driver { return c.with.Driver() }

// unsupportedStartupParameter reports PgBouncer's refusal of a startup
// parameter it does not pass on (not in ignore_startup_parameters).
func unsupportedStartupParameter(err error) bool {
	return strings.Contains(err.Error(), "unsupported startup parameter")
}

// StatementTimeout returns the statement_timeout a connection of the pool
// runs with (0: none), to check that Timeouts reached PostgreSQL.
func StatementTimeout(ctx context.Context, db *sqlx.DB) (time.Duration, error) {
	var ms int64
	err := db.QueryRowContext(ctx, `SELECT setting::bigint FROM pg_settings WHERE name = 'statement_timeout'`).Scan(&ms)
	return time.Duration(ms) * time.Millisecond, err
}

// withParams adds run-time parameters the address does not set already:
// TimeZone=UTC, so timestamps come back in UTC; binary_parameters=yes, with
// which lib/pq sends a statement with arguments in one round trip instead
// of two (prepare, then execute; only []byte arguments change meaning with
// it, sent as binary, and Meridian passes none); and those of the options.
func withParams(dsn string, params map[string]string) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lower := strings.ToLower(dsn)
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn
		}
		q := u.Query()
		for _, k := range keys {
			if !strings.Contains(lower, k) {
				q.Set(k, params[k])
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for _, k := range keys {
		if !strings.Contains(lower, k) {
			dsn += " " + k + "=" + params[k]
		}
	}
	return dsn
}

// VacuumAnalyze refreshes the statistics and visibility maps of tables
// after a bulk load, so the first queries on the new rows use index-only
// scans instead of waiting for autovacuum. Only the tables' owner may: run
// it on the owner's connection (for another role PostgreSQL skips each
// table with a warning).
func VacuumAnalyze(ctx context.Context, db *sqlx.DB, tables ...string) error {
	quoted := make([]string, len(tables))
	for i, t := range tables {
		quoted[i] = pq.QuoteIdentifier(t)
	}
	_, err := db.ExecContext(ctx, `VACUUM (ANALYZE) `+strings.Join(quoted, ", "))
	return err
}
