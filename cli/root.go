// Package cli is Meridian's command line (Cobra). Viper lives here only: it
// resolves flags, MERIDIAN_* environment variables, meridian.yaml and
// defaults into raw values that pkg/config parses and validates. Commands
// are thin and call the same pkg/bank services as the HTTP handlers.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"meridian/pkg/config"
	"meridian/pkg/errs"
)

// Version is set at build time with -ldflags "-X meridian/cli.Version=...".
var Version = "dev"

// usageError marks a mistake in how a command was called: exit code 2.
type usageError struct{ error }

// app is the state shared by one run of the command line.
type app struct {
	v      *viper.Viper
	stdout io.Writer
	stderr io.Writer
	output string // table or json
	json   bool   // --json: the same as --output json
	server string // --server: run the administrative commands through this server's API
}

// Execute runs the command line until it ends or SIGINT/SIGTERM arrives,
// and returns the exit code: 0 ok, 1 failure, 2 usage.
func Execute(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return ExecuteContext(ctx, args, os.Stdin, stdout, stderr)
}

// ExecuteContext runs the command line until ctx ends.
func ExecuteContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{v: viper.New(), stdout: stdout, stderr: stderr}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag") {
		fmt.Fprintf(stderr, "meridian: %s\nRun 'meridian --help' for usage.\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "meridian: %s\n", message(err))
	return 1
}

// message is what a person reads for err: a domain error's sentence, never SQL.
func message(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		if e.Kind == errs.Internal && e.Cause != nil {
			return e.Message + " (" + e.Cause.Error() + ")"
		}
		return e.Message
	}
	return err.Error()
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "meridian",
		Short:         "Meridian: an online bank in one binary",
		Long:          "Meridian serves the bank's JSON API, WebSocket and web app, and administers it from the terminal.\n\nConfiguration, highest first: flags, MERIDIAN_* environment variables, meridian.yaml, defaults.",
		Example:       "  meridian serve\n  meridian user list -o json\n  MERIDIAN_DATABASE_URL=postgres://meridian_app@db/meridian meridian migrate status",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.initConfig(cmd)
		},
	}
	root.SetFlagErrorFunc(flagError)
	pf := root.PersistentFlags()
	pf.String("config", "", "configuration file (default: ./meridian.yaml, .yml or .json if present)")
	pf.StringVarP(&a.output, "output", "o", "table", "output format: table or json")
	pf.BoolVar(&a.json, "json", false, "print JSON (the same as --output json)")
	pf.StringVar(&a.server, "server", "", "run the administrative commands through this Meridian server's API (env MERIDIAN_SERVER; see meridian login)")
	for _, k := range config.Keys {
		pf.String(strings.ReplaceAll(k.Name, "_", "-"), k.Default, k.Usage)
	}
	root.AddCommand(a.serveCmd(nil), a.migrateCmd(), a.userCmd(), a.roleCmd(), a.accountCmd(), a.auditLogCmd(), a.ledgerCmd(),
		a.fxCmd(), a.transactionCmd(), a.approvalsCmd(), a.interestCmd(), a.accountTypeCmd(), a.seedCmd(nil), a.statementCmd(nil),
		a.backupCmd(), a.restoreCmd(nil), a.doctorCmd(nil), a.versionCmd(nil), a.benchCmd(nil),
		a.loginCmd(nil), a.logoutCmd(nil), a.oauthClientCmd())
	return root
}

// checkOutput refuses an --output other than table or json (exit 2).
func (a *app) checkOutput() error {
	if a.json {
		a.output = "json"
	}
	if a.output != "table" && a.output != "json" {
		return usageError{fmt.Errorf("--output must be table or json, not %q", a.output)}
	}
	return nil
}

// initConfig wires Viper: flags over MERIDIAN_* over the file over defaults.
func (a *app) initConfig(cmd *cobra.Command) error {
	if err := a.checkOutput(); err != nil {
		return err
	}
	v := a.v
	v.SetEnvPrefix("MERIDIAN")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	for _, k := range config.Keys {
		v.SetDefault(k.Name, k.Default)
		if f := cmd.Flags().Lookup(strings.ReplaceAll(k.Name, "_", "-")); f != nil {
			if err := v.BindPFlag(k.Name, f); err != nil {
				return err
			}
		}
	}
	file, _ := cmd.Flags().GetString("config")
	if file == "" {
		file = os.Getenv("MERIDIAN_CONFIG")
	}
	if file == "" {
		var err error
		if file, err = findConfigFile(); err != nil {
			return err
		}
		if file == "" {
			return nil // no file: flags, environment and defaults
		}
	}
	v.SetConfigFile(file)
	if err := v.ReadInConfig(); err != nil {
		return fmt.Errorf("cannot read configuration file: %w", err)
	}
	return nil
}

// configNames are the names a configuration file is found by in the
// working directory. Only these: Viper's own search for "meridian" would
// also take a file of that name without an extension, which is the binary
// itself when it runs from its own folder.
var configNames = []string{"meridian.yaml", "meridian.yml", "meridian.json"}

// findConfigFile returns the configuration file in the working directory
// ("" when there is none), and refuses to guess between two.
func findConfigFile() (string, error) {
	var found []string
	for _, name := range configNames {
		fi, err := os.Stat(name)
		switch {
		case err == nil && fi.Mode().IsRegular():
			found = append(found, name)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("cannot read configuration file: %w", err)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	names := strings.Join(found[:len(found)-1], ", ") + " and " + found[len(found)-1]
	return "", fmt.Errorf("cannot tell which configuration file to read: the working directory holds %s; keep one, or name it with --config", names)
}

// config returns the validated configuration.
func (a *app) config() (config.Config, error) {
	return config.Load(func(key string) string {
		// A list in meridian.yaml (database_read_urls, allowed_origins)
		// reads as the comma-separated text a flag or variable gives.
		if l, ok := a.v.Get(key).([]any); ok {
			parts := make([]string, len(l))
			for i, v := range l {
				parts[i] = fmt.Sprint(v)
			}
			return strings.Join(parts, ",")
		}
		return a.v.GetString(key)
	})
}

// flagError makes a flag that cannot be parsed a usage error (exit 2).
func flagError(_ *cobra.Command, err error) error { return usageError{err} }

// args wraps a positional-argument rule so a violation exits with code 2.
func args(rule cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, as []string) error {
		if err := rule(cmd, as); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// runner is what a command does with its options once their flags and
// arguments are read and checked, as cli/cli's runF: each command's
// constructor takes one, nil for the command's own run function, so a test
// can see the options a command line gives without a database.
type runner[O any] func(ctx context.Context, o *O) error

// or returns r, or def when r is nil.
func (r runner[O]) or(def runner[O]) runner[O] {
	if r == nil {
		return def
	}
	return r
}

// group is a command that only holds subcommands: alone it prints its help;
// an unknown subcommand is a usage error (exit 2).
func group(use, short, example string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		Args: args(func(cmd *cobra.Command, as []string) error {
			if len(as) > 0 {
				return fmt.Errorf("unknown command %q for %q", as[0], cmd.CommandPath())
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(subs...)
	return cmd
}

// flagChanged reports whether a flag was set on the command line.
func flagChanged(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}
