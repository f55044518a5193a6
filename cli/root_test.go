package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// execute runs the command line without a database (no --database-url):
// for usage errors and commands that need none.
func execute(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := ExecuteContext(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// parse builds one command with a runner that only keeps its options, runs
// it on args (and stdin) and returns them: what a command line means,
// checked without a database.
func parse[O any](t *testing.T, build func(*app, runner[O]) *cobra.Command, stdin string, args ...string) (*O, error) {
	t.Helper()
	var got *O
	a := &app{v: viper.New(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, output: "table"}
	cmd := build(a, func(_ context.Context, o *O) error { got = o; return nil })
	cmd.SetFlagErrorFunc(flagError)
	cmd.SetArgs(args)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.Execute()
	if err == nil && got == nil {
		t.Fatalf("%v: the runner did not run", args)
	}
	return got, err
}

// wantUsage fails unless err is a usage error (exit 2).
func wantUsage(t *testing.T, err error, what string) {
	t.Helper()
	var ue usageError
	if !errors.As(err, &ue) {
		t.Errorf("%s: %v, want a usage error", what, err)
	}
}

// A command group alone prints its help; with an unknown subcommand it is a
// usage error, as an unknown command is.
func TestGroupsRefuseUnknownSubcommands(t *testing.T) {
	t.Parallel()
	for _, g := range []string{"user", "role", "account", "migrate", "audit-log"} {
		if code, out, stderr := execute(t, "", g, "bogus"); code != 2 || !strings.Contains(stderr, "unknown command") {
			t.Errorf("meridian %s bogus: exit %d, %q %q", g, code, out, stderr)
		}
		if code, out, _ := execute(t, "", g, "--help"); code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("meridian %s --help: exit %d, %q", g, code, out)
		}
	}
}

// Every command's help has an example.
func TestEveryCommandHasAnExample(t *testing.T) {
	t.Parallel()
	a := &app{v: viper.New()}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example == "" && c.Name() != "help" && c.Name() != "completion" {
			t.Errorf("%s has no Example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCmd())
}
