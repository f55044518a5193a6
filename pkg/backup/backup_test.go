package backup

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"meridian/pkg/pgembed"
)

var quiet = slog.New(slog.DiscardHandler)

// shortDir returns a fresh directory under /tmp that PostgreSQL's user can
// traverse (a Unix socket path must stay short).
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "mbk")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// cluster starts an embedded cluster in dataDir archiving into backupDir.
func cluster(t *testing.T, dataDir, backupDir string) *pgembed.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := pgembed.Options{DataDir: dataDir, Database: "meridian", Logger: quiet, Fast: true, DieWithProcess: true}
	if backupDir != "" {
		o.ArchiveDir, o.ArchiveTimeout = WALDir(backupDir), time.Second
	}
	c, err := pgembed.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	return c
}

func open(t *testing.T, c *pgembed.Cluster) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", c.URL())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	// Fast turns synchronous_commit off; the rows must be in the WAL.
	if _, err := db.Exec(`SET synchronous_commit = on`); err != nil {
		t.Fatal(err)
	}
	return db
}

func run(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// ids returns the ids in table payments, in order.
func ids(t *testing.T, db *sql.DB) []int {
	t.Helper()
	rows, err := db.Query(`SELECT id FROM payments ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

// archiveAll finishes the WAL segment in progress and waits until the
// archive holds it.
func archiveAll(t *testing.T, db *sql.DB) {
	t.Helper()
	var seg string
	if err := db.QueryRow(`SELECT pg_walfile_name(pg_switch_wal())`).Scan(&seg); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var last sql.NullString
		if err := db.QueryRow(`SELECT last_archived_wal FROM pg_stat_archiver`).Scan(&last); err != nil {
			t.Fatal(err)
		}
		if last.Valid && last.String[8:] >= seg[8:] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("segment %s not archived after 30 s (last %q)", seg, last.String)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// bank is a cluster archiving into its backup dir, with a table payments.
type bank struct {
	root, dataDir, backupDir string
	c                        *pgembed.Cluster
	db                       *sql.DB
}

func newBank(t *testing.T) *bank {
	t.Helper()
	root := shortDir(t)
	b := &bank{root: root, dataDir: filepath.Join(root, "d"), backupDir: filepath.Join(root, "b")}
	b.c = cluster(t, b.dataDir, b.backupDir)
	b.db = open(t, b.c)
	run(t, b.db, `CREATE TABLE payments (id int PRIMARY KEY)`)
	return b
}

func (b *bank) take(t *testing.T, keep int) *Backup {
	t.Helper()
	taken, err := Take(context.Background(), Options{Dir: b.backupDir, Source: source(b.c, b.dataDir), Keep: keep, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return taken
}

func source(c *pgembed.Cluster, dataDir string) Source {
	return Source{URL: c.URLFor("postgres"), Host: c.SocketDir(), Port: c.Port(), User: c.Superuser(), BinDir: c.BinDir(), DataDir: dataDir}
}

// TestBackupRestoreToPointInTime: rows committed before T come back, rows
// after do not; latest brings back everything archived; the generated
// jwt_secret comes back with the database; a restore never overwrites a
// database, never starts from a backup that finished after T, and says so
// when the archive does not reach T.
func TestBackupRestoreToPointInTime(t *testing.T) {
	t.Parallel()
	bk := newBank(t)
	root, backupDir, db := bk.root, bk.backupDir, bk.db
	if err := os.WriteFile(filepath.Join(bk.dataDir, "jwt_secret"), []byte("the-generated-secret-of-this-data-dir"), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, db, `INSERT INTO payments SELECT generate_series(1, 5)`)

	ctx := context.Background()
	b := bk.take(t, 0)
	if !b.JWTSecret || b.Bytes == 0 || b.DatabaseBytes == 0 || b.Timeline != 1 || b.StartWAL == "" || !b.Finished.After(b.Started) {
		t.Fatalf("backup: %+v", b)
	}
	for i := 6; i <= 10; i++ {
		run(t, db, `INSERT INTO payments VALUES ($1)`, i)
	}
	time.Sleep(20 * time.Millisecond)
	target := time.Now()
	time.Sleep(20 * time.Millisecond)
	for i := 11; i <= 15; i++ {
		run(t, db, `INSERT INTO payments VALUES ($1)`, i)
	}
	archiveAll(t, db)

	rep, err := Check(backupDir, CheckOptions{MaxAge: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || len(rep.Checked) != 1 || rep.Checked[0].Files < 100 {
		t.Fatalf("check of a whole backup_dir: %+v", rep)
	}

	// A restore to T: 1..10, not 11..15.
	restored := filepath.Join(root, "r1")
	res, err := Restore(ctx, RestoreOptions{BackupDir: backupDir, DataDir: restored, Target: target, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backup.Name != b.Name || res.Timeline != 2 || res.LastCommit.After(target) || res.LastCommit.IsZero() {
		t.Fatalf("restore to T: %+v", res)
	}
	secret, err := os.ReadFile(filepath.Join(restored, "jwt_secret"))
	if err != nil || string(secret) != "the-generated-secret-of-this-data-dir" {
		t.Fatalf("jwt_secret after the restore: %q %v", secret, err)
	}
	r1 := cluster(t, restored, "")
	if got := ids(t, open(t, r1)); len(got) != 10 || got[9] != 10 {
		t.Fatalf("restored to T: ids %v, want 1..10", got)
	}
	if _, err := os.Stat(filepath.Join(restored, "postgres", "pg_wal", "archive_status", "00000002.history.ready")); err != nil {
		t.Errorf("the new timeline's history is not queued for the archive: %v", err)
	}
	r1.Stop()

	// Never over a database.
	if _, err := Restore(ctx, RestoreOptions{BackupDir: backupDir, DataDir: restored, Target: target, Logger: quiet}); err == nil ||
		!strings.Contains(err.Error(), "holds a database already") {
		t.Fatalf("restore over a database: %v", err)
	}
	// Latest: everything archived.
	latest := filepath.Join(root, "r2")
	if _, err := Restore(ctx, RestoreOptions{BackupDir: backupDir, DataDir: latest, Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	r2 := cluster(t, latest, "")
	if got := ids(t, open(t, r2)); len(got) != 15 {
		t.Fatalf("restored to latest: ids %v, want 1..15", got)
	}
	r2.Stop()
	// Before the backup finished: no backup can serve.
	if _, err := Restore(ctx, RestoreOptions{BackupDir: backupDir, DataDir: filepath.Join(root, "r3"), Target: b.Started, Logger: quiet}); !errors.Is(err, ErrNoBackup) {
		t.Fatalf("restore to before the backup: %v", err)
	}
	// After the archive ends: PostgreSQL refuses, and nothing is left behind.
	future := filepath.Join(root, "r4")
	if _, err := Restore(ctx, RestoreOptions{BackupDir: backupDir, DataDir: future, Target: time.Now().Add(time.Hour), Logger: quiet}); !errors.Is(err, pgembed.ErrTargetNotReached) {
		t.Fatalf("restore past the archive: %v", err)
	}
	if _, err := os.Stat(filepath.Join(future, "postgres")); !os.IsNotExist(err) {
		t.Fatalf("a failed restore left %s/postgres behind: %v", future, err)
	}
}

// TestCheckFindsDamage: a file changed inside a backup, and a WAL segment
// missing from the archive, are each named; a damaged backup is not restored.
func TestCheckFindsDamage(t *testing.T) {
	t.Parallel()
	bk := newBank(t)
	root, backupDir, db := bk.root, bk.backupDir, bk.db
	b := bk.take(t, 0)
	for i := 0; i < 3; i++ {
		run(t, db, `INSERT INTO payments VALUES ($1)`, i)
		archiveAll(t, db)
	}
	if rep, err := Check(backupDir, CheckOptions{}); err != nil || !rep.OK {
		t.Fatalf("check before the damage: %+v %v", rep, err)
	}

	// The same size, other bytes: only the checksum tells.
	rewriteTarFile(t, filepath.Join(backupDir, baseDir, b.Name, "base.tar.gz"), "PG_VERSION", func(b []byte) []byte { return bytes.Replace(b, []byte("15"), []byte("51"), 1) })
	rep, err := Check(backupDir, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK || !strings.Contains(strings.Join(rep.Problems, "\n"), "PG_VERSION: checksum") {
		t.Fatalf("a changed file was not found: %+v", rep.Problems)
	}
	_, err = Restore(context.Background(), RestoreOptions{BackupDir: backupDir, DataDir: filepath.Join(root, "r"), Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), "does not match its manifest") {
		t.Fatalf("a damaged backup was restored: %v", err)
	}

	// A segment in the middle of the archive goes missing.
	inv, err := List(backupDir)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := parseSegment(b.StartWAL, b.SegmentSize)
	gone := segmentFile(b.Timeline, (first.no+1)*uint64(b.SegmentSize), b.SegmentSize)
	if inv.WAL.Newest <= gone {
		t.Fatalf("the archive ends at %s; the test needs segments after %s", inv.WAL.Newest, gone)
	}
	if err := os.Remove(filepath.Join(WALDir(backupDir), gone)); err != nil {
		t.Fatal(err)
	}
	rep, err = Check(backupDir, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(rep.Problems, "\n"), "misses 1 segment(s) after the oldest base backup (first: "+gone+")") {
		t.Fatalf("a missing segment was not found: %+v", rep.Problems)
	}
	// A restore over the gap would stop replaying there: refused.
	if _, err := Restore(context.Background(), RestoreOptions{BackupDir: backupDir, DataDir: filepath.Join(root, "r2"), Logger: quiet}); err == nil ||
		!strings.Contains(err.Error(), "misses 1 segment(s) after base backup") {
		t.Fatalf("a restore over a gap in the archive: %v", err)
	}
	// Too old.
	rep, _ = Check(backupDir, CheckOptions{MaxAge: time.Hour, Now: time.Now().Add(2 * time.Hour)})
	if !strings.Contains(strings.Join(rep.Problems, "\n"), "is 2h0m0s old") {
		t.Fatalf("an old backup was not reported: %+v", rep.Problems)
	}
}

// TestKeepPrunesBackupsAndWAL: with Keep 2, a third backup removes the
// first and the WAL only it needed; history files stay.
func TestKeepPrunesBackupsAndWAL(t *testing.T) {
	t.Parallel()
	bk := newBank(t)
	backupDir, db := bk.backupDir, bk.db
	if err := os.WriteFile(filepath.Join(WALDir(backupDir), "00000002.history"), []byte("1\t0/3000000\tno reason\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var taken []*Backup
	for i := 0; i < 3; i++ {
		taken = append(taken, bk.take(t, 2))
		run(t, db, `INSERT INTO payments VALUES ($1)`, i)
		archiveAll(t, db)
	}
	inv, err := List(backupDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Backups) != 2 || inv.Backups[0].Name != taken[1].Name || inv.Backups[1].Name != taken[2].Name {
		t.Fatalf("kept %+v, want the last two of %s, %s, %s", inv.Backups, taken[0].Name, taken[1].Name, taken[2].Name)
	}
	if inv.WAL.Oldest != taken[1].StartWAL {
		t.Fatalf("the oldest archived segment is %s, want %s (the first the oldest kept backup needs)", inv.WAL.Oldest, taken[1].StartWAL)
	}
	if _, err := os.Stat(filepath.Join(WALDir(backupDir), "00000002.history")); err != nil {
		t.Fatalf("a history file was pruned: %v", err)
	}
	if rep, err := Check(backupDir, CheckOptions{All: true}); err != nil || !rep.OK || len(rep.Checked) != 2 {
		t.Fatalf("check after pruning: %+v %v", rep, err)
	}
}

// TestTakeRefusesWithoutArchiving: a base backup of a server that does
// not archive could never be brought past its own end.
func TestTakeRefusesWithoutArchiving(t *testing.T) {
	t.Parallel()
	root := shortDir(t)
	c := cluster(t, filepath.Join(root, "d"), "")
	_, err := Take(context.Background(), Options{Dir: filepath.Join(root, "b"), Source: source(c, ""), Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), "archive_mode is off") {
		t.Fatalf("a backup without archiving: %v", err)
	}
}

// rewriteTarFile changes one file inside a gzipped tar.
func rewriteTarFile(t *testing.T, path, name string, change func([]byte) []byte) {
	t.Helper()
	var out bytes.Buffer
	gz := gzip.NewWriter(&out)
	tw := tar.NewWriter(gz)
	found := false
	err := walkTarGz(path, func(h *tar.Header, r io.Reader) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if h.Name == name {
			data = change(data)
			found = true
		}
		h.Size = int64(len(data))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil || !found {
		t.Fatalf("rewriting %s in %s: found %v, %v", name, path, found, err)
	}
	tw.Close()
	gz.Close()
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTakeCancelled: a backup cancelled half-way (serve stopping) ends at
// once, its pg_basebackup and the child that streams the WAL with it, and
// leaves nothing the next backup would mistake for a backup.
func TestTakeCancelled(t *testing.T) {
	t.Parallel()
	bk := newBank(t)
	dataDir, backupDir, c, db := bk.dataDir, bk.backupDir, bk.c, bk.db
	// Enough data that the backup is still running when it is cancelled.
	run(t, db, `INSERT INTO payments SELECT generate_series(1, 1000000)`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Take(ctx, Options{Dir: backupDir, Source: source(c, dataDir), Logger: quiet})
		done <- err
	}()
	// Cancel once pg_basebackup has written something.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		m, _ := filepath.Glob(filepath.Join(backupDir, baseDir, "*"+partialExt, "*"))
		if len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("pg_basebackup wrote nothing in 20 s")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled backup reported success")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled backup did not end within 10 s (pg_basebackup's WAL-streaming child left running?)")
	}
	inv, err := List(backupDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Backups) != 0 || len(inv.Partial) > 0 {
		t.Fatalf("after a cancelled backup: %+v", inv)
	}
	var senders int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if err := db.QueryRow(`SELECT count(*) FROM pg_stat_replication`).Scan(&senders); err != nil {
			t.Fatal(err)
		}
		if senders == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d WAL senders still stream to the cancelled backup", senders)
		}
	}
}
