// Package testdb gives each Go test its own real PostgreSQL database, cloned
// from a migrated template so tests can run in parallel. The server is the
// embedded cluster (pkg/pgembed), started once per test process, or the
// server named by TEST_DATABASE_URL.
//
// A package using it declares:
//
//	func TestMain(m *testing.M) { testdb.Main(m) }
//
// Tests connect as the server's superuser by default. The template carries
// the runtime privileges of AppRole (pkg/db GrantRuntime), so AppURL and
// NewAsApp connect to a test database as the runtime role serve uses.
package testdb

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
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

// AppRole is the runtime role of the test databases (LOGIN, no superuser,
// with the grants of pkg/db GrantRuntime); its password is its name, for a
// TEST_DATABASE_URL server that asks for one.
const AppRole = "meridian_test_app"

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
		cluster, err = pgembed.Start(ctx, pgembed.Options{DataDir: tmpDir, Database: "postgres", Fast: true, DieWithProcess: true, Logger: slog.New(slog.DiscardHandler)})
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
	// The role is cluster-wide; test processes sharing a TEST_DATABASE_URL
	// server may create it at the same moment.
	if _, err := admin.Exec(`DO $$ BEGIN
		CREATE ROLE ` + AppRole + ` LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD '` + AppRole + `';
	EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`); err != nil {
		return fmt.Errorf("creating the runtime role: %w", err)
	}
	if err := db.GrantRuntime(ctx, tdb, AppRole); err != nil {
		return fmt.Errorf("granting the runtime role: %w", err)
	}
	return nil
}

// AppURL returns the connection string of the same database as dsn, signed
// in as AppRole.
func AppURL(dsn string) string {
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn
		}
		u.User = url.UserPassword(AppRole, AppRole)
		return u.String()
	}
	var parts []string
	for _, p := range strings.Fields(dsn) {
		if !strings.HasPrefix(p, "user=") && !strings.HasPrefix(p, "password=") {
			parts = append(parts, p)
		}
	}
	return strings.Join(append(parts, "user="+AppRole, "password="+AppRole), " ")
}

// NewAsApp creates a fresh, migrated database for this test and returns a
// pool on it signed in as the runtime role AppRole, and its superuser URL.
func NewAsApp(t testing.TB) (*sqlx.DB, string) {
	t.Helper()
	u := URL(t)
	conn, err := db.Open(context.Background(), AppURL(u))
	if err != nil {
		t.Fatalf("opening test database as %s: %v", AppRole, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, u
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
