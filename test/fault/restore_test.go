package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/backup"
	"meridian/pkg/loadtest"
)

// TestRestoreAfterLostDisk is the restore drill of contract §10: serve on
// the embedded database archives its WAL into a backup_dir on "another
// disk"; transfers run under load; a time T is noted; more transfers run;
// then the data dir is lost (serve and PostgreSQL killed with SIGKILL, the
// directory removed). `meridian restore --to T` rebuilds it into a new data
// dir, serve runs it, and: every transfer answered 201 before T is in the
// ledger as answered, no transfer sent after T is, no ledger row's
// transaction began after T, every balance equals its ledger, the ledger
// rules of loadtest.LedgerChecks hold (per currency, balances equal the
// ledger totals), the total is what it was (transfers only move money), and
// `meridian audit-log verify` passes.
//
// RESTORE_USERS (default 30) seeds that many customers first, and
// RESTORE_LOAD (default 3s) is the load before and after T: with
// RESTORE_USERS=100000 the drill measures the backup's size and the
// restore's time for the 100k-customer seed (printed as RESTORE lines).
func TestRestoreAfterLostDisk(t *testing.T) {
	bin := binary(t)
	pgctl := findPgCtl(t)
	users := 30
	if v := os.Getenv("RESTORE_USERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 4 {
			t.Fatalf("RESTORE_USERS=%q is not a number of at least 4", v)
		}
		users = n
	}
	load := 3 * time.Second
	if v := os.Getenv("RESTORE_LOAD"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("RESTORE_LOAD=%q is not a positive duration", v)
		}
		load = d
	}
	root := tempDir(t, "mrst")
	disk := filepath.Join(root, "disk1")    // the data dir's disk: lost
	backups := filepath.Join(root, "disk2") // backup_dir on another disk
	if err := os.Mkdir(disk, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, bin: bin, pgctl: pgctl, dir: disk, port: freePort(t), logName: "serve",
		serveArgs: []string{"--backup-dir", backups, "--archive-timeout", "1s"}}
	t.Cleanup(h.cleanup)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	h.startServe()
	h.waitReady(ctx, "first start")
	dbx := h.openDB(ctx)
	seedStart := time.Now()
	customers, mark := h.seedCustomers(ctx, dbx, users, 9)
	t.Logf("seeded %d customers in %s", users, time.Since(seedStart).Round(time.Millisecond))

	// A base backup of the seeded bank, taken beside the running serve.
	out, err := h.runErr("backup", "now", "--backup-dir", backups, "-o", "json")
	if err != nil {
		t.Fatalf("meridian backup now: %v\n%s", err, out)
	}
	var taken backup.Backup
	if err := json.Unmarshal([]byte(lastJSON(out)), &taken); err != nil {
		t.Fatalf("backup now -o json: %v\n%s", err, out)
	}

	load1 := min(len(customers), 200) // the load's customers: sign-ins cost a bcrypt each
	d, run := h.startLoad(ctx, customers[:load1], 8, 23)
	time.Sleep(load)
	target := time.Now()
	n0 := d.Succeeded()
	time.Sleep(load)
	rep, err := run.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if n0 == 0 || d.Succeeded() == n0 {
		t.Fatalf("the load made %d transfers before T and %d after: the drill needs both", n0, d.Succeeded()-n0)
	}
	res, err := d.Resolve(ctx)
	if err != nil || res.Unresolved > 0 || res.Other > 0 {
		t.Fatalf("settling unknown outcomes: %+v %v", res, err)
	}
	t.Logf("load: %d requests, %d answered 201 (%d before T), answers %v", rep.Requests, rep.Transfers, n0, rep.Status)

	// Everything committed is archived within archive_timeout (1 s): wait
	// for the segment in progress at the end of the load.
	waitArchived(ctx, t, dbx)
	dbx.Close()

	// The disk is lost: serve and PostgreSQL die at once, the data dir goes.
	pg := h.postmasterPID()
	h.killServe()
	if pg != 0 {
		if err := syscall.Kill(pg, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); processAlive(pg) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if err := os.RemoveAll(disk); err != nil {
		t.Fatal(err)
	}

	// Restore to T into a new data dir, and serve it.
	newDir := filepath.Join(root, "disk3")
	restoreStart := time.Now()
	out, err = h.runIn(newDir, "restore", "--backup-dir", backups, "--to", target.UTC().Format(time.RFC3339Nano), "-o", "json")
	if err != nil {
		t.Fatalf("meridian restore: %v\n%s", err, out)
	}
	restoreTook := time.Since(restoreStart)
	var restored backup.Restored
	if err := json.Unmarshal([]byte(lastJSON(out)), &restored); err != nil {
		t.Fatalf("restore -o json: %v\n%s", err, out)
	}
	if restored.Backup.Name != taken.Name {
		t.Errorf("restored from base backup %s, want %s (the newest finished before T)", restored.Backup.Name, taken.Name)
	}
	r := &harness{t: t, bin: bin, pgctl: pgctl, dir: newDir, port: freePort(t), logName: "serve-restored"}
	t.Cleanup(r.cleanup)
	r.startServe()
	r.waitReady(ctx, "serve on the restored data dir")
	rdb := r.openDB(ctx)
	check, err := loadtest.CheckRestored(ctx, rdb, loadtest.RestoredOptions{Target: target, Committed: d.Committed(), ExpectedTotal: &mark.TotalBalance})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range check.Problems {
		t.Errorf("restored to T: %s", p)
	}
	if check.Before == 0 || check.After == 0 {
		t.Errorf("the drill needs transfers answered before T (%d) and sent after it (%d)", check.Before, check.After)
	}
	if out, err := r.runErr("audit-log", "verify"); err != nil {
		t.Errorf("audit-log verify on the restored data dir: %v\n%s", err, out)
	}

	t.Logf("restored to %s: %d transfers answered before T all there, %d sent after T none there, %d in flight at T (%d of them there); invariant: %d accounts, %d ledger rows",
		target.UTC().Format(time.RFC3339Nano), check.Before, check.After, check.Between, check.BetweenPresent, check.Invariant.Accounts, check.Invariant.LedgerRows)
	fmt.Printf("RESTORE drill (%d customers): %d transfers answered 201 before T present, %d sent after T absent, %d straddling T (%d present); invariant %s; audit-log verify passed\n",
		users, check.Before, check.After, check.Between, check.BetweenPresent, map[bool]string{true: "holds", false: "BROKEN"}[check.OK])
	fmt.Printf("RESTORE base backup (%d customers): %s on disk (database files %s), taken in %s\n", users,
		mib(taken.Bytes), mib(taken.DatabaseBytes), taken.Finished.Sub(taken.Started).Round(time.Millisecond))
	fmt.Printf("RESTORE restore to T (%d customers): %s in all (unpacking and checking %s, replaying WAL %s)\n", users,
		restoreTook.Round(time.Millisecond), restored.Unpack.Round(time.Millisecond), restored.Replay.Round(time.Millisecond))
}

// waitArchived waits until the WAL segment in progress now is in the archive.
func waitArchived(ctx context.Context, t *testing.T, dbx *sqlx.DB) {
	t.Helper()
	var seg string
	if err := dbx.GetContext(ctx, &seg, `SELECT pg_walfile_name(pg_current_wal_lsn())`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var last *string
		if err := dbx.GetContext(ctx, &last, `SELECT last_archived_wal FROM pg_stat_archiver`); err != nil {
			t.Fatal(err)
		}
		if last != nil && (*last)[8:] >= seg[8:] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("segment %s not archived within 60 s (archive_timeout is 1 s)", seg)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runIn runs a meridian command on another data dir.
func (h *harness) runIn(dataDir string, args ...string) (string, error) {
	saved := h.dir
	h.dir = dataDir
	defer func() { h.dir = saved }()
	return h.runErr(args...)
}

func tempDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() || os.Getenv("FAULT_KEEP") != "1" {
			os.RemoveAll(dir)
		}
	})
	return dir
}

// lastJSON returns the JSON object that ends a command's combined output
// (log lines may come before it).
func lastJSON(out string) string {
	for i := 0; i < len(out); i++ {
		if out[i] == '{' && (i == 0 || out[i-1] == '\n') {
			return out[i:]
		}
	}
	return out
}

func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
