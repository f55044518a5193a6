package pgembed

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ArchiveCommand is the archive_command that copies a finished WAL segment
// (%p, relative to PGDATA) into dir as %f, durably: to a temporary name,
// synced, renamed, and the directory synced, so a crash never leaves a
// torn segment under the real name. A segment already in dir (PostgreSQL
// archives a segment again after a crash between the copy and its own
// bookkeeping) is accepted when it is byte for byte the same, and refused
// otherwise: an archive is never overwritten.
//
// It is a shell command of cp, cmp, sync and mv only (coreutils and
// diffutils), so the server needs nothing of Meridian's to archive: not
// the binary, which may not be readable by the server's user, nor a
// running serve.
func ArchiveCommand(dir string) string {
	d := shellQuote(escapePercent(dir))
	return `f=` + d + `/%f; if [ -f "$f" ]; then cmp -s %p "$f"; else cp %p "$f.tmp" && sync "$f.tmp" && mv "$f.tmp" "$f" && sync ` + d + `; fi`
}

// RestoreCommand is the restore_command that reads a segment or history
// file back from an archive made by ArchiveCommand. A file that is not
// there makes it fail, which is how PostgreSQL learns the archive ends.
func RestoreCommand(dir string) string {
	return `cp ` + shellQuote(escapePercent(dir)) + `/%f %p`
}

// archiveSettings are the server settings that archive into dir.
func archiveSettings(dir string, timeout time.Duration) []string {
	s := []string{"archive_mode=on", "archive_command=" + ArchiveCommand(dir)}
	if timeout > 0 {
		s = append(s, fmt.Sprintf("archive_timeout=%ds", max(1, int(timeout.Round(time.Second).Seconds()))))
	}
	return s
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// escapePercent doubles %, which archive_command and restore_command
// would otherwise read as a placeholder.
func escapePercent(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// prepareArchiveDir creates the archive dir (0700) and, when the server runs
// as another user, gives it to that user and lets that user reach it.
func (c *Cluster) prepareArchiveDir(owner *runUser) error {
	if c.archiveDir == "" {
		return nil
	}
	parent := filepath.Dir(c.archiveDir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return fmt.Errorf("pgembed: cannot create %s: %w", parent, err)
	}
	if err := os.MkdirAll(c.archiveDir, 0o700); err != nil {
		return fmt.Errorf("pgembed: cannot create the WAL archive %s: %w", c.archiveDir, err)
	}
	if owner == nil {
		return nil
	}
	if err := allowTraverse(parent, owner, c.logger); err != nil {
		return err
	}
	if err := checkParentsTraversable(c.archiveDir, owner); err != nil {
		return err
	}
	return chownTree(c.archiveDir, owner)
}

// warnIfNotArchiving tells when the server this Cluster attached to was
// started without archiving into ArchiveDir: the setting needs a restart.
func (c *Cluster) warnIfNotArchiving(ctx context.Context) {
	db, err := sql.Open("postgres", c.URLFor(maintenanceDB))
	if err != nil {
		return
	}
	defer db.Close()
	var mode, command string
	if err := db.QueryRowContext(ctx, `SELECT current_setting('archive_mode'), current_setting('archive_command')`).Scan(&mode, &command); err != nil {
		return
	}
	if mode != "on" || command != ArchiveCommand(c.archiveDir) {
		c.logger.Warn("the running PostgreSQL does not archive its WAL into backup_dir; it will once every Meridian command using it has stopped and it starts again",
			slog.String("archive_mode", mode), slog.String("backup_dir", filepath.Dir(c.archiveDir)))
	}
}

// finishSegment switches to a new WAL segment when the server archives, so
// the segment in progress is archived during the shutdown that follows
// (the archiver's last pass) and the archive holds every commit made
// before it. Errors are ignored: the server may be gone already.
func (c *Cluster) finishSegment() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	db, err := sql.Open("postgres", c.URLFor(maintenanceDB))
	if err != nil {
		return
	}
	defer db.Close()
	_, _ = db.ExecContext(ctx, `SELECT pg_switch_wal() WHERE current_setting('archive_mode') <> 'off' AND NOT pg_is_in_recovery()`)
}
