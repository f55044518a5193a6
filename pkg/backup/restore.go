package backup

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"meridian/pkg/pgembed"
)

// RestoreOptions configure Restore.
type RestoreOptions struct {
	// BackupDir holds the base backups and the WAL archive.
	BackupDir string
	// DataDir is the new Meridian data dir; it must hold no database yet.
	DataDir string
	// Target is the time to restore to; zero: as late as the archive goes.
	Target time.Time
	// BinDir: the PostgreSQL binaries (empty: found as pgembed finds them).
	BinDir string
	Logger *slog.Logger
}

// Restored tells what Restore did.
type Restored struct {
	DataDir string `json:"data_dir"`
	Backup  Backup `json:"backup"`
	// Target is the time asked for (null: latest).
	Target *time.Time `json:"target"`
	// LastCommit is the commit time of the last transaction replayed from
	// the archive (zero: none after the base backup).
	LastCommit time.Time `json:"last_commit,omitzero"`
	// Timeline is the timeline the restored cluster continues on.
	Timeline int `json:"timeline"`
	// Unpack and Replay split Took: unpacking (and verifying) the base
	// backup, then replaying the archived WAL.
	Unpack time.Duration `json:"unpack_ns"`
	Replay time.Duration `json:"replay_ns"`
	Took   time.Duration `json:"took_ns"`
}

// ErrNoBackup is Restore's error when no base backup finished before the
// target time.
var ErrNoBackup = errors.New("no base backup finished before the time asked for")

// Restore rebuilds the embedded cluster as it was at o.Target into
// o.DataDir: it unpacks the newest base backup that finished before the
// target (checking every file against the backup's manifest as it goes),
// replays the archived WAL up to the target (every transaction committed
// by then, none after) and ends the recovery there, on a new timeline. The
// data dir's jwt_secret comes back from the backup. Then `meridian serve
// --data-dir` runs it. On failure the half-made database is removed.
func Restore(ctx context.Context, o RestoreOptions) (*Restored, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	start := time.Now()
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, err
	}
	pgData := filepath.Join(dataDir, "postgres")
	if exists(pgData) {
		return nil, fmt.Errorf("restore: %s holds a database already; restore into a new data dir", pgData)
	}
	inv, err := List(o.BackupDir)
	if err != nil {
		return nil, err
	}
	if len(inv.Backups) == 0 {
		return nil, fmt.Errorf("restore: %s holds no base backup", o.BackupDir)
	}
	var b *Backup
	for i := len(inv.Backups) - 1; i >= 0; i-- {
		if o.Target.IsZero() || inv.Backups[i].Finished.Before(o.Target) {
			b = &inv.Backups[i]
			break
		}
	}
	if b == nil {
		return nil, fmt.Errorf("restore: %w (%s); the oldest finished at %s", ErrNoBackup,
			o.Target.UTC().Format(time.RFC3339), inv.Backups[0].Finished.Format(time.RFC3339))
	}
	// A segment missing after the backup would stop PostgreSQL's replay
	// there, and it would promote an earlier bank than asked for as if that
	// were the restore: refuse instead, naming the gap.
	if missing := gaps(WALDir(o.BackupDir), *b); len(missing) > 0 {
		return nil, fmt.Errorf("restore: the WAL archive misses %d segment(s) after base backup %s (first: %s), so replay would stop there, before the time asked for; restore from a base backup taken after the gap (meridian backup check --all names the problems)",
			len(missing), b.Name, missing[0])
	}
	res := &Restored{DataDir: dataDir, Backup: *b}
	if !o.Target.IsZero() {
		t := o.Target.UTC()
		res.Target = &t
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	src := filepath.Join(o.BackupDir, baseDir, b.Name)
	tmp := pgData + ".restore"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	o.Logger.Info("unpacking the base backup", "backup", b.Name, "into", pgData)
	cleanup := func() {
		os.RemoveAll(tmp)
		os.RemoveAll(pgData)
	}
	if err := unpack(src, tmp); err != nil {
		cleanup()
		return nil, fmt.Errorf("restore: base backup %s: %w", b.Name, err)
	}
	if err := os.Rename(tmp, pgData); err != nil {
		cleanup()
		return nil, fmt.Errorf("restore: %w", err)
	}
	secret := filepath.Join(dataDir, secretFile)
	copiedSecret := false
	if b.JWTSecret && !exists(secret) {
		if err := copyFile(filepath.Join(src, secretFile), secret, 0o600); err != nil {
			cleanup()
			return nil, fmt.Errorf("restore: the jwt_secret: %w", err)
		}
		copiedSecret = true
	}
	// The checkpoints the backup holds, where serve and verify --anchors
	// look by default (<data_dir>/anchors), unless some are there already.
	if b.Anchors > 0 {
		if names, _ := filepath.Glob(filepath.Join(dataDir, anchorsDir, "anchor-*.json")); len(names) == 0 {
			if _, err := copyAnchors(filepath.Join(src, anchorsDir), filepath.Join(dataDir, anchorsDir)); err != nil {
				cleanup()
				return nil, fmt.Errorf("restore: the audit chain's checkpoints: %w", err)
			}
		}
	}
	res.Unpack = time.Since(start)

	rec, err := pgembed.Recover(ctx, pgembed.RecoverOptions{DataDir: dataDir, BinDir: o.BinDir,
		RestoreCommand: pgembed.RestoreCommand(WALDir(o.BackupDir)), Target: o.Target, Logger: o.Logger})
	if err != nil {
		cleanup()
		if copiedSecret {
			os.Remove(secret)
		}
		return nil, fmt.Errorf("restore: %w", err)
	}
	res.LastCommit, res.Timeline, res.Replay = rec.LastCommit, rec.Timeline, rec.Took
	res.Took = time.Since(start)
	return res, nil
}

// unpack writes a base backup's files into dst (base.tar.gz, then
// pg_wal.tar.gz into dst/pg_wal), checking each against the manifest.
func unpack(src, dst string) error {
	m, err := readManifest(filepath.Join(src, "backup_manifest"))
	if err != nil {
		return err
	}
	v, err := newVerifier(m)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o700); err != nil {
		return err
	}
	if err := extract(filepath.Join(src, "base.tar.gz"), dst, v); err != nil {
		return err
	}
	if p := v.problems(); len(p) > 0 {
		return fmt.Errorf("it does not match its manifest: %s", strings.Join(p[:min(len(p), 5)], "; "))
	}
	if err := os.MkdirAll(filepath.Join(dst, "pg_wal"), 0o700); err != nil {
		return err
	}
	return extract(filepath.Join(src, "pg_wal.tar.gz"), filepath.Join(dst, "pg_wal"), nil)
}

// extract unpacks a gzipped tar into dst; with v, every regular file is
// checked against the manifest as it is written.
func extract(archive, dst string, v *verifier) error {
	return walkTarGz(archive, func(h *tar.Header, r io.Reader) error {
		name := filepath.FromSlash(strings.TrimSuffix(h.Name, "/"))
		if name == "." || name == "" {
			return nil
		}
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%s: the entry %q points outside the data dir", filepath.Base(archive), h.Name)
		}
		path := filepath.Join(dst, name)
		switch h.Typeflag {
		case tar.TypeDir:
			return os.MkdirAll(path, 0o700)
		case tar.TypeSymlink:
			return os.Symlink(h.Linkname, path)
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return err
			}
			if v != nil {
				err = v.file(h.Name, r, f)
			} else {
				_, err = io.Copy(f, r)
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
		return nil
	})
}
