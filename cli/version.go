package cli

import (
	"context"
	"runtime"

	"github.com/spf13/cobra"
)

// versionOptions are the options of `meridian version` (none of its own).
type versionOptions struct{}

func (a *app) versionCmd(run runner[versionOptions]) *cobra.Command {
	run = run.or(a.runVersion)
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version",
		Example: "  meridian version\n  meridian version -o json",
		Args:    args(cobra.NoArgs),
		// No configuration needed: only --output is checked.
		PersistentPreRunE: func(*cobra.Command, []string) error { return a.checkOutput() },
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &versionOptions{})
		},
	}
}

// runVersion prints the build's version and Go's.
func (a *app) runVersion(context.Context, *versionOptions) error {
	v := map[string]string{"version": Version, "go": runtime.Version()}
	return a.print(v, []string{"VERSION", "GO"}, [][]string{{Version, runtime.Version()}})
}
