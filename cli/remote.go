package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/fasthttp/websocket"

	"meridian/pkg/bank"
	"meridian/pkg/errs"
)

// remote is a Meridian server the CLI talks to through its API, as a
// signed-in user with an access token.
type remote struct {
	base  string // scheme://host[:port], no trailing slash
	token string
	hc    *http.Client
}

func newRemote(server, token string) (*remote, error) {
	return &remote{base: server, token: token, hc: &http.Client{Timeout: 60 * time.Second}}, nil
}

// normalizeServer reads a server's address: https://bank.example (http://
// only for a loopback address; no scheme means https).
func normalizeServer(s string) (string, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "/")
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", usageError{fmt.Errorf("--server must be a server's address, like https://bank.example, not %q", s)}
	}
	switch u.Scheme {
	case "https":
	case "http":
		if h := u.Hostname(); h != "localhost" && !strings.HasPrefix(h, "127.") && h != "::1" {
			return "", usageError{fmt.Errorf("--server %s: use https (http only for localhost)", s)}
		}
	default:
		return "", usageError{fmt.Errorf("--server must start with https://, not %q", s)}
	}
	return u.Scheme + "://" + u.Host, nil
}

// do sends one API call and returns the body of a 2xx answer, or the
// server's error as the *errs.Error it describes (so the command prints its
// sentence and exits as it would against the database).
func (r *remote) do(ctx context.Context, method, path string, body any, key string) ([]byte, http.Header, error) {
	return r.send(ctx, r.token, method, path, body, key)
}

func (r *remote) send(ctx context.Context, token, method, path string, body any, key string) ([]byte, http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, rd)
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	req.Header.Set("User-Agent", "meridian-cli/"+Version)
	res, err := r.hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot reach %s: %w", r.base, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s's answer: %w", r.base, err)
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return b, res.Header, nil
	}
	return nil, res.Header, apiError(res.StatusCode, b)
}

// apiError turns an API error answer back into the domain error it came from.
func apiError(status int, body []byte) error {
	var e struct {
		Error  string            `json:"error"`
		Code   string            `json:"code"`
		Fields map[string]string `json:"fields"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		e.Error, e.Code = fmt.Sprintf("The server answered %d %s", status, http.StatusText(status)), "http_"+fmt.Sprint(status)
	}
	kind := map[int]errs.Kind{400: errs.Invalid, 401: errs.Unauthorized, 403: errs.Forbidden, 404: errs.NotFound, 409: errs.Conflict,
		413: errs.TooLarge, 422: errs.Unprocessable, 429: errs.RateLimited, 503: errs.Unavailable}[status]
	return &errs.Error{Kind: kind, Code: e.Code, Message: e.Error, Fields: e.Fields}
}

// follow opens the API's WebSocket at path and hands fn the rows of each
// message ({"rows": [...]}) until ctx ends, the server closes it, or fn fails.
func (r *remote) follow(ctx context.Context, path string, fn func([]bank.AuditRow) error) error {
	u := "ws" + strings.TrimPrefix(r.base, "http") + path
	h := http.Header{}
	h.Set("Authorization", "Bearer "+r.token)
	h.Set("User-Agent", "meridian-cli/"+Version)
	conn, res, err := websocket.DefaultDialer.DialContext(ctx, u, h)
	if err != nil {
		if res != nil {
			b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
			res.Body.Close()
			return apiError(res.StatusCode, b)
		}
		return fmt.Errorf("cannot reach %s: %w", r.base, err)
	}
	defer conn.Close()
	go func() {
		<-ctx.Done()
		conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		conn.Close()
	}()
	for {
		var msg struct {
			Rows []bank.AuditRow `json:"rows"`
		}
		if err := conn.ReadJSON(&msg); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				switch ce.Code {
				case websocket.CloseNormalClosure:
					return nil
				case 4401:
					return errs.E(errs.Unauthorized, "session_ended", "The server ended this access token's session")
				}
				return fmt.Errorf("%s closed the follow: %d %s", r.base, ce.Code, ce.Text)
			}
			return fmt.Errorf("following %s: %w", r.base, err)
		}
		if err := fn(msg.Rows); err != nil {
			return err
		}
	}
}
