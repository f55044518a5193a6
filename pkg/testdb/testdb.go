// Package testdb gives each Go test its own real PostgreSQL database, cloned
// from a migrated template so tests can run in parallel. The server is the
// embedded cluster (pkg/pgembed), started once per test process, or the
// server named by TEST_DATABASE_URL.
//
// A package using it declares:
//
//	func TestMain(m *testing.M) { testdb.Main(m) }
package testdb

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/db"
	"meridian/pkg/pgembed"
)

var (
	once     sync.Once
	setupErr error
	admin    *sqlx.DB            // connection to a maintenance database, for CREATE/DROP DATABASE
	urlFor   func(string) string // the connection string of a database on the test server
	cluster  *pgembed.Cluster
	tmpDir   string
	template string
	counter  atomic.Int64
)

// Main runs the package's tests, then stops the embedded cluster and removes it.
func Main(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		cluster.Stop()
	}
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
	}
	if template != "" && admin != nil {
		admin.Exec(`DROP DATABASE IF EXISTS ` + template)
	}
	os.Exit(code)
}

func setup() error {
	ctx := context.Background()
	prefix := fmt.Sprintf("mt%d", os.Getpid())
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		base := u
		urlFor = func(name string) string { return replaceDB(base, name) }
	} else {
		var err error
		tmpDir, err = os.MkdirTemp("/tmp", "mtdb")
		if err != nil {
			return err
		}
		if err := os.Chmod(tmpDir, 0o755); err != nil {
			return err
		}
		cluster, err = pgembed.Start(ctx, pgembed.Options{DataDir: tmpDir, Database: "postgres", Fast: true, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return fmt.Errorf("starting the test PostgreSQL: %w", err)
		}
		urlFor = cluster.URLFor
	}
	var err error
	admin, err = db.Open(ctx, urlFor("postgres"))
	if err != nil {
		return err
	}
	admin.SetMaxOpenConns(4)
	template = prefix + "_tmpl"
	if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + template); err != nil {
		return err
	}
	if _, err := admin.Exec(`CREATE DATABASE ` + template); err != nil {
		return err
	}
	tdb, err := db.Open(ctx, urlFor(template))
	if err != nil {
		return err
	}
	defer tdb.Close()
	if _, err := db.Up(ctx, tdb, 0); err != nil {
		return fmt.Errorf("migrating the template: %w", err)
	}
	return nil
}

// replaceDB swaps the database name in a URL or key=value connection string.
func replaceDB(dsn, name string) string {
	if strings.Contains(dsn, "://") {
		i := strings.LastIndex(dsn, "/")
		rest := ""
		if q := strings.Index(dsn[i:], "?"); q >= 0 {
			rest = dsn[i+q:]
		}
		return dsn[:i+1] + name + rest
	}
	var parts []string
	for _, p := range strings.Fields(dsn) {
		if !strings.HasPrefix(p, "dbname=") {
			parts = append(parts, p)
		}
	}
	return strings.Join(append(parts, "dbname="+name), " ")
}

// URL creates a fresh, migrated database for this test and returns its
// connection string. The database is dropped when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(func() { setupErr = setup() })
	if setupErr != nil {
		t.Fatalf("test database: %v", setupErr)
	}
	name := fmt.Sprintf("%s_t%d", template[:len(template)-len("_tmpl")], counter.Add(1))
	if _, err := admin.Exec(`CREATE DATABASE ` + name + ` TEMPLATE ` + template); err != nil {
		t.Fatalf("creating test database: %v", err)
	}
	t.Cleanup(func() { admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`) })
	return urlFor(name)
}

// New creates a fresh, migrated database for this test and returns a pool on it.
func New(t testing.TB) *sqlx.DB {
	t.Helper()
	conn, err := db.Open(context.Background(), URL(t))
	if err != nil {
		t.Fatalf("opening test database: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// Cluster returns the embedded cluster behind the tests (nil with TEST_DATABASE_URL).
func Cluster() *pgembed.Cluster { return cluster }
