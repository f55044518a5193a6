package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"meridian/pkg/backup"
)

// backupCheckOptions are the options of `meridian backup check`.
type backupCheckOptions struct {
	All bool // every base backup, not only the newest
}

func (a *app) backupCheckCmd(run runner[backupCheckOptions]) *cobra.Command {
	run = run.or(a.runBackupCheck)
	var o backupCheckOptions
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Verify backup_dir: every file against its backup's manifest, the WAL archive without gaps, the newest backup's age",
		Long: "Verify backup_dir from its files alone (no database is started, so it runs on a copy elsewhere too):\n" +
			"the newest base backup (--all: every one) read whole and compared with its manifest (sizes, checksums),\n" +
			"the WAL archive without a missing segment from the oldest backup on, and the newest backup no older\n" +
			"than backup_interval and a quarter. Exit 0 when all holds, 1 naming what does not.",
		Example: "  meridian backup check\n  meridian backup check --all --backup-dir /mnt/backups/meridian -o json",
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &o)
		},
	}
	cmd.Flags().BoolVar(&o.All, "all", false, "verify every base backup, not only the newest")
	return cmd
}

func (a *app) runBackupCheck(_ context.Context, o *backupCheckOptions) error {
	cfg, err := a.config()
	if err != nil {
		return err
	}
	var maxAge time.Duration
	if cfg.BackupInterval > 0 {
		maxAge = cfg.BackupInterval + cfg.BackupInterval/4
	}
	r, err := backup.Check(cfg.BackupDir, backup.CheckOptions{All: o.All, MaxAge: maxAge})
	if err != nil {
		return err
	}
	if a.output == "json" {
		if err := a.print(r, nil, nil); err != nil {
			return err
		}
	} else {
		for _, c := range r.Checked {
			fmt.Fprintf(a.stdout, "%s: %d files %s\n", c.Name, c.Files, yesNo(len(c.Problems) == 0, "match the manifest", "checked"))
		}
		if r.OK {
			fmt.Fprintf(a.stdout, "backup_dir %s is whole: a restore can reach any time from %s to %s\n", cfg.BackupDir, ts(r.RestorableFrom), ts(r.RestorableTo))
		}
	}
	if !r.OK {
		for _, p := range r.Problems {
			a.say("problem: %s", p)
		}
		return fmt.Errorf("backup check: %d problem(s); the first: %s", len(r.Problems), r.Problems[0])
	}
	return nil
}
