package cli

import (
	"context"

	"github.com/spf13/cobra"

	"meridian/pkg/backup"
)

// backupNowOptions are the options of `meridian backup now` (none of its own).
type backupNowOptions struct{}

func (a *app) backupNowCmd(run runner[backupNowOptions]) *cobra.Command {
	run = run.or(a.runBackupNow)
	return &cobra.Command{
		Use:   "now",
		Short: "Take a base backup of the embedded database into backup_dir now",
		Long: "Take a base backup of the embedded database into backup_dir now (serve takes one every backup_interval),\n" +
			"then keep the newest backup_keep and the archived WAL they need. The data dir's generated jwt_secret\n" +
			"goes into the backup too: keep backup_dir as private as the data dir.",
		Example: "  meridian backup now\n  meridian backup now --backup-dir /mnt/backups/meridian -o json",
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &backupNowOptions{})
		},
	}
}

func (a *app) runBackupNow(ctx context.Context, _ *backupNowOptions) error {
	if _, err := a.embeddedOnly(); err != nil {
		return err
	}
	e, err := a.open(ctx, false)
	if err != nil {
		return err
	}
	defer e.close()
	src, err := e.backupSource()
	if err != nil {
		return err
	}
	b, err := backup.Take(ctx, backup.Options{Dir: e.cfg.BackupDir, Source: src, Keep: e.cfg.BackupKeep, Logger: e.log,
		Checkpoint: e.checkpoint})
	if err != nil {
		return err
	}
	return a.print(b, backupHeaders, [][]string{backupRow(*b)})
}
