package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"meridian/pkg/backup"
)

// restoreOptions are the options of `meridian restore`.
type restoreOptions struct {
	To     string    // RFC 3339 or "latest", as given
	Target time.Time // zero: latest
}

func (a *app) restoreCmd(run runner[restoreOptions]) *cobra.Command {
	run = run.or(a.runRestore)
	var o restoreOptions
	cmd := &cobra.Command{
		Use:   "restore --backup-dir DIR --to <RFC 3339 time|latest> --data-dir NEW",
		Short: "Rebuild the embedded database as it was at a point in time, into a new data dir",
		Long: "Rebuild the embedded database from backup_dir into a new data dir, as it was at --to: the newest base\n" +
			"backup that finished before that time, then the archived WAL replayed up to it (every transaction\n" +
			"committed by then, none after; \"latest\": as far as the archive goes). Each file is checked against\n" +
			"the backup's manifest as it is unpacked. Then run `meridian serve --data-dir NEW`.",
		Example: "  meridian restore --backup-dir /mnt/backups/meridian --to 2026-11-24T09:30:00Z --data-dir /srv/meridian-restored\n" +
			"  meridian restore --backup-dir /mnt/backups/meridian --to latest --data-dir /srv/meridian-restored -o json",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := parseRestoreTarget(&o); err != nil {
				return usageError{err}
			}
			if !flagChanged(cmd.Flags(), "data-dir") {
				return usageError{fmt.Errorf("give the new data dir with --data-dir")}
			}
			return run(cmd.Context(), &o)
		},
	}
	cmd.Flags().StringVar(&o.To, "to", "", `the time to restore to, RFC 3339 ("2026-11-24T09:30:00Z"), or "latest"`)
	return cmd
}

// parseRestoreTarget reads --to.
func parseRestoreTarget(o *restoreOptions) error {
	switch v := strings.TrimSpace(o.To); {
	case v == "":
		return fmt.Errorf(`give the time to restore to with --to (RFC 3339, or "latest")`)
	case strings.EqualFold(v, "latest"):
		o.Target = time.Time{}
	default:
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return fmt.Errorf(`--to must be an RFC 3339 time like 2026-11-24T09:30:00Z, or "latest", not %q`, v)
		}
		o.Target = t
	}
	return nil
}

func (a *app) runRestore(ctx context.Context, o *restoreOptions) error {
	cfg, err := a.embeddedOnly()
	if err != nil {
		return err
	}
	res, err := backup.Restore(ctx, backup.RestoreOptions{BackupDir: cfg.BackupDir, DataDir: cfg.DataDir, Target: o.Target, Logger: a.logger(cfg)})
	if err != nil {
		return err
	}
	if a.output == "json" {
		return a.print(res, nil, nil)
	}
	last := "no transaction after the base backup"
	if !res.LastCommit.IsZero() {
		last = "the last transaction replayed committed at " + res.LastCommit.Format(time.RFC3339Nano)
	}
	fmt.Fprintf(a.stdout, "Restored into %s from base backup %s and the archived WAL (%s); timeline %d.\n"+
		"Took %s (unpacking %s, replaying %s). Start it with: meridian serve --data-dir %s\n",
		res.DataDir, res.Backup.Name, last, res.Timeline, res.Took.Round(time.Millisecond), res.Unpack.Round(time.Millisecond),
		res.Replay.Round(time.Millisecond), res.DataDir)
	return nil
}
