package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestAccountFundsOptions(t *testing.T) {
	t.Parallel()
	for _, deposit := range []bool{true, false} {
		build := func(a *app, run runner[fundsOptions]) *cobra.Command { return a.fundsCmd(deposit, run) }
		o, err := parse(t, build, "", "100200300", "250.50", "--description", "Cash")
		if err != nil || o.Deposit != deposit || o.Number != "100200300" || o.Amount != 25050 || o.Description != "Cash" {
			t.Fatalf("deposit %v: %+v %v", deposit, o, err)
		}
		for _, bad := range [][]string{{"100200300", "12.345"}, {"100200300", "ten"}, {"100200300"}, {"1", "2", "3"}} {
			_, err := parse(t, build, "", bad...)
			wantUsage(t, err, "funds "+bad[0])
		}
	}
}
