package cli

import (
	"context"
	"strconv"

	"github.com/spf13/cobra"
)

// auditAnchorOptions are the options of `meridian audit-log anchor`.
type auditAnchorOptions struct {
	// Dir is --dir: where to write the checkpoint (empty: anchor_dir).
	Dir string
}

func (a *app) auditAnchorCmd(run runner[auditAnchorOptions]) *cobra.Command {
	run = run.or(a.runAuditAnchor)
	var o auditAnchorOptions
	cmd := &cobra.Command{
		Use:   "anchor",
		Short: "Write a signed checkpoint of the audit chain's head now (serve writes one every anchor_interval)",
		Example: "  meridian audit-log anchor                       # into anchor_dir\n" +
			"  meridian audit-log anchor --dir /mnt/other-disk/meridian-anchors",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &o)
		},
	}
	cmd.Flags().StringVar(&o.Dir, "dir", "", "where to write it (default: anchor_dir)")
	return cmd
}

// runAuditAnchor writes a checkpoint (none when the newest one there
// already holds the head) and prints where.
func (a *app) runAuditAnchor(ctx context.Context, o *auditAnchorOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	dir := o.Dir
	if dir == "" {
		dir = e.cfg.AnchorDir
	}
	an, wrote, err := e.svc.WriteAnchor(ctx, dir)
	if err != nil {
		return err
	}
	if !wrote {
		a.say("the newest checkpoint in %s already holds the chain's head (or the chain is empty): nothing written", dir)
		return nil
	}
	a.say("checkpoint of link %d (audit row %d) written", an.Seq, an.AuditID)
	return a.print(an, []string{"SEQ", "HASH", "AUDIT ROW", "FILE"},
		[][]string{{strconv.FormatInt(an.Seq, 10), an.Hash, strconv.FormatInt(an.AuditID, 10), an.File}})
}
