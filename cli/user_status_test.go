package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestUserStatusOptions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		active bool
	}{{"activate", true}, {"deactivate", false}} {
		build := func(a *app, run runner[userStatusOptions]) *cobra.Command {
			return a.userStatusCmd(c.name, c.active, run)
		}
		o, err := parse(t, build, "", "cy@example.test")
		if err != nil || o.ref != "cy@example.test" || o.active != c.active {
			t.Fatalf("%s: %+v %v", c.name, o, err)
		}
		_, err = parse(t, build, "")
		wantUsage(t, err, c.name+" without a user")
		_, err = parse(t, build, "", "a", "b")
		wantUsage(t, err, c.name+" with two users")
	}
}
