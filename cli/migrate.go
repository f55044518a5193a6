package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
)

func (a *app) migrateCmd() *cobra.Command {
	return group("migrate", "Apply, roll back or list schema migrations",
		"  meridian migrate status\n  meridian migrate up\n  meridian migrate down 1",
		a.migrateUpCmd(nil), a.migrateDownCmd(nil), a.migrateStatusCmd(nil))
}

// reportMigrated tells a person on stderr which migrations moved (verb:
// applied or rolled back) and, with --output json and no error, prints
// them on stdout as {key: [versions]}. It returns err.
func (a *app) reportMigrated(verb, key string, done []int, err error) error {
	a.say("%s %d migration(s) %v", verb, len(done), done)
	if err != nil || a.output != "json" {
		return err
	}
	if done == nil {
		done = []int{}
	}
	return a.print(map[string][]int{key: done}, nil, nil)
}

// countArg reads an optional positive count argument.
func countArg(as []string, def int) (int, error) {
	if len(as) == 0 {
		return def, nil
	}
	n, err := strconv.Atoi(as[0])
	if err != nil || n < 1 {
		return 0, usageError{fmt.Errorf("N must be a whole number of at least 1, not %q", as[0])}
	}
	return n, nil
}
