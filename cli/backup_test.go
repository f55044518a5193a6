package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"meridian/pkg/backup"
)

// TestBackupCommands runs the backup commands on an embedded data dir, from
// the first command to a restore into a new one: backup now (archiving
// started by the first command), list, check, then restore --to latest,
// where the demo customers are found again.
func TestBackupCommands(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "mbkc")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	backups := filepath.Join(dir, "other-disk")
	run := func(dataDir string, args ...string) (int, string) {
		t.Helper()
		var out syncBuffer
		code := ExecuteContext(context.Background(), append(args, "--data-dir", dataDir, "--backup-dir", backups, "--log-level", "error"), nil, &out, &out)
		return code, out.String()
	}
	d := filepath.Join(dir, "d")
	if code, out := run(d, "seed"); code != 0 {
		t.Fatalf("seed: %d %s", code, out)
	}
	// No base backup yet (no serve ran): doctor fails, naming it.
	if code, out := run(d, "doctor"); code != 1 || !strings.Contains(out, "doctor: 1 check(s) failed: backups: ") || !strings.Contains(out, "roles and grants  ok") {
		t.Fatalf("doctor without a backup: %d %s", code, out)
	}
	code, out := run(d, "backup", "now", "-o", "json")
	var b backup.Backup
	if code != 0 || json.Unmarshal([]byte(out), &b) != nil || b.Name == "" || !b.JWTSecret || b.Anchors != 1 {
		t.Fatalf("backup now: %d %s", code, out)
	}
	// It started with a signed checkpoint of the audit chain's head, kept
	// in anchor_dir and in the backup.
	kept, _ := filepath.Glob(filepath.Join(d, "anchors", "anchor-*.json"))
	inBackup, _ := filepath.Glob(filepath.Join(backups, "base", b.Name, "anchors", "anchor-*.json"))
	if len(kept) != 1 || len(inBackup) != 1 || filepath.Base(kept[0]) != filepath.Base(inBackup[0]) {
		t.Fatalf("the backup's checkpoint: anchor_dir %v, backup %v", kept, inBackup)
	}
	code, out = run(d, "backup", "list")
	if code != 0 || !strings.Contains(out, b.Name) || !strings.Contains(out, "WAL archive "+backup.WALDir(backups)) {
		t.Fatalf("backup list: %d %s", code, out)
	}
	// A command's last stop archives the segment in progress: the archive
	// reaches past the backup, and check finds it whole.
	code, out = run(d, "backup", "check", "--all")
	if code != 0 || !strings.Contains(out, b.Name+": ") || !strings.Contains(out, "is whole") {
		t.Fatalf("backup check: %d %s", code, out)
	}

	var rep struct {
		OK       bool `json:"ok"`
		Findings []struct{ Check, Status string }
	}
	if code, out = run(d, "doctor", "-o", "json"); code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.OK || len(rep.Findings) < 7 {
		t.Fatalf("doctor after a backup: %d %s", code, out)
	}

	restored := filepath.Join(dir, "r")
	code, out = run(restored, "restore", "--to", "latest")
	if code != 0 || !strings.Contains(out, "Restored into "+restored) {
		t.Fatalf("restore --to latest: %d %s", code, out)
	}
	// The restored data dir serves the same bank, under the same secret.
	secret, _ := os.ReadFile(filepath.Join(d, "jwt_secret"))
	again, _ := os.ReadFile(filepath.Join(restored, "jwt_secret"))
	if len(secret) == 0 || string(secret) != string(again) {
		t.Fatal("the restored data dir has another jwt_secret")
	}
	if code, out = run(restored, "user", "list"); code != 0 || !strings.Contains(out, "alice@meridian.test") {
		t.Fatalf("user list on the restored data dir: %d %s", code, out)
	}
	if code, out = run(restored, "audit-log", "verify"); code != 0 {
		t.Fatalf("audit-log verify on the restored data dir: %d %s", code, out)
	}
	// The backup's checkpoint came with it: the restored chain extends it.
	if code, out = run(restored, "audit-log", "verify", "--anchors", filepath.Join(restored, "anchors")); code != 0 || !strings.Contains(out, "1 checkpoint") {
		t.Fatalf("audit-log verify --anchors on the restored data dir: %d %s", code, out)
	}
	// Never over a database.
	if code, out = run(restored, "restore", "--to", "latest"); code != 1 || !strings.Contains(out, "holds a database already") {
		t.Fatalf("restore over a database: %d %s", code, out)
	}
	// Before the first backup finished: nothing to restore from.
	if code, out = run(filepath.Join(dir, "r2"), "restore", "--to", b.Started.Add(-time.Hour).Format(time.RFC3339)); code != 1 || !strings.Contains(out, "no base backup finished before") {
		t.Fatalf("restore to before any backup: %d %s", code, out)
	}
	// An empty backup_dir fails the check.
	var empty syncBuffer
	if code := ExecuteContext(context.Background(), []string{"backup", "check", "--backup-dir", filepath.Join(dir, "none"), "--data-dir", d}, nil, &empty, &empty); code != 1 ||
		!strings.Contains(empty.String(), "holds no base backup") {
		t.Fatalf("check of an empty backup_dir: %d %s", code, empty.String())
	}
}

// TestBackupUsage: restore needs --to (a time or latest) and --data-dir;
// backups and restores of an external database are pgBackRest's; doctor's
// limits are positive.
func TestBackupUsage(t *testing.T) {
	t.Parallel()
	var got *restoreOptions
	capture := func(_ context.Context, o *restoreOptions) error { got = o; return nil }
	a := &app{}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--data-dir", "x"}, 2},
		{[]string{"--to", "yesterday", "--data-dir", "x"}, 2},
		{[]string{"--to", "latest"}, 2},
		{[]string{"--to", "2026-11-24T09:30:00Z", "--data-dir", "x"}, 0},
		{[]string{"--to", "LATEST", "--data-dir", "x"}, 0},
	} {
		got = nil
		cmd := a.restoreCmd(capture)
		cmd.Flags().String("data-dir", "", "")
		cmd.SetArgs(tc.args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		err := cmd.Execute()
		_, usage := err.(usageError)
		switch {
		case tc.code == 2 && !usage:
			t.Errorf("restore %v: %v, want a usage error", tc.args, err)
		case tc.code == 0 && (err != nil || got == nil):
			t.Errorf("restore %v: %v", tc.args, err)
		}
	}
	if got == nil || !got.Target.IsZero() {
		t.Fatalf("--to LATEST: %+v", got)
	}
	c := newCLI(t)
	if code, _, _ := c.run("", "doctor", "--max-clock-skew", "0s"); code != 2 {
		t.Errorf("doctor --max-clock-skew 0s: exit %d, want 2", code)
	}
	for _, args := range [][]string{{"backup", "now"}, {"restore", "--to", "latest"}} {
		code, _, stderr := c.run("", args...)
		if code != 1 || !strings.Contains(stderr, "pgBackRest") {
			t.Errorf("meridian %v with database_url: %d %s", args, code, stderr)
		}
	}
}
