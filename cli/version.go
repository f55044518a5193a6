package cli

import (
	"runtime"

	"github.com/spf13/cobra"
)

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "version",
		Short:             "Print the version",
		Args:              args(cobra.NoArgs),
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(*cobra.Command, []string) error {
			v := map[string]string{"version": Version, "go": runtime.Version()}
			return a.print(v, []string{"VERSION", "GO"}, [][]string{{Version, runtime.Version()}})
		},
	}
}
