package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/google/uuid"

	"meridian/pkg/money"
)

// NotifyOptions configures ProbeNotifications.
type NotifyOptions struct {
	BaseURL string
	// A and B pay each other in turn; each listens on its own WebSocket
	// for the push announcing what the other sent. Neither should take part
	// in other load (their balances must stay positive).
	A, B Customer
	// Samples is how many transfers to time. Default 200.
	Samples int
	// Timeout is how long to wait for one push. Default 5s.
	Timeout time.Duration
	Client  *http.Client
}

// NotifyReport is the outcome of ProbeNotifications.
//
// A push can only be sent after the transfer commits, and the 201 also only
// after the commit, so AfterResponse (push arrival minus 201 arrival) is at
// most the commit-to-push delay; SinceRequest (push arrival minus request
// start) is at least it. The true commit-to-push latency lies between.
type NotifyReport struct {
	Samples int `json:"samples"`
	// Received is how many pushes arrived within the timeout; Lost the rest.
	Received int `json:"received"`
	Lost     int `json:"lost"`
	// Early counts pushes that arrived before the 201 was fully read (their
	// AfterResponse sample is 0).
	Early         int     `json:"early"`
	AfterResponse Latency `json:"after_response"`
	SinceRequest  Latency `json:"since_request"`
	// TransferErrors counts transfers that did not answer 201 (after
	// retrying 5xx and network errors with the same Idempotency-Key).
	TransferErrors int      `json:"transfer_errors"`
	ErrorSamples   []string `json:"error_samples,omitempty"`
	// Committed are the probe's transfers (for CheckInvariants).
	Committed []Committed `json:"-"`
}

type arrival struct {
	msg string
	at  time.Time
}

// ProbeNotifications signs A and B in, opens a WebSocket for each
// (the token in an Authorization header), then makes Samples transfers one at a time, alternately
// A to B and B to A, each of a distinct small amount, and times the push
// "You received $X from account N" on the recipient's socket.
func ProbeNotifications(ctx context.Context, o NotifyOptions) (*NotifyReport, error) {
	if o.Samples <= 0 {
		o.Samples = 200
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.Client == nil {
		o.Client = NewClient(2, 30*time.Second)
	}
	if len(o.A.Accounts) == 0 || len(o.B.Accounts) == 0 {
		return nil, errors.New("loadtest: the notification probe's customers need an account each")
	}
	base := strings.TrimRight(o.BaseURL, "/")
	type side struct {
		c      Customer
		token  string
		pushes chan arrival
		conn   *websocket.Conn
	}
	sides := []*side{{c: o.A}, {c: o.B}}
	wsBase := "ws" + strings.TrimPrefix(base, "http")
	for _, s := range sides {
		tok, err := SignIn(ctx, o.Client, base, s.c.Email, s.c.Password)
		if err != nil {
			return nil, err
		}
		s.token = tok
		dialer := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
		conn, resp, err := dialer.DialContext(ctx, wsBase+"/ws", http.Header{"Authorization": {"Bearer " + tok}})
		if err != nil {
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			return nil, fmt.Errorf("loadtest: WebSocket for %s (HTTP %d): %w", s.c.Email, status, err)
		}
		s.conn = conn
		s.pushes = make(chan arrival, 1024)
		defer conn.Close()
		go func() {
			defer close(s.pushes)
			for {
				_, msg, err := conn.ReadMessage()
				if err != nil {
					return
				}
				at := time.Now()
				var p struct {
					Message string `json:"message"`
				}
				if json.Unmarshal(msg, &p) == nil {
					select {
					case s.pushes <- arrival{p.Message, at}:
					default: // the probe is not listening; drop
					}
				}
			}
		}()
	}

	rep := &NotifyReport{Samples: o.Samples}
	var after, since []time.Duration
	for i := range o.Samples {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		from, to := sides[i%2], sides[(i+1)%2]
		amount := money.Amount(1_00 + i) // distinct per sample: tells the pushes apart
		// Bulk accounts are in dollars.
		want := fmt.Sprintf("You received %s from account %s", money.Format(amount, "USD"), from.c.Accounts[0])
		body, _ := json.Marshal(transferBody{AccountID: from.c.Accounts[0], ToAccountID: to.c.Accounts[0], Amount: amount, Description: "notification probe"})
		key := "np-" + uuid.NewString()

		t0 := time.Now()
		var status int
		var resp []byte
		var err error
		for attempt := 0; attempt < 10; attempt++ {
			status, resp, err = do(ctx, o.Client, http.MethodPost, base+"/api/user/money-transfer", from.token, key, body)
			if err == nil && status < 500 {
				break
			}
			sleepCtx(ctx, 100*time.Millisecond)
		}
		t201 := time.Now()
		if err != nil || status != http.StatusCreated {
			rep.TransferErrors++
			if len(rep.ErrorSamples) < maxErrorSamples {
				rep.ErrorSamples = append(rep.ErrorSamples, fmt.Sprintf("HTTP %d %v: %s", status, err, snippet(resp)))
			}
			continue
		}
		if id, err := transactionID(resp); err == nil {
			rep.Committed = append(rep.Committed, Committed{ID: id, From: from.c.Accounts[0], To: to.c.Accounts[0], Amount: amount, Key: key})
		}
		deadline := time.NewTimer(o.Timeout)
	wait:
		for {
			select {
			case a, ok := <-to.pushes:
				if !ok {
					deadline.Stop()
					return nil, fmt.Errorf("loadtest: the WebSocket of %s closed during the probe", to.c.Email)
				}
				if a.msg != want {
					continue
				}
				rep.Received++
				d := a.at.Sub(t201)
				if d < 0 {
					rep.Early++
					d = 0
				}
				after = append(after, d)
				since = append(since, a.at.Sub(t0))
				break wait
			case <-deadline.C:
				rep.Lost++
				break wait
			case <-ctx.Done():
				deadline.Stop()
				return nil, ctx.Err()
			}
		}
		deadline.Stop()
	}
	rep.AfterResponse = Summarize(after)
	rep.SinceRequest = Summarize(since)
	return rep, nil
}
