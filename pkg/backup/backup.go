// Package backup keeps the embedded PostgreSQL cluster recoverable: base
// backups (pg_basebackup) beside the continuous WAL archive that the
// cluster's archive_command writes (pkg/pgembed.ArchiveCommand), both in
// backup_dir; a check that every file of a backup matches its manifest and
// that the archive has no gap; and a restore of the cluster as it was at a
// point in time, into a new data dir.
//
// backup_dir holds:
//
//	wal/                  WAL segments and timeline history files, as archived
//	base/<name>/          one base backup: base.tar.gz, pg_wal.tar.gz,
//	                      backup_manifest (pg_basebackup's), jwt_secret (the
//	                      data dir's generated secret, when there is one) and
//	                      meridian-backup.json (Backup)
//	base/<name>.partial/  a backup being taken (or left by a crash)
//	backup.lock           held while a backup is taken or pruned
//
// An external PostgreSQL is backed up with pgBackRest instead (README).
package backup

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "github.com/lib/pq" // the PostgreSQL driver

	"meridian/pkg/pgembed"
)

// Source is the running cluster to back up.
type Source struct {
	// URL connects as a superuser (pgembed's, over the socket).
	URL string
	// Host, Port and User are the same for pg_basebackup: the socket
	// directory, the socket's port number, the role.
	Host string
	Port int
	User string
	// BinDir holds pg_basebackup of the server's version.
	BinDir string
	// DataDir is Meridian's data dir: its generated jwt_secret, if any,
	// goes into every backup.
	DataDir string
	// AnchorDir is anchor_dir: its signed checkpoints of the audit chain's
	// head go into every backup (anchorsDir), so a restored bank can be
	// checked against them (meridian audit-log verify --anchors).
	AnchorDir string
}

// Options configure Take.
type Options struct {
	Dir    string // backup_dir
	Source Source
	// Keep is how many base backups to keep (at least 1); older ones go,
	// and the archived WAL only they needed. 0: keep all.
	Keep   int
	Logger *slog.Logger
	// Checkpoint, when set, writes a checkpoint of the audit chain's head
	// into Source.AnchorDir before the backup starts (the chain in the
	// backup extends it).
	Checkpoint func(context.Context) error
}

// Take takes a base backup of the running cluster into Dir/base, then
// prunes what Keep no longer needs. Only one Take runs at a time per Dir
// (others wait for it); a backup left half-made by a crash is removed.
func Take(ctx context.Context, o Options) (*Backup, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if err := os.MkdirAll(filepath.Join(o.Dir, baseDir), 0o700); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	unlock, err := lock(ctx, o.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := removePartial(o.Dir); err != nil {
		return nil, err
	}

	db, err := sql.Open("postgres", o.Source.URL)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	defer db.Close()
	b := &Backup{}
	var segSize string
	if err := db.QueryRowContext(ctx, `SELECT current_setting('server_version_num'), current_setting('wal_segment_size'),
		(SELECT system_identifier::text FROM pg_control_system())`).Scan(&b.PGVersion, &segSize, &b.SystemID); err != nil {
		return nil, fmt.Errorf("backup: asking the server: %w", err)
	}
	if b.SegmentSize, err = parseSize(segSize); err != nil {
		return nil, fmt.Errorf("backup: wal_segment_size %q: %w", segSize, err)
	}
	var archiving string
	if err := db.QueryRowContext(ctx, `SELECT current_setting('archive_mode')`).Scan(&archiving); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if archiving == "off" {
		return nil, errors.New("backup: the server does not archive its WAL (archive_mode is off), so a base backup alone could not be brought forward to any later time; restart it with backup_dir set")
	}

	if o.Checkpoint != nil {
		if err := o.Checkpoint(ctx); err != nil {
			return nil, fmt.Errorf("backup: a checkpoint of the audit chain: %w", err)
		}
	}
	b.Started = time.Now().UTC()
	b.Name = b.Started.Format("20060102T150405Z")
	final := filepath.Join(o.Dir, baseDir, b.Name)
	for i := 2; exists(final); i++ {
		b.Name = fmt.Sprintf("%s-%d", b.Started.Format("20060102T150405Z"), i)
		final = filepath.Join(o.Dir, baseDir, b.Name)
	}
	tmp := final + partialExt
	o.Logger.Info("taking a base backup", "backup", b.Name, "backup_dir", o.Dir)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, filepath.Join(o.Source.BinDir, "pg_basebackup"),
		"-h", o.Source.Host, "-p", fmt.Sprint(o.Source.Port), "-U", o.Source.User, "-w",
		"-D", tmp, "--format=tar", "--compress=gzip:1", "--wal-method=stream", "--checkpoint=fast",
		"--label=meridian "+b.Name)
	cmd.Stderr = &stderr
	// pg_basebackup forks a child that streams the WAL: a cancelled backup
	// (serve stopping) kills both, as a process group, or the orphaned child
	// would keep streaming, and Wait waiting on its stderr, until the
	// server stops, which waits for us.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("backup: pg_basebackup: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	b.Finished = time.Now().UTC()

	m, err := readManifest(filepath.Join(tmp, "backup_manifest"))
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("backup: %w", err)
	}
	r := m.WALRanges[0]
	start, err1 := parseLSN(r.StartLSN)
	_, err2 := parseLSN(m.WALRanges[len(m.WALRanges)-1].EndLSN)
	if err := errors.Join(err1, err2); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("backup: manifest: %w", err)
	}
	b.StartLSN, b.EndLSN, b.Timeline = r.StartLSN, m.WALRanges[len(m.WALRanges)-1].EndLSN, r.Timeline
	b.StartWAL = segmentFile(r.Timeline, start, b.SegmentSize)
	for _, f := range m.Files {
		b.DatabaseBytes += f.Size
	}
	if o.Source.DataDir != "" {
		secret, err := os.ReadFile(filepath.Join(o.Source.DataDir, secretFile))
		switch {
		case err == nil:
			if err := writeFileSync(filepath.Join(tmp, secretFile), secret, 0o600); err != nil {
				os.RemoveAll(tmp)
				return nil, fmt.Errorf("backup: %w", err)
			}
			b.JWTSecret = true
		case !errors.Is(err, fs.ErrNotExist):
			os.RemoveAll(tmp)
			return nil, fmt.Errorf("backup: reading the jwt_secret: %w", err)
		}
	}
	if o.Source.AnchorDir != "" {
		if b.Anchors, err = copyAnchors(o.Source.AnchorDir, filepath.Join(tmp, anchorsDir)); err != nil {
			os.RemoveAll(tmp)
			return nil, fmt.Errorf("backup: the audit chain's checkpoints: %w", err)
		}
	}
	if b.Bytes, err = dirSize(tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("backup: %w", err)
	}
	meta, _ := json.MarshalIndent(b, "", "  ")
	if err := writeFileSync(filepath.Join(tmp, metaFile), append(meta, '\n'), 0o600); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("backup: %w", err)
	}
	// pg_basebackup synced its files; the rename makes the backup visible
	// only once whole.
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := syncDir(filepath.Join(o.Dir, baseDir)); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	o.Logger.Info("base backup taken", "backup", b.Name, "bytes", b.Bytes, "database_bytes", b.DatabaseBytes,
		"took", b.Finished.Sub(b.Started).Round(time.Millisecond))
	if o.Keep > 0 {
		if err := prune(o.Dir, o.Keep, o.Logger); err != nil {
			return b, fmt.Errorf("backup: the backup %s was taken, but pruning old ones failed: %w", b.Name, err)
		}
	}
	return b, nil
}

// prune keeps the newest keep base backups and the WAL they need: every
// segment from the oldest kept backup's first on (history files always).
// The caller holds the lock.
func prune(dir string, keep int, log *slog.Logger) error {
	inv, err := List(dir)
	if err != nil {
		return err
	}
	if len(inv.Backups) <= keep {
		return nil
	}
	drop := inv.Backups[:len(inv.Backups)-keep]
	for _, b := range drop {
		if err := os.RemoveAll(filepath.Join(dir, baseDir, b.Name)); err != nil {
			return err
		}
		log.Info("removed an old base backup", "backup", b.Name)
	}
	oldest := inv.Backups[len(inv.Backups)-keep]
	first, ok := parseSegment(oldest.StartWAL, oldest.SegmentSize)
	if !ok {
		return fmt.Errorf("base backup %s names no first WAL segment", oldest.Name)
	}
	files, err := os.ReadDir(WALDir(dir))
	if err != nil {
		return err
	}
	removed := 0
	for _, f := range files {
		name := f.Name()
		// A segment, or the .backup label file PostgreSQL archives after a
		// base backup (<segment>.<offset>.backup).
		seg, ok := parseSegment(strings.SplitN(name, ".", 2)[0], oldest.SegmentSize)
		if !ok || historyName.MatchString(name) || seg.no >= first.no {
			continue
		}
		if err := os.Remove(filepath.Join(WALDir(dir), name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		removed++
	}
	if removed > 0 {
		log.Info("removed archived WAL no kept backup needs", "files", removed, "before", oldest.StartWAL)
	}
	return nil
}

// lock takes backup_dir/backup.lock, waiting for another holder (a
// backup of a big database may take hours).
func lock(ctx context.Context, dir string) (func(), error) {
	unlock, err := pgembed.LockFile(ctx, filepath.Join(dir, "backup.lock"), 24*time.Hour)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	return unlock, nil
}

// removePartial deletes backups a crash left half-made. The caller holds the lock.
func removePartial(dir string) error {
	entries, err := os.ReadDir(filepath.Join(dir, baseDir))
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), partialExt) {
			if err := os.RemoveAll(filepath.Join(dir, baseDir, e.Name())); err != nil {
				return fmt.Errorf("backup: removing a half-made backup: %w", err)
			}
		}
	}
	return nil
}

// parseSize reads a PostgreSQL size setting ("16MB", "8kB", "1GB").
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"kB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"B", 1}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			var v int64
			if _, err := fmt.Sscan(n, &v); err != nil || v <= 0 {
				return 0, fmt.Errorf("not a size")
			}
			return v * u.mult, nil
		}
	}
	return 0, fmt.Errorf("not a size")
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}

// writeFileSync writes a file and syncs it to disk.
func writeFileSync(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir syncs a directory, so a rename or a new file in it is on disk.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// copyFile copies src to dst (mode perm) and syncs it.
func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// copyAnchors copies the checkpoint files (anchor-*.json) of from into to,
// synced, and returns how many there were (none: to is not made).
func copyAnchors(from, to string) (int, error) {
	names, err := filepath.Glob(filepath.Join(from, "anchor-*.json"))
	if err != nil || len(names) == 0 {
		return 0, err
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		return 0, err
	}
	for _, n := range names {
		if err := copyFile(n, filepath.Join(to, filepath.Base(n)), 0o644); err != nil {
			return 0, err
		}
	}
	return len(names), syncDir(to)
}
