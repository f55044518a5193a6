package bank

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"meridian/pkg/errs"
)

func TestWebhookURLGuard(t *testing.T) {
	s := newService(t)
	alice := newCustomer(t, s, "Alice Ames")
	events := []string{"transaction.created"}
	for _, u := range []string{
		"http://169.254.169.254/", "https://127.0.0.1/", "https://169.254.169.254/latest/meta-data", "https://[::1]:8443/hook",
		"https://10.0.0.7/", "https://192.168.1.1/", "https://172.16.0.1/", "https://[fd00:ec2::254]/", "https://100.64.0.1/",
		"https://0.0.0.0/", "https://localhost/hook", "https://[::ffff:127.0.0.1]/", "http://example.com/", "ftp://example.com/",
		"https://user:pw@example.com/", "/relative",
	} {
		_, err := s.CreateWebhook(ctx, alice, WebhookInput{URL: u, Events: events})
		if e := errs.As(err); err == nil || e.Kind != errs.Invalid {
			t.Errorf("%s: %v, want a refusal", u, err)
		}
	}
	_, err := s.CreateWebhook(ctx, alice, WebhookInput{URL: "https://93.184.215.14/hook", Events: []string{"everything"}})
	wantKind(t, err, errs.Invalid, "invalid_input")
	_, err = s.CreateWebhook(ctx, newAdmin(t, s), WebhookInput{URL: "https://93.184.215.14/hook", Events: events})
	wantKind(t, err, errs.Forbidden, "customer_only")
	w, err := s.CreateWebhook(ctx, alice, WebhookInput{URL: "https://93.184.215.14/hook", Events: events})
	if err != nil || !strings.HasPrefix(w.Secret, "whsec_") {
		t.Fatalf("a public address: %+v %v", w, err)
	}
	var sealed []byte
	if err := s.db.Get(&sealed, `SELECT sealed_secret FROM webhooks WHERE id = $1`, w.ID); err != nil || strings.Contains(string(sealed), strings.TrimPrefix(w.Secret, "whsec_")) {
		t.Fatalf("the secret is kept in the clear: %v", err)
	}

	// The same addresses with webhook_allow_private.
	private := New(s.db, s.tokens, Settings{WebhookAllowPrivate: true})
	if _, err := private.CreateWebhook(ctx, alice, WebhookInput{URL: "https://127.0.0.1:9/hook", Events: events}); err != nil {
		t.Fatalf("webhook_allow_private: %v", err)
	}

	// At delivery the address the name resolved to is checked again, where
	// the connection is made (a name that resolves elsewhere later).
	for _, a := range []string{"127.0.0.1", "169.254.169.254", "10.1.2.3", "::1"} {
		if !blockedAddr(netip.MustParseAddr(a)) {
			t.Errorf("%s is not blocked", a)
		}
	}
	rec := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer rec.Close()
	pool := x509.NewCertPool()
	pool.AddCert(rec.Certificate())
	if _, err := webhookClient(false, pool).Post(rec.URL, "application/json", nil); err == nil || !strings.Contains(err.Error(), "not a public address") {
		t.Fatalf("delivery to loopback without webhook_allow_private: %v", err)
	}
	if res, err := webhookClient(true, pool).Post(rec.URL, "application/json", nil); err != nil || res.StatusCode != 204 {
		t.Fatalf("delivery to loopback with webhook_allow_private: %v", err)
	}
}

// receiver is a customer's webhook endpoint: it verifies every signature
// with the Standard Webhooks library and keeps what arrived, in order.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	verify *standardwebhooks.Webhook
	fail   int // answer 500 to this many more requests
	got    []delivered
}

type delivered struct {
	ID   string
	Type string
	Data map[string]any
}

func newReceiver(t *testing.T, fail int) *receiver {
	r := &receiver{t: t, fail: fail}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.verify == nil || r.verify.Verify(body, req.Header) != nil {
			r.t.Errorf("a delivery whose signature does not verify: %s %v", body, req.Header)
			w.WriteHeader(400)
			return
		}
		if r.fail > 0 {
			r.fail--
			w.WriteHeader(500)
			return
		}
		var m struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			r.t.Errorf("body %s: %v", body, err)
		}
		r.got = append(r.got, delivered{ID: req.Header.Get("webhook-id"), Type: m.Type, Data: m.Data})
		w.WriteHeader(200)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(r.srv.Certificate())
	return p
}

func (r *receiver) setSecret(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	if r.verify, err = standardwebhooks.NewWebhook(secret); err != nil {
		r.t.Fatal(err)
	}
}

// firsts returns the ids in the order they first arrived.
func (r *receiver) firsts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, d := range r.got {
		if !slices.Contains(out, d.ID) {
			out = append(out, d.ID)
		}
	}
	return out
}

func webhookSettings(r *receiver) Settings {
	return Settings{RequestsTTL: time.Hour, LookupPerMinute: 1000, WebhookAllowPrivate: true, WebhookRootCAs: r.pool(),
		WebhookRetryBase: 20 * time.Millisecond, WebhookRetryMax: 100 * time.Millisecond}
}

// TestWebhooksInOrderAcrossRestart: every event of a run arrives, each
// signature verifies, in commit order, though the receiver fails its first
// three deliveries and serve's dispatcher stops halfway and another
// process (a restarted serve) takes over.
func TestWebhooksInOrderAcrossRestart(t *testing.T) {
	r := newReceiver(t, 3)
	base := newService(t)
	st := webhookSettings(r)
	first := New(base.db, base.tokens, st)
	alice, bob := newCustomer(t, first, "Alice Ames"), newCustomer(t, first, "Bob Best")
	aliceAcc, bobAcc := openAccount(t, first, alice, "500.00"), openAccount(t, first, bob, "500.00")
	w, err := first.CreateWebhook(ctx, alice, WebhookInput{URL: r.srv.URL + "/hooks", Events: WebhookEvents})
	if err != nil {
		t.Fatal(err)
	}
	r.setSecret(w.Secret)

	run := func(s *Service) (stop func()) {
		c, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); s.RunWebhooks(c, 30*time.Millisecond, nil) }()
		return func() { cancel(); <-done }
	}
	stop := run(first)
	transfer := func(from Actor, a, b Account, amount string) {
		t.Helper()
		if _, err := first.Transfer(ctx, from, TransferInput{AccountID: a.AccountNumber, ToAccountID: b.AccountNumber, Amount: amt(t, amount), Description: "Lunch"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	transfer(alice, aliceAcc, bobAcc, "1.00")
	transfer(bob, bobAcc, aliceAcc, "2.00")
	req, err := first.CreateMoneyRequest(ctx, bob, MoneyRequestInput{RequesterID: bobAcc.AccountNumber, RecipientID: aliceAcc.AccountNumber, Amount: amt(t, "3.00"), Description: "Tickets"})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { return len(r.firsts()) >= 3 }, "the first events")
	stop() // serve stops; what it had not sent waits in the feed

	if _, err := first.AcceptMoneyRequest(ctx, alice, req.ID, ""); err != nil {
		t.Fatal(err)
	}
	req2, err := first.CreateMoneyRequest(ctx, alice, MoneyRequestInput{RequesterID: aliceAcc.AccountNumber, RecipientID: bobAcc.AccountNumber, Amount: amt(t, "4.00"), Description: "Taxi"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.DeclineMoneyRequest(ctx, bob, req2.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := first.CreateMoneyRequest(ctx, alice, MoneyRequestInput{RequesterID: aliceAcc.AccountNumber, RecipientID: bobAcc.AccountNumber, Amount: amt(t, "5.00"), Description: "Later"}); err != nil {
		t.Fatal(err)
	}
	later := New(base.db, base.tokens, st) // expires it and runs a schedule, an hour on
	clock := fixClock(later, time.Now().Add(2*time.Hour))
	if _, err := later.ExpireMoneyRequests(ctx); err != nil {
		t.Fatal(err)
	}
	clock.mu.Lock()
	clock.t = time.Now()
	clock.mu.Unlock()
	if _, err := later.CreateScheduledTransfer(ctx, alice, ScheduledTransferInput{AccountID: aliceAcc.AccountNumber, ToAccountID: bobAcc.AccountNumber,
		Amount: amt(t, "6.00"), Description: "Rent", RunAt: time.Now().Add(time.Minute).UTC().Format(time.RFC3339), Frequency: FrequencyOnce}); err != nil {
		t.Fatal(err)
	}
	clock.mu.Lock()
	clock.t = time.Now().Add(2 * time.Minute)
	clock.mu.Unlock()
	if _, err := later.RunDueScheduledTransfers(ctx); err != nil {
		t.Fatal(err)
	}

	// What happened to Alice, in commit order, as the feed holds it.
	var want []struct {
		ID   int64  `db:"id"`
		Type string `db:"type"`
	}
	restarted := New(base.db, base.tokens, st)
	if _, err := restarted.db.Exec(`SELECT webhook_seal()`); err != nil {
		t.Fatal(err)
	}
	if err := base.db.Select(&want, `SELECT e.id, e.type FROM webhook_feed f JOIN webhook_events e ON e.id = f.event_id WHERE f.user_id = $1 ORDER BY f.seq`, alice.UserID); err != nil {
		t.Fatal(err)
	}
	var wantIDs, wantTypes []string
	for _, e := range want {
		wantIDs = append(wantIDs, "msg_"+itoa(e.ID))
		wantTypes = append(wantTypes, e.Type)
	}
	// Alice: her DEBIT, her CREDIT, Bob's request of her, its acceptance and
	// her DEBIT paying it, her request, its refusal, her second request, its
	// expiry, the scheduled run and its DEBIT.
	wantTypesList := []string{"transaction.created", "transaction.created", "money_request.created", "money_request.accepted", "transaction.created",
		"money_request.created", "money_request.declined", "money_request.created", "money_request.expired", "transaction.created", "scheduled_transfer.run"}
	if !slices.Equal(sortedCopy(wantTypes), sortedCopy(wantTypesList)) {
		t.Fatalf("the feed holds %v, want these events: %v", wantTypes, wantTypesList)
	}

	stop = run(restarted)
	defer stop()
	waitUntil(t, func() bool { return len(r.firsts()) >= len(wantIDs) }, "every event")
	if got := r.firsts(); !slices.Equal(got, wantIDs) {
		t.Fatalf("arrived in the order %v, want %v", got, wantIDs)
	}
	// The log is written after each answer: wait for the last one's row.
	var log []WebhookDelivery
	waitUntil(t, func() bool {
		log, err = restarted.WebhookDeliveries(ctx, alice, w.ID)
		return err == nil && len(log) >= len(wantIDs)+3
	}, "the delivery log")
	failures := 0
	for _, d := range log {
		if d.StatusCode != nil && *d.StatusCode == 500 {
			failures++
		}
	}
	if failures != 3 || log[len(log)-1].Attempt != 1 || len(log) < len(wantIDs)+3 {
		t.Fatalf("delivery log: %d failures in %+v", failures, log)
	}
	if st := first.WebhookStats(); st.Failed != 3 || st.Delivered < 3 {
		t.Fatalf("the first dispatcher's figures: %+v", st)
	}

	// Redelivery sends one event again.
	n := len(r.got)
	if err := restarted.RedeliverWebhook(ctx, alice, w.ID, want[0].ID); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.got) > n }, "the redelivery")
	if r.got[n].ID != wantIDs[0] {
		t.Fatalf("redelivered %s, want %s", r.got[n].ID, wantIDs[0])
	}
	wantKind(t, restarted.RedeliverWebhook(ctx, bob, w.ID, want[0].ID), errs.NotFound, "webhook_not_found")
	wantKind(t, restarted.RedeliverWebhook(ctx, alice, w.ID, 987654), errs.NotFound, "webhook_event_not_found")
}

// TestWebhookMarkedFailing: after its retry window an endpoint is marked
// failing and its owner told; a redelivery makes it active again.
func TestWebhookMarkedFailing(t *testing.T) {
	r := newReceiver(t, 1_000_000)
	base := newService(t)
	st := webhookSettings(r)
	st.WebhookRetryFor = 200 * time.Millisecond
	s := New(base.db, base.tokens, st)
	alice, bob := newCustomer(t, s, "Alice Ames"), newCustomer(t, s, "Bob Best")
	aliceAcc, bobAcc := openAccount(t, s, alice, "50.00"), openAccount(t, s, bob, "0.00")
	w, err := s.CreateWebhook(ctx, alice, WebhookInput{URL: r.srv.URL, Events: []string{"transaction.created"}})
	if err != nil {
		t.Fatal(err)
	}
	r.setSecret(w.Secret)
	if _, err := s.Transfer(ctx, alice, TransferInput{AccountID: aliceAcc.AccountNumber, ToAccountID: bobAcc.AccountNumber, Amount: amt(t, "1.00")}, ""); err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.RunWebhooks(c, 20*time.Millisecond, nil)
	waitUntil(t, func() bool {
		ws, _ := s.ListWebhooks(ctx, alice)
		return len(ws) == 1 && ws[0].Status == "failing"
	}, "the endpoint marked failing")
	var msg string
	if err := s.db.Get(&msg, `SELECT message FROM notifications WHERE user_id = $1 ORDER BY id DESC LIMIT 1`, alice.UserID); err != nil || !strings.Contains(msg, "is failing") {
		t.Fatalf("the owner was told %q (%v)", msg, err)
	}
	var ev int64
	if err := s.db.Get(&ev, `SELECT event_id FROM webhook_deliveries WHERE webhook_id = $1 LIMIT 1`, w.ID); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.fail = 0
	r.mu.Unlock()
	if err := s.RedeliverWebhook(ctx, alice, w.ID, ev); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool {
		ws, _ := s.ListWebhooks(ctx, alice)
		return ws[0].Status == "active" && len(r.firsts()) == 1
	}, "the endpoint active again")
}

func waitUntil(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
