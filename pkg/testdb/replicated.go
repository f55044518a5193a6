package testdb

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"meridian/pkg/db"
	"meridian/pkg/pgembed"
)

// Replication is a primary and a streaming hot standby of it, for one test.
type Replication struct {
	Primary string // superuser URL of the migrated database "meridian" on the primary
	Standby string // the same database on the standby (read only)
}

// Replicated starts a PostgreSQL primary of its own (not the shared test
// server), migrates a database on it, copies it with pg_basebackup -R into
// a streaming hot standby and starts that. Both stop when the test ends.
// Both run as the embedded clusters do (pkg/pgembed: an unprivileged user,
// Unix sockets only, in short /tmp paths), with fsync off.
func Replicated(t testing.TB) Replication {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("/tmp", "mtrp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	primary, err := pgembed.Start(ctx, pgembed.Options{DataDir: filepath.Join(dir, "p"), Database: "meridian", Fast: true, DieWithProcess: true, Logger: quiet})
	if err != nil {
		t.Fatalf("starting the primary: %v", err)
	}
	t.Cleanup(func() { primary.Stop() })
	pdb, err := db.Open(ctx, primary.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer pdb.Close()
	if _, err := db.Up(ctx, pdb, 0); err != nil {
		t.Fatalf("migrating the primary: %v", err)
	}
	bin, err := pgembed.FindBinDir()
	if err != nil {
		t.Fatal(err)
	}
	// The copy, with the standby's settings (-R: standby.signal and
	// primary_conninfo naming the primary's socket); pgembed.Start then
	// hands it to the server's user and starts it as a standby.
	sdir := filepath.Join(dir, "s")
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "pg_basebackup"), "-h", primary.SocketDir(), "-p", "5432", "-U", "meridian",
		"-D", filepath.Join(sdir, "postgres"), "-R", "-X", "stream", "-c", "fast", "--no-sync")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pg_basebackup: %v\n%s", err, out)
	}
	standby, err := pgembed.Start(ctx, pgembed.Options{DataDir: sdir, Database: "postgres", Fast: true, DieWithProcess: true, Logger: quiet})
	if err != nil {
		t.Fatalf("starting the standby: %v", err)
	}
	t.Cleanup(func() { standby.Stop() })
	r := Replication{Primary: primary.URL(), Standby: standby.URLFor("meridian")}
	sdb, err := db.Open(ctx, r.Standby)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var recovering bool
	if err := sdb.GetContext(ctx, &recovering, `SELECT pg_is_in_recovery()`); err != nil || !recovering {
		t.Fatalf("the standby is not in recovery (%v)", err)
	}
	return r
}
