package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"

	"meridian/pkg/bank"
	"meridian/pkg/errs"
)

// Two transports, one command definition (contract §9). An administrative
// command says once what each of its calls is, both ways:
//
//	call[T]{
//		Local:  func(ctx, svc) (T, error) { return svc.X(ctx, bank.CLIActor, …) }, // against the database
//		Method: "PUT", Path: "/api/admin/…", Body: …,                               // the same call through the API
//	}
//
// and runs it with run(ctx, t, c). Its flags, arguments, checks, output
// (table or --json) and exit codes are written once, in the command; only
// the call differs. Which transport a run takes is decided once, by
// connect: --server, MERIDIAN_SERVER or a saved `meridian login` (where no
// database_url is configured) send every
// call through the API with an access token, as the signed-in user (checked
// and audit-logged as that user); otherwise the command opens the database
// and acts as the operator. A new command plugs in by writing its calls as
// call values and getting its transport from connect (see user_status.go).

// call is one call of a command, with both of its transports.
type call[T any] struct {
	// Local makes the call against the database, through the bank service.
	Local func(ctx context.Context, svc *bank.Service) (T, error)
	// Method, Path (with its query) and Body are the same call through the
	// API; Key goes as its Idempotency-Key.
	Method, Path string
	Body         any
	Key          string
	// Field is the member of the answer's JSON object that holds T
	// ("": the whole answer).
	Field string
	// Decode reads an answer that Field cannot (nil: JSON into T).
	Decode func(body []byte, h http.Header) (T, error)
}

// transport is where a command's calls go: an open database (env) or a
// Meridian server (remote). Exactly one is set.
type transport struct {
	env    *env
	remote *remote
}

// close releases the database (sealing what the command wrote).
func (t *transport) close() {
	if t.env != nil {
		t.env.close()
	}
}

// Remote reports whether calls go through the API.
func (t *transport) Remote() bool { return t.remote != nil }

// connect opens the transport this run's commands use: the server named by
// --server or MERIDIAN_SERVER, or saved by `meridian login`, with the token
// of MERIDIAN_TOKEN or of the login; else the database.
func (a *app) connect(ctx context.Context) (*transport, error) {
	server, token, err := a.remoteTarget()
	if err != nil {
		return nil, err
	}
	if server != "" {
		r, err := newRemote(server, token)
		if err != nil {
			return nil, err
		}
		return &transport{remote: r}, nil
	}
	e, err := a.open(ctx, true)
	if err != nil {
		return nil, err
	}
	return &transport{env: e}, nil
}

// remoteTarget returns the server and token remote commands use ("" when
// commands go to the database). First --server or MERIDIAN_SERVER; else,
// when no database_url is configured (flag, environment or file), the
// server of a saved `meridian login`.
func (a *app) remoteTarget() (server, token string, err error) {
	server = a.server
	if server == "" {
		server = os.Getenv("MERIDIAN_SERVER")
	}
	token = os.Getenv("MERIDIAN_TOKEN")
	saved, ok, err := loadLogin()
	if err != nil {
		return "", "", err
	}
	if server == "" && ok && a.v.GetString("database_url") == "" {
		server = saved.Server
	}
	if server == "" {
		return "", "", nil
	}
	if server, err = normalizeServer(server); err != nil {
		return "", "", err
	}
	if token == "" && ok && saved.Server == server {
		token = saved.Token
	}
	if token == "" {
		return "", "", errs.E(errs.Unauthorized, "not_signed_in", "Not signed in to "+server+": run meridian login --server "+server+" (or set MERIDIAN_TOKEN)")
	}
	return server, token, nil
}

// run makes one call through t.
func run[T any](ctx context.Context, t *transport, c call[T]) (T, error) {
	if t.env != nil {
		return c.Local(ctx, t.env.svc)
	}
	var out T
	body, h, err := t.remote.do(ctx, c.Method, c.Path, c.Body, c.Key)
	if err != nil {
		return out, err
	}
	if c.Decode != nil {
		return c.Decode(body, h)
	}
	if c.Field != "" {
		var wrapped map[string]json.RawMessage
		if err := json.Unmarshal(body, &wrapped); err != nil {
			return out, errBadAnswer(err)
		}
		body = wrapped[c.Field]
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return out, errBadAnswer(err)
	}
	return out, nil
}

func errBadAnswer(err error) error {
	return &errs.Error{Kind: errs.Internal, Code: "bad_answer", Message: "The server's answer could not be read", Cause: err}
}

// findUser resolves <email|id> the way every command on one user does.
func findUser(ctx context.Context, t *transport, ref string) (bank.User, error) {
	return run(ctx, t, call[bank.User]{
		Local:  func(ctx context.Context, svc *bank.Service) (bank.User, error) { return svc.FindUser(ctx, ref) },
		Method: http.MethodGet, Path: "/api/admin/users/find?user=" + url.QueryEscape(ref),
	})
}
