package doctor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/backup"
	"meridian/pkg/db"
	"meridian/pkg/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

var ctx = context.Background()

// appPool opens a test database as the runtime role, as serve opens it.
func appPool(t *testing.T, opts ...db.Option) (app, super *sqlx.DB) {
	t.Helper()
	url := testdb.URL(t)
	var err error
	if app, err = db.Open(ctx, testdb.AppURL(url), opts...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	if super, err = db.Open(ctx, url); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { super.Close() })
	return app, super
}

func find(t *testing.T, r *Report, check string) Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.Check == check {
			return f
		}
	}
	t.Fatalf("no finding %q in %+v", check, r.Findings)
	return Finding{}
}

func want(t *testing.T, r *Report, check string, status Status, detail string) {
	t.Helper()
	f := find(t, r, check)
	if f.Status != status || !strings.Contains(f.Detail, detail) {
		t.Errorf("%s: %s %q, want %s with %q", check, f.Status, f.Detail, status, detail)
	}
}

// TestDoctorOnAGoodDatabase: the runtime role, serve's timeouts, a current
// schema and one clock pass; the test server does not archive its WAL and
// has no synchronous standby, and doctor says so.
func TestDoctorOnAGoodDatabase(t *testing.T) {
	t.Parallel()
	app, _ := appPool(t, db.Timeouts(10*time.Second))
	r := Run(ctx, Target{DB: app, AppRole: testdb.AppRole, RequestTimeout: 10 * time.Second})
	want(t, r, "database", OK, "signed in as "+testdb.AppRole)
	want(t, r, "schema", OK, "every migration")
	want(t, r, "roles and grants", OK, "owns nothing")
	want(t, r, "timeouts", OK, "request_timeout (10s)")
	want(t, r, "clock", OK, "differ by")
	want(t, r, "synchronous replication", Warn, "a failover may lose commits")
	want(t, r, "read replicas", Skip, "no database_read_urls")
	want(t, r, "wal archiving", Fail, "archive_mode is off")
	want(t, r, "backups", Skip, "pgBackRest")
	if r.OK || len(r.Failed()) != 1 {
		t.Fatalf("failed: %+v", r.Failed())
	}
}

// TestDoctorNamesWhatIsWrong: each fault is a failed finding that says what.
func TestDoctorNamesWhatIsWrong(t *testing.T) {
	t.Parallel()
	// No timeouts on the connections (PgBouncer dropped them, and the role has none).
	app, super := appPool(t)
	r := Run(ctx, Target{DB: app, AppRole: testdb.AppRole, RequestTimeout: 10 * time.Second})
	want(t, r, "timeouts", Fail, "database_url: no statement_timeout")
	// A runtime role that may rewrite the ledger.
	if _, err := super.Exec(`GRANT UPDATE ON transactions TO ` + testdb.AppRole); err != nil {
		t.Fatal(err)
	}
	r = Run(ctx, Target{DB: app, AppRole: testdb.AppRole})
	want(t, r, "roles and grants", Fail, testdb.AppRole+" may UPDATE transactions")
	// This machine's clock 5 s ahead.
	r = Run(ctx, Target{DB: app, Now: func() time.Time { return time.Now().Add(5 * time.Second) }})
	want(t, r, "clock", Fail, "more than 1s: run NTP on both")
	// A migration missing.
	if _, err := super.Exec(`DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)`); err != nil {
		t.Fatal(err)
	}
	r = Run(ctx, Target{DB: app})
	want(t, r, "schema", Fail, "migrations are pending")
	// A "replica" that is the primary itself, and one that does not answer.
	bogus, err := sqlx.Open("postgres", "host=127.0.0.1 port=1 user=x dbname=x sslmode=disable connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer bogus.Close()
	r = Run(ctx, Target{DB: app, Replicas: []Replica{{"replica1", super}, {"replica2", bogus}}})
	want(t, r, "replica replica1", Fail, "is not a standby")
	want(t, r, "replica replica2", Fail, "does not answer")
	// database_url that does not answer: one finding, and nothing else runs.
	r = Run(ctx, Target{DB: bogus})
	if len(r.Findings) != 1 || r.Findings[0].Check != "database" || r.Findings[0].Status != Fail || r.OK {
		t.Fatalf("an unreachable database: %+v", r)
	}
}

// TestDoctorReplicas: a real streaming standby passes; doctor sees the
// synchronous setting without a standby to wait for as a hang.
func TestDoctorReplicas(t *testing.T) {
	t.Parallel()
	rp := testdb.Replicated(t)
	primary, err := db.Open(ctx, rp.Primary, db.Timeouts(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	standby, err := db.Open(ctx, rp.Standby, db.Timeouts(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close()
	r := Run(ctx, Target{DB: primary, Replicas: []Replica{{"replica1", standby}}})
	want(t, r, "replica replica1", OK, "a standby")
	want(t, r, "replica replica1 clock", OK, "differ by")
	// Synchronous commit asked for, with no standby by that name (for the
	// database's new sessions: the test cluster's command line turns it off).
	if _, err := primary.Exec(`ALTER SYSTEM SET synchronous_standby_names = 'nobody'`); err != nil {
		t.Fatal(err)
	}
	if _, err := primary.Exec(`SELECT pg_reload_conf()`); err != nil {
		t.Fatal(err)
	}
	if _, err := primary.Exec(`ALTER DATABASE meridian SET synchronous_commit = 'remote_apply'`); err != nil {
		t.Fatal(err)
	}
	primary.Close()
	if primary, err = db.Open(ctx, rp.Primary, db.Timeouts(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var names string
		if primary.Get(&names, `SELECT current_setting('synchronous_standby_names')`) == nil && names == "nobody" {
			break
		}
	}
	r = Run(ctx, Target{DB: primary, Replicas: []Replica{{"replica1", standby}}})
	want(t, r, "synchronous replication", Fail, "no synchronous standby streams: every commit waits")
}

// TestDoctorBackups: the embedded database's backup_dir without a backup,
// with a fresh one, and with one older than backup_interval and a quarter.
func TestDoctorBackups(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := Target{Embedded: true, BackupDir: dir, BackupInterval: 24 * time.Hour, Now: time.Now}
	if f := checkBackups(target); f.Status != Fail || !strings.Contains(f.Detail, "holds no base backup") {
		t.Fatalf("no backup: %+v", f)
	}
	started := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	b := backup.Backup{Name: started.Format("20060102T150405Z"), Started: started, Finished: started.Add(time.Second),
		StartWAL: "000000010000000000000002", SegmentSize: 16 << 20, Timeline: 1}
	if err := os.MkdirAll(filepath.Join(dir, "base", b.Name), 0o700); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(b)
	if err := os.WriteFile(filepath.Join(dir, "base", b.Name, "meridian-backup.json"), meta, 0o600); err != nil {
		t.Fatal(err)
	}
	if f := checkBackups(target); f.Status != OK || !strings.Contains(f.Detail, "1 base backup(s), the newest 1h0m0s old") {
		t.Fatalf("a backup an hour old: %+v", f)
	}
	target.Now = func() time.Time { return time.Now().Add(30 * time.Hour) }
	if f := checkBackups(target); f.Status != Fail || !strings.Contains(f.Detail, "more than 30h0m0s") {
		t.Fatalf("a backup 31 hours old: %+v", f)
	}
	// Archived segments 2 and 4, not 3: a gap.
	target.Now = time.Now
	os.MkdirAll(backup.WALDir(dir), 0o700)
	for _, s := range []string{"000000010000000000000002", "000000010000000000000004"} {
		os.WriteFile(filepath.Join(backup.WALDir(dir), s), nil, 0o600)
	}
	if f := checkBackups(target); f.Status != Fail || !strings.Contains(f.Detail, "misses 1 segment(s) (first: 000000010000000000000003)") {
		t.Fatalf("a gap in the archive: %+v", f)
	}
}

// TestCheckArchiver: off, failing, working.
func TestCheckArchiver(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		a      db.Archiver
		status Status
		detail string
	}{
		{db.Archiver{Mode: "off"}, Fail, "archive_mode is off"},
		{db.Archiver{Mode: "on", Archived: 3, LastArchived: now.Add(-time.Minute), Failed: 2, LastFailed: now, LastFailedWAL: "000000010000000000000009"}, Fail, "000000010000000000000009 could not be archived"},
		{db.Archiver{Mode: "on", Archived: 3, LastArchived: now, LastArchivedWAL: "000000010000000000000009", Failed: 2, LastFailed: now.Add(-time.Minute)}, OK, "000000010000000000000009 archived"},
	} {
		if f := CheckArchiver(tc.a); f.Status != tc.status || !strings.Contains(f.Detail, tc.detail) {
			t.Errorf("%+v: %+v", tc.a, f)
		}
	}
}
