package db

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/migrations"
)

// Migration is one numbered step of the schema.
type Migration struct {
	Version  int
	Name     string
	Up, Down string
}

// MigrationStatus tells whether a migration is applied. A function file
// (Function: true, Version 0) is applied when the database holds its
// current text.
type MigrationStatus struct {
	Version   int        `json:"version"`
	Name      string     `json:"name"`
	Applied   bool       `json:"applied"`
	AppliedAt *time.Time `json:"applied_at"`
	Function  bool       `json:"function,omitempty"`
}

// Function is one file of migrations/functions: database functions kept
// whole in one file (CREATE OR REPLACE), applied by Up after the numbered
// migrations whenever the file's text (Checksum) differs from what the
// database last applied.
type Function struct {
	Name     string // the file's name without .sql
	Body     string
	Checksum string // SHA-256 of Body, hex
}

// migrationLock is the advisory lock key held while migrating, so several
// instances starting together apply each step once.
const migrationLock = 7_422_001

// Migrations reads the embedded migration files, sorted by version.
func Migrations() ([]Migration, error) {
	return load(migrations.FS)
}

func load(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	byVersion := map[int]*Migration{}
	for _, n := range names {
		base := strings.TrimSuffix(n, ".sql")
		stem, dir, ok := cutLast(base, ".")
		num, name, ok2 := strings.Cut(stem, "_")
		v, err := strconv.Atoi(num)
		if !ok || !ok2 || err != nil || (dir != "up" && dir != "down") {
			return nil, fmt.Errorf("migration file %s is not named NNNN_name.up.sql or NNNN_name.down.sql", n)
		}
		body, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		m := byVersion[v]
		if m == nil {
			m = &Migration{Version: v, Name: name}
			byVersion[v] = m
		}
		if dir == "up" {
			m.Up = string(body)
		} else {
			m.Down = string(body)
		}
	}
	out := make([]Migration, 0, len(byVersion))
	for _, m := range byVersion {
		if m.Up == "" || m.Down == "" {
			return nil, fmt.Errorf("migration %04d_%s needs both an up and a down file", m.Version, m.Name)
		}
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Functions reads the embedded function files, sorted by name.
func Functions() ([]Function, error) {
	return loadFunctions(migrations.FS)
}

func loadFunctions(fsys fs.FS) ([]Function, error) {
	names, err := fs.Glob(fsys, "functions/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]Function, 0, len(names))
	for _, n := range names {
		body, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		out = append(out, Function{Name: strings.TrimSuffix(strings.TrimPrefix(n, "functions/"), ".sql"), Body: string(body), Checksum: hex.EncodeToString(sum[:])})
	}
	return out, nil
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// locked runs fn in a transaction that holds the migration lock, without
// the pool's timeouts (db.Timeouts: a migration, or the wait for another
// instance's, may take longer than a request may), and commits it. The
// lock is the transaction's (pg_advisory_xact_lock), and everything under
// it runs in that transaction on its one connection, so it holds through
// PgBouncer in transaction mode (which keeps a transaction on one server
// connection, and hands each statement outside one whichever is free: a
// session lock or SET would stay behind on one of them), and an instance
// holding the lock never needs a second server connection while others
// wait for the lock on theirs.
func locked(ctx context.Context, db *sqlx.DB, fn func(tx *sql.Tx) error) error {
	// Polled, each try in a transaction of its own: a transaction that
	// waits, in a statement or idle after one, holds a snapshot (a catalog
	// snapshot at least), and the CREATE INDEX CONCURRENTLY of the instance
	// that migrates (a no-transaction file) waits for every older snapshot
	// to end, which this one would never do while it waits for that
	// instance.
	var tx *sql.Tx
	for {
		var err error
		if tx, err = db.BeginTx(ctx, nil); err != nil {
			return err
		}
		var got bool
		if _, err = tx.ExecContext(ctx, `SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0`); err == nil {
			err = tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock($1)`, migrationLock).Scan(&got)
		}
		if err != nil || got {
			if err != nil {
				tx.Rollback()
				return err
			}
			break
		}
		tx.Rollback()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	defer tx.Rollback()
	// Only create the table when it is missing: the runtime role, which may
	// not create tables, still checks the schema through here.
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
	}
	if err := tx.QueryRowContext(ctx, `SELECT to_regclass('schema_functions') IS NOT NULL`).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		// What Up last applied of each function file.
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_functions (
			name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func applied(ctx context.Context, tx *sql.Tx) (map[int]time.Time, error) {
	rows, err := tx.QueryContext(ctx, `SELECT version, applied_at FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]time.Time{}
	for rows.Next() {
		var v int
		var at time.Time
		if err := rows.Scan(&v, &at); err != nil {
			return nil, err
		}
		out[v] = at
	}
	return out, rows.Err()
}

// step runs one migration's SQL and records it, in tx. A file marked
// NoTransactionMarker (CREATE INDEX CONCURRENTLY, which no transaction may
// hold) runs statement by statement on another connection, outside any
// transaction, while tx keeps the migration lock; tx then records it.
func step(ctx context.Context, db *sqlx.DB, tx *sql.Tx, m Migration, up bool) error {
	body, record := m.Down, `DELETE FROM schema_migrations WHERE version = $1`
	if up {
		body, record = m.Up, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`
	}
	run := func() error { _, err := tx.ExecContext(ctx, body); return err }
	if NoTransaction(body) {
		run = func() error { return runOutsideTransaction(ctx, db, body) }
	}
	if err := run(); err != nil {
		return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
	}
	args := []any{m.Version}
	if up {
		args = append(args, m.Name)
	}
	_, err := tx.ExecContext(ctx, record, args...)
	return err
}

// Up applies up to n pending migrations (all of them when n <= 0) and
// returns the versions applied. Each migration commits on its own, under
// the lock, after checking again that no other instance has applied it.
func Up(ctx context.Context, db *sqlx.DB, n int) ([]int, error) {
	all, err := Migrations()
	if err != nil {
		return nil, err
	}
	var done []int
	for n <= 0 || len(done) < n {
		next := 0
		err := locked(ctx, db, func(tx *sql.Tx) error {
			have, err := applied(ctx, tx)
			if err != nil {
				return err
			}
			for _, m := range all {
				if _, ok := have[m.Version]; !ok {
					next = m.Version
					return step(ctx, db, tx, m, true)
				}
			}
			return nil
		})
		if err != nil {
			return done, err
		}
		if next == 0 {
			break
		}
		done = append(done, next)
	}
	return done, applyFunctions(ctx, db, all)
}

// applyFunctions applies the function files whose text the database does
// not hold yet, in one transaction under the migration lock, once every
// numbered migration of this binary (all) is applied: after Up with a count
// that left some pending, nothing. A database a newer release migrated
// (a version past this binary's last) keeps that release's functions: an
// instance of the release before, restarted during a rolling upgrade, never
// writes its older bodies over them.
func applyFunctions(ctx context.Context, db *sqlx.DB, all []Migration) error {
	fns, err := Functions()
	if err != nil {
		return err
	}
	return locked(ctx, db, func(tx *sql.Tx) error {
		have, err := applied(ctx, tx)
		if err != nil {
			return err
		}
		last := 0
		for _, m := range all {
			if _, ok := have[m.Version]; !ok {
				return nil
			}
			last = max(last, m.Version)
		}
		for v := range have {
			if v > last {
				return nil
			}
		}
		sums, err := functionSums(ctx, tx)
		if err != nil {
			return err
		}
		for _, f := range fns {
			if sums[f.Name].checksum == f.Checksum {
				continue
			}
			if _, err := tx.ExecContext(ctx, f.Body); err != nil {
				return fmt.Errorf("function file %s.sql: %w", f.Name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_functions (name, checksum) VALUES ($1, $2)
				ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`, f.Name, f.Checksum); err != nil {
				return err
			}
		}
		return nil
	})
}

type appliedFunction struct {
	checksum string
	at       time.Time
}

// functionSums reads what Up last applied of each function file.
func functionSums(ctx context.Context, tx *sql.Tx) (map[string]appliedFunction, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, checksum, applied_at FROM schema_functions`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]appliedFunction{}
	for rows.Next() {
		var name string
		var f appliedFunction
		if err := rows.Scan(&name, &f.checksum, &f.at); err != nil {
			return nil, err
		}
		out[name] = f
	}
	return out, rows.Err()
}

// AuditLogMigration is the migration that creates the audit log (and the
// ledger). Rolling it back deletes both.
const AuditLogMigration = 1

// ErrDestroysData refuses a roll-back that would drop the audit log.
var ErrDestroysData = errors.New("rolling back migration 0001 would delete the audit log and the ledger")

// Down rolls back the n newest applied migrations and returns their versions.
// It refuses, rolling back nothing, when that would include
// AuditLogMigration (ErrDestroysData); DownDestroyingData does not.
func Down(ctx context.Context, db *sqlx.DB, n int) ([]int, error) {
	return down(ctx, db, n, false)
}

// DownDestroyingData is Down that may also roll back AuditLogMigration,
// deleting the audit log and the ledger: for test and development databases.
func DownDestroyingData(ctx context.Context, db *sqlx.DB, n int) ([]int, error) {
	return down(ctx, db, n, true)
}

// down rolls back the newest applied migration n times, each in its own
// transaction under the lock (as Up applies them).
func down(ctx context.Context, db *sqlx.DB, n int, destroyData bool) ([]int, error) {
	all, err := Migrations()
	if err != nil {
		return nil, err
	}
	newest := func(have map[int]time.Time, skip int) []Migration {
		var plan []Migration
		for i := len(all) - 1; i >= 0 && len(plan) < skip; i-- {
			if _, ok := have[all[i].Version]; ok {
				plan = append(plan, all[i])
			}
		}
		return plan
	}
	err = locked(ctx, db, func(tx *sql.Tx) error {
		have, err := applied(ctx, tx)
		if err != nil {
			return err
		}
		for _, m := range newest(have, n) {
			if m.Version <= AuditLogMigration && !destroyData {
				return ErrDestroysData
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var done []int
	for len(done) < n {
		last := 0
		err := locked(ctx, db, func(tx *sql.Tx) error {
			have, err := applied(ctx, tx)
			if err != nil {
				return err
			}
			plan := newest(have, 1)
			if len(plan) == 0 {
				return nil
			}
			if plan[0].Version <= AuditLogMigration && !destroyData {
				return ErrDestroysData
			}
			last = plan[0].Version
			if err := step(ctx, db, tx, plan[0], false); err != nil {
				return err
			}
			// A step back may have dropped or replaced what a function file
			// made: the next Up applies every file again.
			_, err = tx.ExecContext(ctx, `DELETE FROM schema_functions`)
			return err
		})
		if err != nil {
			return done, err
		}
		if last == 0 {
			break
		}
		done = append(done, last)
	}
	return done, locked(ctx, db, func(tx *sql.Tx) error {
		have, err := applied(ctx, tx)
		if err != nil || len(have) > 0 {
			return err
		}
		return dropFunctionFiles(ctx, tx)
	})
}

// functionName finds the functions a function file creates.
var functionName = regexp.MustCompile(`(?i)CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([a-z_][a-z0-9_]*)\s*\(`)

// dropFunctionFiles drops every function the function files create, once
// no migration is applied: down to zero leaves an empty schema, as before
// the first migration. (A step down that leaves some applied keeps them:
// the next Up applies the files again.)
func dropFunctionFiles(ctx context.Context, tx *sql.Tx) error {
	fns, err := Functions()
	if err != nil {
		return err
	}
	var names []string
	for _, f := range fns {
		for _, m := range functionName.FindAllStringSubmatch(f.Body, -1) {
			names = append(names, strings.ToLower(m[1]))
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = current_schema() AND p.proname = ANY ($1)`, pq.Array(names))
	if err != nil {
		return err
	}
	var sigs []string
	for rows.Next() {
		var sig string
		if err := rows.Scan(&sig); err != nil {
			rows.Close()
			return err
		}
		sigs = append(sigs, sig)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, sig := range sigs {
		if _, err := tx.ExecContext(ctx, `DROP FUNCTION IF EXISTS `+sig+` CASCADE`); err != nil {
			return err
		}
	}
	return nil
}

// Status lists every known migration, then every function file, and
// whether each is applied.
func Status(ctx context.Context, db *sqlx.DB) ([]MigrationStatus, error) {
	all, err := Migrations()
	if err != nil {
		return nil, err
	}
	fns, err := Functions()
	if err != nil {
		return nil, err
	}
	var out []MigrationStatus
	err = locked(ctx, db, func(tx *sql.Tx) error {
		have, err := applied(ctx, tx)
		if err != nil {
			return err
		}
		for _, m := range all {
			s := MigrationStatus{Version: m.Version, Name: m.Name}
			if at, ok := have[m.Version]; ok {
				at := at.UTC()
				s.Applied, s.AppliedAt = true, &at
			}
			out = append(out, s)
		}
		sums, err := functionSums(ctx, tx)
		if err != nil {
			return err
		}
		for _, f := range fns {
			s := MigrationStatus{Name: f.Name, Function: true}
			if a, ok := sums[f.Name]; ok && a.checksum == f.Checksum {
				at := a.at.UTC()
				s.Applied, s.AppliedAt = true, &at
			}
			out = append(out, s)
		}
		return nil
	})
	return out, err
}

// Current reports whether every migration this binary knows is applied
// (for /readyz). Migrations of a newer release may be applied too: in a
// rolling upgrade the release before keeps serving beside them (contract
// §10: they only expand).
func Current(ctx context.Context, db *sqlx.DB) (bool, error) {
	all, err := Migrations()
	if err != nil {
		return false, err
	}
	versions := make([]int64, len(all))
	for i, m := range all {
		versions[i] = int64(m.Version)
	}
	var n int
	if err := db.GetContext(ctx, &n, `SELECT count(*) FROM schema_migrations WHERE version = ANY($1)`, pq.Array(versions)); err != nil {
		return false, err
	}
	return n == len(all), nil
}

// runOutsideTransaction runs a no-transaction migration's statements one by
// one on a connection of its own. The file's SET lock_timeout is that
// session's: it is reset before the connection goes back to the pool, and a
// connection it could not be reset on (a statement failed, the reset
// failed) is closed, never pooled with the file's settings.
func runOutsideTransaction(ctx context.Context, db *sqlx.DB, body string) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			_, err = conn.ExecContext(ctx, `RESET ALL`)
		}
		if err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn }) // discarded, not pooled
		}
		conn.Close()
	}()
	for _, st := range SplitStatements(body) {
		if _, err := conn.ExecContext(ctx, st.Text); err != nil {
			return err
		}
	}
	return nil
}
