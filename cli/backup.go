package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"meridian/pkg/backup"
	"meridian/pkg/config"
)

func (a *app) backupCmd() *cobra.Command {
	return group("backup", "Take, list and check backups of the embedded database",
		"  meridian backup now\n  meridian backup list -o json\n  meridian backup check --all",
		a.backupNowCmd(nil), a.backupListCmd(nil), a.backupCheckCmd(nil))
}

// errExternalBackups refuses the commands that need the embedded cluster
// when database_url names another PostgreSQL.
var errExternalBackups = errors.New("meridian backs up and restores its embedded database only; an external PostgreSQL is backed up with pgBackRest (README: Backups and point-in-time recovery)")

// embeddedOnly returns the configuration, refusing database_url.
func (a *app) embeddedOnly() (config.Config, error) {
	cfg, err := a.config()
	if err != nil {
		return cfg, err
	}
	if cfg.DatabaseURL != "" {
		return cfg, errExternalBackups
	}
	return cfg, nil
}

// checkpoint writes a signed checkpoint of the audit chain's head into
// anchor_dir (nothing when the newest one there holds it already): every
// base backup starts with one.
func (e *env) checkpoint(ctx context.Context) error {
	_, _, err := e.svc.WriteAnchor(ctx, e.cfg.AnchorDir)
	return err
}

// backupSource is the running embedded cluster, for pg_basebackup.
func (e *env) backupSource() (backup.Source, error) {
	dataDir, err := filepath.Abs(e.cfg.DataDir)
	if err != nil {
		return backup.Source{}, err
	}
	c := e.cluster
	return backup.Source{URL: c.URLFor("postgres"), Host: c.SocketDir(), Port: c.Port(), User: c.Superuser(),
		BinDir: c.BinDir(), DataDir: dataDir, AnchorDir: e.cfg.AnchorDir}, nil
}

// backupListOptions are the options of `meridian backup list` (none of its own).
type backupListOptions struct{}

func (a *app) backupListCmd(run runner[backupListOptions]) *cobra.Command {
	run = run.or(a.runBackupList)
	return &cobra.Command{
		Use:   "list",
		Short: "List the base backups in backup_dir and the WAL archive beside them",
		Long: "List the base backups in backup_dir, oldest first, and the WAL archive beside them.\n" +
			"It reads the files only: no database is started.",
		Example: "  meridian backup list\n  meridian backup list --backup-dir /mnt/backups/meridian -o json",
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &backupListOptions{})
		},
	}
}

func (a *app) runBackupList(_ context.Context, _ *backupListOptions) error {
	cfg, err := a.config()
	if err != nil {
		return err
	}
	inv, err := backup.List(cfg.BackupDir)
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(inv.Backups))
	for _, b := range inv.Backups {
		rows = append(rows, backupRow(b))
	}
	if err := a.print(inv, backupHeaders, rows); err != nil {
		return err
	}
	if a.output != "json" {
		w := inv.WAL
		if w.Segments == 0 {
			fmt.Fprintf(a.stdout, "\nWAL archive %s: empty\n", backup.WALDir(cfg.BackupDir))
		} else {
			fmt.Fprintf(a.stdout, "\nWAL archive %s: %d segments, %s, %s to %s (the newest archived %s)\n", backup.WALDir(cfg.BackupDir),
				w.Segments, bytesText(w.Bytes), w.Oldest, w.Newest, ts(w.NewestAt))
		}
	}
	return nil
}

var backupHeaders = []string{"NAME", "STARTED", "TOOK", "SIZE", "DATABASE", "TIMELINE", "FIRST WAL"}

func backupRow(b backup.Backup) []string {
	return []string{b.Name, ts(b.Started), b.Finished.Sub(b.Started).Round(100 * time.Millisecond).String(), bytesText(b.Bytes),
		bytesText(b.DatabaseBytes), strconv.Itoa(b.Timeline), b.StartWAL}
}

// bytesText writes a size for a person: 512 B, 3.4 MB, 1.2 GB.
func bytesText(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
