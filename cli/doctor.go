package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"meridian/pkg/doctor"
)

// doctorOptions are the options of `meridian doctor`.
type doctorOptions struct {
	MaxClockSkew  time.Duration
	MaxReplicaLag time.Duration
}

func (a *app) doctorCmd(run runner[doctorOptions]) *cobra.Command {
	run = run.or(a.runDoctor)
	var o doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the deployment as serve sees it; exit 1 naming what is wrong",
		Long: "Check the deployment with serve's configuration and connections: the runtime role's privileges\n" +
			"(it may only insert into the ledger and the audit log, and owns nothing), the timeouts its\n" +
			"connections carry, the schema, the read replicas and synchronous replication, WAL archiving, the\n" +
			"embedded database's base backups, and the clocks. Each check is ok, warn, fail or skip; exit 1\n" +
			"when one fails, naming it. Nothing is changed.",
		Example: "  meridian doctor\n" +
			"  MERIDIAN_DATABASE_URL=postgres://meridian_app@db/meridian meridian doctor -o json",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.MaxClockSkew <= 0 || o.MaxReplicaLag <= 0 {
				return usageError{fmt.Errorf("--max-clock-skew and --max-replica-lag must be positive")}
			}
			return run(cmd.Context(), &o)
		},
	}
	cmd.Flags().DurationVar(&o.MaxClockSkew, "max-clock-skew", time.Second, "the largest difference allowed between this machine's clock and a database's")
	cmd.Flags().DurationVar(&o.MaxReplicaLag, "max-replica-lag", 30*time.Second, "how far behind a read replica may be")
	return cmd
}

func (a *app) runDoctor(ctx context.Context, o *doctorOptions) error {
	// As serve connects (its timeouts, its replicas), migrating nothing.
	e, err := a.openEnv(ctx, false, true)
	if err != nil {
		return err
	}
	defer e.close()
	var replicas []doctor.Replica
	for _, r := range e.reads.Replicas() {
		replicas = append(replicas, doctor.Replica{Name: r.Name, DB: r.DB})
	}
	rep := doctor.Run(ctx, doctor.Target{DB: e.db, AppRole: e.cfg.DatabaseAppRole, RequestTimeout: e.cfg.RequestTimeout,
		Replicas: replicas, Embedded: e.cluster != nil, BackupDir: e.cfg.BackupDir, BackupInterval: e.cfg.BackupInterval,
		MaxClockSkew: o.MaxClockSkew, MaxReplicaLag: o.MaxReplicaLag})
	rows := make([][]string, 0, len(rep.Findings))
	for _, f := range rep.Findings {
		rows = append(rows, []string{f.Check, string(f.Status), f.Detail})
	}
	if err := a.print(rep, []string{"CHECK", "STATUS", "DETAIL"}, rows); err != nil {
		return err
	}
	if failed := rep.Failed(); len(failed) > 0 {
		var parts []string
		for _, f := range failed {
			parts = append(parts, f.Check+": "+f.Detail)
		}
		return fmt.Errorf("doctor: %d check(s) failed: %s", len(failed), strings.Join(parts, "; "))
	}
	return nil
}
