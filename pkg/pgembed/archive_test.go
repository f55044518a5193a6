package pgembed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runArchive runs an archive or restore command the way PostgreSQL does:
// placeholders replaced, through /bin/sh, in the data directory.
func runArchive(t *testing.T, command, cwd, p, f string) error {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(command); i++ {
		if command[i] == '%' && i+1 < len(command) {
			i++
			switch command[i] {
			case 'p':
				b.WriteString(p)
			case 'f':
				b.WriteString(f)
			case '%':
				b.WriteByte('%')
			}
			continue
		}
		b.WriteByte(command[i])
	}
	cmd := exec.Command("/bin/sh", "-c", b.String())
	cmd.Dir = cwd
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("%s: %s", b.String(), out)
	}
	return err
}

// TestArchiveCommand: a segment is copied whole; archiving it again is
// accepted when the copy is identical and refused when it differs (an
// archive is never overwritten); the restore command reads it back and
// fails for a file the archive lacks. The archive's path may hold a quote,
// a space and a percent sign.
func TestArchiveCommand(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	pgdata := filepath.Join(root, "pgdata")
	archive := filepath.Join(root, "it's 100% archive")
	for _, d := range []string{filepath.Join(pgdata, "pg_wal"), archive} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	seg := "000000010000000000000003"
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(pgdata, "pg_wal", seg), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("segment one")
	if err := runArchive(t, ArchiveCommand(archive), pgdata, "pg_wal/"+seg, seg); err != nil {
		t.Fatalf("archiving a new segment: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(archive, seg)); err != nil || string(got) != "segment one" {
		t.Fatalf("archived %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(archive, seg+".tmp")); !os.IsNotExist(err) {
		t.Fatalf("the temporary copy stayed: %v", err)
	}
	if err := runArchive(t, ArchiveCommand(archive), pgdata, "pg_wal/"+seg, seg); err != nil {
		t.Fatalf("archiving the same segment again must succeed: %v", err)
	}
	write("segment two")
	if err := runArchive(t, ArchiveCommand(archive), pgdata, "pg_wal/"+seg, seg); err == nil {
		t.Fatal("a different segment under an archived name was accepted")
	}
	if got, _ := os.ReadFile(filepath.Join(archive, seg)); string(got) != "segment one" {
		t.Fatalf("the archive was overwritten: %q", got)
	}

	restored := filepath.Join(root, "restored")
	if err := os.MkdirAll(restored, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := runArchive(t, RestoreCommand(archive), restored, "pg_wal/RECOVERYXLOG", seg); err == nil {
		// no pg_wal dir yet: cp must fail, as it does for a missing file
		t.Fatal("restore into a missing directory succeeded")
	}
	os.MkdirAll(filepath.Join(restored, "pg_wal"), 0o700)
	if err := runArchive(t, RestoreCommand(archive), restored, "pg_wal/RECOVERYXLOG", seg); err != nil {
		t.Fatalf("restoring an archived segment: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(restored, "pg_wal", "RECOVERYXLOG")); string(got) != "segment one" {
		t.Fatalf("restored %q", got)
	}
	if err := runArchive(t, RestoreCommand(archive), restored, "pg_wal/RECOVERYXLOG", "000000010000000000000004"); err == nil {
		t.Fatal("restoring a segment the archive lacks succeeded (PostgreSQL would read garbage as the end)")
	}
}

// TestArchiving: a server started with ArchiveDir archives each finished
// segment there; the last Stop finishes the segment in progress, so the
// archive holds everything up to the shutdown.
func TestArchiving(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	archive := filepath.Join(filepath.Dir(dataDir), "backups", "wal")
	c := start(t, Options{DataDir: dataDir, ArchiveDir: archive, ArchiveTimeout: 90 * time.Second})
	if got := queryString(t, c.URL(), "SHOW archive_mode"); got != "on" {
		t.Fatalf("archive_mode = %q", got)
	}
	if got := queryString(t, c.URL(), "SHOW archive_timeout"); got != "90s" {
		t.Fatalf("archive_timeout = %q", got)
	}
	execSQL(t, c.URL(), "SET synchronous_commit = on", "CREATE TABLE t (id int)", "INSERT INTO t VALUES (1)")
	current := queryString(t, c.URL(), "SELECT pg_walfile_name(pg_current_wal_lsn())")
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(archive, current)); err != nil {
		t.Fatalf("the segment in progress at the stop (%s) is not in the archive: %v", current, err)
	}
}
