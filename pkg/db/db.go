// Package db opens Meridian's PostgreSQL pool and runs its migrations.
package db

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq" // the PostgreSQL driver
)

// Open connects to PostgreSQL with a pool sized for a 2-core server and a
// session time zone of UTC, and waits up to 30 s for it to answer.
func Open(ctx context.Context, dsn string) (*sqlx.DB, error) {
	db, err := sqlx.Open("postgres", withUTC(dsn))
	if err != nil {
		return nil, fmt.Errorf("database_url is not a usable PostgreSQL address: %w", err)
	}
	db.SetMaxOpenConns(48)
	db.SetMaxIdleConns(48)
	db.SetConnMaxIdleTime(5 * time.Minute)
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

// withUTC adds the TimeZone=UTC run-time parameter, so timestamps come back
// in UTC, and binary_parameters=yes, with which lib/pq sends a statement with
// arguments in one round trip instead of two (prepare, then execute). Only
// []byte arguments change meaning with it (sent as binary), and Meridian
// passes none.
func withUTC(dsn string) string {
	params := map[string]string{"timezone": "UTC", "binary_parameters": "yes"}
	lower := strings.ToLower(dsn)
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn
		}
		q := u.Query()
		for k, v := range params {
			if !strings.Contains(lower, k) {
				q.Set(k, v)
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for _, k := range []string{"timezone", "binary_parameters"} {
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
