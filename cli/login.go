package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"meridian/pkg/bank"
	"meridian/pkg/errs"
)

// savedLogin is what `meridian login` keeps in the user's config directory
// (mode 0600): the server and the personal access token made for this CLI.
type savedLogin struct {
	Server    string    `json:"server"`
	Email     string    `json:"email"`
	TokenID   int64     `json:"token_id"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// loginPath is <user config dir>/meridian/login.json.
func loginPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory to keep the login in: %w", err)
	}
	return filepath.Join(dir, "meridian", "login.json"), nil
}

func loadLogin() (savedLogin, bool, error) {
	var l savedLogin
	p, err := loginPath()
	if err != nil {
		return l, false, nil // no home: nothing saved
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return l, false, nil
	}
	if err != nil {
		return l, false, fmt.Errorf("reading %s: %w", p, err)
	}
	if err := json.Unmarshal(b, &l); err != nil || l.Server == "" || l.Token == "" {
		return l, false, fmt.Errorf("%s is not a login meridian wrote; delete it and run meridian login again", p)
	}
	return l, true, nil
}

func saveLogin(l savedLogin) (string, error) {
	p, err := loginPath()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	b, _ := json.MarshalIndent(l, "", "  ")
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return "", err
	}
	return p, os.Rename(tmp, p)
}

// loginOptions are the options of `meridian login`.
type loginOptions struct {
	Server string
	Days   int
	In     io.Reader // email, password and code, one a line, when not a terminal
}

func (a *app) loginCmd(run runner[loginOptions]) *cobra.Command {
	run = run.or(a.runLogin)
	o := &loginOptions{}
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Sign in to a Meridian server; the administrative commands then run through its API",
		Long: "Asks for your email, password and (with two-factor sign-in) a code, makes a personal access token for this CLI " +
			"and keeps it in your config directory (mode 0600). When stdin is not a terminal, reads them from it, one a line.",
		Example: "  meridian login --server https://bank.example\n  printf '%s\\n' ann@example.test \"$PASSWORD\" | meridian login --server https://bank.example",
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Server = a.server
			if o.Server == "" {
				o.Server = os.Getenv("MERIDIAN_SERVER")
			}
			if o.Server == "" {
				return usageError{errors.New("login needs --server https://your.bank (or MERIDIAN_SERVER)")}
			}
			s, err := normalizeServer(o.Server)
			if err != nil {
				return err
			}
			if o.Days < bank.MinTokenDays || o.Days > bank.MaxTokenDays {
				return usageError{fmt.Errorf("--days must be between %d and %d", bank.MinTokenDays, bank.MaxTokenDays)}
			}
			o.Server, o.In = s, cmd.InOrStdin()
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().IntVar(&o.Days, "days", 90, "how long the CLI's access token lasts")
	return cmd
}

// prompter asks for the sign-in's answers: on a terminal with prompts (the
// password and code unseen), else one a line from the input.
type prompter struct {
	a    *app
	in   io.Reader
	tty  *os.File
	rd   *bufio.Reader
	line int
}

func (a *app) newPrompter(in io.Reader) *prompter {
	p := &prompter{a: a, in: in, rd: bufio.NewReader(in)}
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = f
	}
	return p
}

func (p *prompter) ask(label string, secret bool) (string, error) {
	p.line++
	if p.tty != nil {
		fmt.Fprint(p.a.stderr, label+": ")
		if secret {
			b, err := term.ReadPassword(int(p.tty.Fd()))
			fmt.Fprintln(p.a.stderr)
			return string(b), err
		}
	}
	s, err := p.rd.ReadString('\n')
	if err != nil && (err != io.EOF || s == "") {
		return "", usageError{fmt.Errorf("login reads the %s from line %d of stdin, and it ended", strings.ToLower(label), p.line)}
	}
	return strings.TrimRight(s, "\r\n"), nil
}

// runLogin signs in (email, password, code), makes a personal access token
// with the scopes of the user's role, signs the session out again and keeps
// the token.
func (a *app) runLogin(ctx context.Context, o *loginOptions) error {
	p := a.newPrompter(o.In)
	email, err := p.ask("Email", false)
	if err != nil {
		return err
	}
	password, err := p.ask("Password", true)
	if err != nil {
		return err
	}
	r, _ := newRemote(o.Server, "")
	body, _, err := r.do(ctx, http.MethodPost, "/api/auth/login", map[string]string{"email": email, "password": password}, "")
	if err != nil {
		return err
	}
	var signIn struct {
		Token     string `json:"token"`
		User      bank.User
		TwoFactor bool   `json:"two_factor_required"`
		Challenge string `json:"challenge"`
	}
	if err := json.Unmarshal(body, &signIn); err != nil {
		return errBadAnswer(err)
	}
	if signIn.TwoFactor {
		code, err := p.ask("Two-factor code", true)
		if err != nil {
			return err
		}
		if body, _, err = r.do(ctx, http.MethodPost, "/api/auth/2fa/verify", map[string]string{"challenge": signIn.Challenge, "code": code}, ""); err != nil {
			return err
		}
		if err := json.Unmarshal(body, &signIn); err != nil {
			return errBadAnswer(err)
		}
	}
	session := signIn.Token
	// The session only makes the token, then ends.
	defer r.send(context.WithoutCancel(ctx), session, http.MethodPost, "/api/auth/logout", nil, "")
	scopes := []string{bank.ScopeAccountsRead, bank.ScopeTransactionsRead, bank.ScopeTransfersWrite}
	if signIn.User.Role == bank.RoleAdmin {
		scopes = []string{bank.ScopeAdminRead, bank.ScopeAdminWrite}
	}
	host, _ := os.Hostname()
	name := "meridian CLI"
	if host != "" {
		name += " on " + host
	}
	if len([]rune(name)) > bank.MaxNameLen {
		name = string([]rune(name)[:bank.MaxNameLen])
	}
	body, _, err = r.send(ctx, session, http.MethodPost, "/api/auth/tokens",
		map[string]any{"name": name, "scopes": scopes, "expires_in_days": o.Days, "password": password}, "")
	if err != nil {
		return err
	}
	var tok bank.NewAccessToken
	if err := json.Unmarshal(body, &tok); err != nil {
		return errBadAnswer(err)
	}
	path, err := saveLogin(savedLogin{Server: o.Server, Email: signIn.User.Email, TokenID: tok.ID, Token: tok.Token, ExpiresAt: tok.ExpiresAt})
	if err != nil {
		return fmt.Errorf("keeping the login: %w", err)
	}
	a.say("signed in to %s as %s (%s); access token %d (%s) kept in %s until %s",
		o.Server, signIn.User.Email, signIn.User.Role, tok.ID, strings.Join(tok.Scopes, " "), path, ts(tok.ExpiresAt))
	return nil
}

// logoutOptions are the options of `meridian logout` (none of its own).
type logoutOptions struct{}

func (a *app) logoutCmd(run runner[logoutOptions]) *cobra.Command {
	run = run.or(a.runLogout)
	return &cobra.Command{
		Use:     "logout",
		Short:   "Revoke the access token meridian login made, and forget it",
		Example: "  meridian logout",
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &logoutOptions{})
		},
	}
}

// runLogout revokes the saved token on its server (a token already revoked
// or expired is fine) and deletes the saved login.
func (a *app) runLogout(ctx context.Context, _ *logoutOptions) error {
	l, ok, err := loadLogin()
	if err != nil {
		return err
	}
	if !ok {
		a.say("not signed in")
		return nil
	}
	r, _ := newRemote(l.Server, l.Token)
	if _, _, err := r.do(ctx, http.MethodPost, "/api/auth/logout", nil, ""); err != nil && errs.KindOf(err) != errs.Unauthorized {
		return err
	}
	p, _ := loginPath()
	if err := os.Remove(p); err != nil {
		return err
	}
	a.say("signed out of %s: access token %d revoked", l.Server, l.TokenID)
	return nil
}
