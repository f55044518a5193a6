// Package loadtest drives a running Meridian server over HTTP and checks the
// bank's invariant in its database afterwards.
//
// A Driver signs each seeded customer in once, then makes random transfers
// between their accounts from many goroutines (RunTransfers, or Start to run
// them in the background until Stop), or reads their history and dashboard
// (RunReads). It records the latency of every request
// and keeps the transaction id of every transfer answered 201, so that
// CheckInvariants can prove each of them is in the ledger. Requests whose
// outcome is unknown (a network error or a 5xx: the transfer may or may not
// have committed) are remembered with their Idempotency-Key; Resolve repeats
// them with the same key until the server gives a definite answer, which
// makes the set of committed transfers exact. ProbeNotifications measures
// how long a WebSocket push takes to follow a transfer.
//
// The package speaks plain net/http; it knows nothing of Fiber or Cobra.
package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"meridian/pkg/money"
)

// Customer is a seeded customer: how to sign in, and their account numbers.
type Customer struct {
	UserID   int64    `json:"user_id"`
	Email    string   `json:"email"`
	Password string   `json:"-"`
	Accounts []string `json:"accounts"`
}

// Options configures a Driver.
type Options struct {
	// BaseURL is the server, e.g. http://127.0.0.1:8080.
	BaseURL string
	// Customers are the users to sign in and move money between. Every
	// account of every customer may receive; a customer sends only from
	// their own accounts.
	Customers []Customer
	// Concurrency is how many requests are in flight at once. Default 32.
	Concurrency int
	// Duration bounds a run. Count, when positive, bounds the number of
	// requests instead; with both, whichever comes first ends the run.
	Duration time.Duration
	Count    int
	// Seed makes the choice of pairs and amounts repeatable.
	Seed uint64
	// MaxAmount is the largest ordinary transfer: amounts are drawn from
	// 1.00 to MaxAmount. Default 50.00.
	MaxAmount money.Amount
	// OverdraftPercent of the transfers ask for more than any seeded
	// balance (1,000,000.00 and up) and should answer 422. Default 5;
	// negative means none.
	OverdraftPercent int
	// HotAccount makes every transfer pay one merchant account (the first
	// account of the first customer, who then never sends), to measure
	// contention on a single recipient.
	HotAccount bool
	// ErrorBackoff is how long a worker waits after a network error or a
	// 5xx before its next request, so an outage is not a busy loop.
	// Default 20ms.
	ErrorBackoff time.Duration
	// RequestTimeout bounds one request. Default 30s.
	RequestTimeout time.Duration
	// Client, if set, is used instead of the tuned client New makes.
	Client *http.Client
}

// Driver is a load generator for one server. It is safe to call its Run
// methods one after the other; each returns its own report, and the
// transfers answered 201 accumulate in Committed.
type Driver struct {
	opts     Options
	base     string
	client   *http.Client
	sessions []session
	accounts []string // every account of every customer

	stop     chan struct{}
	stopOnce sync.Once
	ok201    atomic.Int64 // transfers answered 201 so far, all runs

	mu        sync.Mutex
	committed []Committed
	uncertain []pending
}

// session is a signed-in customer.
type session struct {
	Customer
	token string
}

// Committed is a transfer the server answered 201 (or, after Resolve,
// confirmed by replaying its Idempotency-Key): the DEBIT row's id and what
// was asked.
type Committed struct {
	ID     int64        `json:"id"`
	From   string       `json:"from"`
	To     string       `json:"to"`
	Amount money.Amount `json:"amount"`
	Key    string       `json:"key"`
	// Sent and Answered bound its commit: the first request under its key
	// left before the commit, and the 201 (or the replay that proved it)
	// arrived after. A restore to a time T must hold every transfer
	// answered before T and none sent after it (CheckRestored).
	Sent     time.Time `json:"sent"`
	Answered time.Time `json:"answered"`
}

// pending is a transfer whose outcome is unknown.
type pending struct {
	session int
	key     string
	body    transferBody
	sent    time.Time // the first attempt
	// saidUndone: the server's answer said nothing had changed (503
	// timeout or database_unavailable). If the transfer committed all the
	// same, that answer was a lie (contract §5); Resolve counts them.
	saidUndone bool
}

// saysUndone reports whether an error answer's code promises that nothing
// changed: a client that believed it would send the transfer again without
// its key.
func saysUndone(body []byte) bool {
	var e struct {
		Code string `json:"code"`
	}
	return json.Unmarshal(body, &e) == nil && (e.Code == "timeout" || e.Code == "database_unavailable")
}

type transferBody struct {
	AccountID   string       `json:"account_id"`
	ToAccountID string       `json:"to_account_id"`
	Amount      money.Amount `json:"amount"`
	Description string       `json:"description"`
}

// New returns a Driver for opts. It does not contact the server.
func New(opts Options) (*Driver, error) {
	if opts.BaseURL == "" {
		return nil, errors.New("loadtest: no base URL")
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 32
	}
	if opts.MaxAmount <= 0 {
		opts.MaxAmount = 50_00
	}
	if opts.MaxAmount < 1_00 {
		opts.MaxAmount = 1_00
	}
	if opts.OverdraftPercent == 0 {
		opts.OverdraftPercent = 5
	}
	if opts.OverdraftPercent < 0 {
		opts.OverdraftPercent = 0
	}
	if opts.ErrorBackoff <= 0 {
		opts.ErrorBackoff = 20 * time.Millisecond
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 30 * time.Second
	}
	d := &Driver{opts: opts, base: strings.TrimRight(opts.BaseURL, "/"), client: opts.Client, stop: make(chan struct{})}
	if d.client == nil {
		d.client = NewClient(opts.Concurrency, opts.RequestTimeout)
	}
	for _, c := range opts.Customers {
		d.accounts = append(d.accounts, c.Accounts...)
	}
	return d, nil
}

// NewClient returns an http.Client tuned for load: keep-alive with one idle
// connection kept per worker, no compression, bounded dial and request time.
func NewClient(concurrency int, timeout time.Duration) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          2 * concurrency,
		MaxIdleConnsPerHost:   concurrency,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ResponseHeaderTimeout: timeout,
		ForceAttemptHTTP2:     false,
	}
	return &http.Client{Transport: tr, Timeout: timeout}
}

// Stop asks a run in progress to end: no new request is sent, the ones in
// flight finish. Later runs end at once.
func (d *Driver) Stop() { d.stopOnce.Do(func() { close(d.stop) }) }

func (d *Driver) stopped() bool {
	select {
	case <-d.stop:
		return true
	default:
		return false
	}
}

// Succeeded is how many transfers were answered 201 so far (it moves while
// RunTransfers runs, for watching progress).
func (d *Driver) Succeeded() int64 { return d.ok201.Load() }

// Close releases the client's idle connections.
func (d *Driver) Close() { d.client.CloseIdleConnections() }

// Sessions is how many customers are signed in.
func (d *Driver) Sessions() int { return len(d.sessions) }

// Login signs every customer in once (POST /api/auth/login), a few at a time
// (a sign-in costs the server a bcrypt comparison).
func (d *Driver) Login(ctx context.Context) error {
	if len(d.opts.Customers) == 0 {
		return errors.New("loadtest: no customers to sign in")
	}
	sessions := make([]session, len(d.opts.Customers))
	errc := make(chan error, len(sessions))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, c := range d.opts.Customers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			tok, err := SignIn(ctx, d.client, d.base, c.Email, c.Password)
			if err != nil {
				errc <- err
				return
			}
			sessions[i] = session{Customer: c, token: tok}
		}()
	}
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return err
	}
	d.sessions = sessions
	return nil
}

// SignIn returns a token for email and password, retrying briefly while
// the server is not reachable.
func SignIn(ctx context.Context, client *http.Client, base, email, password string) (string, error) {
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	var lastErr error
	for attempt := 0; attempt < 20; attempt++ {
		if attempt > 0 {
			if err := sleepCtx(ctx, 250*time.Millisecond); err != nil {
				return "", err
			}
		}
		status, resp, err := do(ctx, client, http.MethodPost, strings.TrimRight(base, "/")+"/api/auth/login", "", "", body)
		if err != nil {
			lastErr = err
			continue
		}
		if status >= 500 {
			lastErr = fmt.Errorf("sign-in of %s: HTTP %d: %s", email, status, snippet(resp))
			continue
		}
		if status != http.StatusOK {
			return "", fmt.Errorf("sign-in of %s: HTTP %d: %s", email, status, snippet(resp))
		}
		var out struct {
			Token string `json:"token"`
		}
		if err := json.Unmarshal(resp, &out); err != nil || out.Token == "" {
			return "", fmt.Errorf("sign-in of %s: no token in the answer: %s", email, snippet(resp))
		}
		return out.Token, nil
	}
	return "", fmt.Errorf("sign-in of %s: %w", email, lastErr)
}

// do sends one request and reads the whole answer (so the connection can
// be reused).
func do(ctx context.Context, client *http.Client, method, url, token, idemKey string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	status, _, b, err := doReq(client, req)
	return status, b, err
}

// doReq sends req and reads the whole answer. replayed reports the
// Idempotent-Replayed header.
func doReq(client *http.Client, req *http.Request) (status int, replayed bool, body []byte, err error) {
	res, err := client.Do(req)
	if err != nil {
		return 0, false, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, false, nil, err
	}
	return res.StatusCode, res.Header.Get("Idempotent-Replayed") == "true", b, nil
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
