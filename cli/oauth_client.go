package cli

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

func (a *app) oauthClientCmd() *cobra.Command {
	return group("oauth-client", "Register the apps customers may connect (OAuth 2.0)",
		"  meridian oauth-client create --name 'Budget Buddy' --redirect-uri https://budget.example/callback\n  meridian oauth-client list",
		a.oauthClientCreateCmd(nil), a.oauthClientListCmd(nil))
}

// oauthClientCreateOptions are the options of `meridian oauth-client create`.
type oauthClientCreateOptions struct {
	In bank.OAuthClientInput
}

func (a *app) oauthClientCreateCmd(run runner[oauthClientCreateOptions]) *cobra.Command {
	run = run.or(a.runOAuthClientCreate)
	o := &oauthClientCreateOptions{}
	cmd := &cobra.Command{
		Use:   "create --name NAME --redirect-uri URI [--redirect-uri URI…] [--public]",
		Short: "Register an app; its client secret (none with --public) is printed once",
		Example: "  meridian oauth-client create --name 'Budget Buddy' --redirect-uri https://budget.example/callback\n" +
			"  meridian oauth-client create --name 'Budget Buddy for phones' --redirect-uri com.budgetbuddy.app:/oauth --public -o json",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(o.In.Name) == "" || len(o.In.RedirectURIs) == 0 {
				return usageError{errors.New("oauth-client create needs --name and at least one --redirect-uri")}
			}
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.In.Name, "name", "", "the app's name, as customers see it on the consent page")
	cmd.Flags().StringArrayVar(&o.In.RedirectURIs, "redirect-uri", nil, "where the app gets its code (repeat for more)")
	cmd.Flags().BoolVar(&o.In.Public, "public", false, "a phone or browser app: no secret, PKCE alone")
	return cmd
}

func (a *app) runOAuthClientCreate(ctx context.Context, o *oauthClientCreateOptions) error {
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	c, err := run(ctx, t, call[bank.OAuthClient]{
		Local: func(ctx context.Context, svc *bank.Service) (bank.OAuthClient, error) {
			return svc.CreateOAuthClient(ctx, bank.CLIActor, o.In)
		},
		Method: http.MethodPost, Path: "/api/admin/oauth-clients", Body: o.In,
	})
	if err != nil {
		return err
	}
	if c.ClientSecret != "" {
		a.say("registered %q: keep the client secret now, it is not shown again", c.Name)
	} else {
		a.say("registered %q (public: no secret, PKCE alone)", c.Name)
	}
	return a.printOAuthClients([]bank.OAuthClient{c}, c.ClientSecret != "")
}

// oauthClientListOptions are the options of `meridian oauth-client list` (none).
type oauthClientListOptions struct{}

func (a *app) oauthClientListCmd(run runner[oauthClientListOptions]) *cobra.Command {
	run = run.or(a.runOAuthClientList)
	return &cobra.Command{
		Use:     "list",
		Short:   "List the registered apps",
		Example: "  meridian oauth-client list -o json",
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return run(cmd.Context(), &oauthClientListOptions{}) },
	}
}

func (a *app) runOAuthClientList(ctx context.Context, _ *oauthClientListOptions) error {
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	cs, err := run(ctx, t, call[[]bank.OAuthClient]{
		Local: func(ctx context.Context, svc *bank.Service) ([]bank.OAuthClient, error) {
			return svc.ListOAuthClients(ctx, bank.CLIActor)
		},
		Method: http.MethodGet, Path: "/api/admin/oauth-clients",
	})
	if err != nil {
		return err
	}
	return a.printOAuthClients(cs, false)
}

// printOAuthClients prints apps: a table (with the secret when just made),
// or the rows as JSON.
func (a *app) printOAuthClients(cs []bank.OAuthClient, secret bool) error {
	headers := []string{"CLIENT ID", "NAME", "PUBLIC", "REDIRECT URIS", "CREATED"}
	if secret {
		headers = append(headers, "CLIENT SECRET")
	}
	rows := [][]string{}
	for _, c := range cs {
		r := []string{c.ClientID, c.Name, yesNo(c.Public, "yes", "no"), strings.Join(c.RedirectURIs, " "), ts(c.CreatedAt)}
		if secret {
			r = append(r, c.ClientSecret)
		}
		rows = append(rows, r)
	}
	return a.print(cs, headers, rows)
}
