package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"meridian/pkg/money"
	"meridian/pkg/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func TestPercentile(t *testing.T) {
	var s []time.Duration
	for i := 100; i >= 1; i-- { // 1..100 ms, shuffled order does not matter
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	l := Summarize(s)
	want := Latency{Count: 100, Mean: 50500 * time.Microsecond, P50: 50 * time.Millisecond, P95: 95 * time.Millisecond, P99: 99 * time.Millisecond, Max: 100 * time.Millisecond}
	if l != want {
		t.Fatalf("Summarize = %+v, want %+v", l, want)
	}
	one := Summarize([]time.Duration{7})
	if one.P50 != 7 || one.P99 != 7 || one.Max != 7 {
		t.Fatalf("one sample: %+v", one)
	}
	if (Summarize(nil) != Latency{}) {
		t.Fatal("no samples should give a zero summary")
	}
	// Nearest rank: the p95 of 20 samples is the 19th.
	var twenty []time.Duration
	for i := 1; i <= 20; i++ {
		twenty = append(twenty, time.Duration(i))
	}
	if p := Percentile(twenty, 95); p != 19 {
		t.Fatalf("p95 of 1..20 = %d, want 19", p)
	}
	b, _ := json.Marshal(want)
	if !strings.Contains(string(b), `"p99_ms":99`) {
		t.Fatalf("JSON %s should give milliseconds", b)
	}
}

// fakeBank is a tiny in-memory stand-in for the API, with the behaviour the
// driver relies on: tokens, 201/422, Idempotency-Key replays, and faults
// (every lostEvery-th transfer commits but answers 500; every
// failEvery-th answers 500 without committing; every lieEvery-th commits but
// answers 503 timeout, "nothing was changed", which the driver must catch).
type fakeBank struct {
	mu        sync.Mutex
	balances  map[string]money.Amount
	owner     map[string]string // account -> email
	tokens    map[string]string // token -> email
	keys      map[string][]byte // idempotency key -> stored reply
	keyBody   map[string]string
	committed map[int64]bool
	nextID    int64
	requests  int
	lostEvery int
	failEvery int
	lieEvery  int
	lost      int
	lies      int
	pushes    map[string][]chan string // email -> websocket queues
}

func newFakeBank(customers []Customer) *fakeBank {
	b := &fakeBank{balances: map[string]money.Amount{}, owner: map[string]string{}, tokens: map[string]string{},
		keys: map[string][]byte{}, keyBody: map[string]string{}, committed: map[int64]bool{}, nextID: 100, pushes: map[string][]chan string{}}
	for _, c := range customers {
		for _, a := range c.Accounts {
			b.balances[a] = 500_00
			b.owner[a] = c.Email
		}
	}
	return b
}

func (b *fakeBank) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/auth/login", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Email, Password string }
		json.NewDecoder(r.Body).Decode(&in)
		if in.Password != "pw" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		b.mu.Lock()
		tok := fmt.Sprintf("tok-%d-%s", len(b.tokens), in.Email)
		b.tokens[tok] = in.Email
		b.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]string{"token": tok})
	})
	mux.HandleFunc("POST /api/user/money-transfer", b.transfer)
	mux.HandleFunc("GET /api/user/transactions/history", b.read)
	mux.HandleFunc("GET /api/user/dashboard/transactions-summary", b.read)
	mux.HandleFunc("GET /ws", b.ws)
	return mux
}

func (b *fakeBank) user(r *http.Request) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	email, ok := b.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	return email, ok
}

func (b *fakeBank) read(w http.ResponseWriter, r *http.Request) {
	if _, ok := b.user(r); !ok {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	w.Write([]byte(`{"data":[]}`))
}

func (b *fakeBank) transfer(w http.ResponseWriter, r *http.Request) {
	email, ok := b.user(r)
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	var in transferBody
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || key == "" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	raw, _ := json.Marshal(in)
	b.mu.Lock()
	if stored, ok := b.keys[key]; ok {
		same := b.keyBody[key] == string(raw)
		b.mu.Unlock()
		if !same {
			w.WriteHeader(http.StatusConflict)
			return
		}
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(http.StatusCreated)
		w.Write(stored)
		return
	}
	b.requests++
	n := b.requests
	if b.failEvery > 0 && n%b.failEvery == 0 {
		b.mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if b.owner[in.AccountID] != email {
		b.mu.Unlock()
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if b.balances[in.AccountID] < in.Amount {
		b.mu.Unlock()
		w.WriteHeader(http.StatusUnprocessableEntity)
		w.Write([]byte(`{"error":"Insufficient funds","code":"insufficient_funds"}`))
		return
	}
	b.balances[in.AccountID] -= in.Amount
	b.balances[in.ToAccountID] += in.Amount
	b.nextID += 2
	id := b.nextID
	b.committed[id] = true
	reply, _ := json.Marshal(map[string]any{"message": "Transfer successful", "transaction": map[string]any{"id": id, "amount": in.Amount}})
	b.keys[key] = reply
	b.keyBody[key] = string(raw)
	for _, q := range b.pushes[b.owner[in.ToAccountID]] {
		select {
		case q <- fmt.Sprintf(`{"id":1,"message":"You received %s from account %s","user_id":2}`, money.Format(in.Amount, "USD"), in.AccountID):
		default:
		}
	}
	lose := b.lostEvery > 0 && n%b.lostEvery == 0
	lie := !lose && b.lieEvery > 0 && n%b.lieEvery == 0
	if lose {
		b.lost++
	}
	if lie {
		b.lies++
	}
	b.mu.Unlock()
	if lose {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if lie { // committed, yet answered as if nothing had changed
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":"The request took too long and was cancelled; nothing was changed. Please try again","code":"timeout"}`))
		return
	}
	w.WriteHeader(http.StatusCreated)
	w.Write(reply)
}

func (b *fakeBank) ws(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	// As serve does: the token in the Authorization header, never in the URL.
	email, ok := b.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	b.mu.Unlock()
	if !ok || r.URL.Query().Has("token") {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	// Subscribed before the handshake answers, as serve's hub is: a
	// transfer sent right after the dial is pushed.
	q := make(chan string, 64)
	b.mu.Lock()
	b.pushes[email] = append(b.pushes[email], q)
	b.mu.Unlock()
	up := websocket.Upgrader{}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	gone := make(chan struct{}) // q stays open: a transfer may still send to it
	go func() {
		defer close(gone)
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				return
			}
		}
	}()
	for {
		select {
		case m := <-q:
			if conn.WriteMessage(websocket.TextMessage, []byte(m)) != nil {
				return
			}
		case <-gone:
			return
		}
	}
}

func fakeCustomers(n int) []Customer {
	var cs []Customer
	for i := 1; i <= n; i++ {
		cs = append(cs, Customer{UserID: int64(i), Email: fmt.Sprintf("u%d@x.test", i), Password: "pw", Accounts: []string{fmt.Sprintf("ACC%06d", i)}})
	}
	return cs
}

func TestTransfersAndResolve(t *testing.T) {
	cs := fakeCustomers(6)
	bank := newFakeBank(cs)
	bank.lostEvery, bank.failEvery, bank.lieEvery = 37, 53, 41
	srv := httptest.NewServer(bank.handler())
	defer srv.Close()

	d, err := New(Options{BaseURL: srv.URL, Customers: cs, Concurrency: 8, Count: 600, Seed: 1, OverdraftPercent: 10, ErrorBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	if err := d.Login(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := d.RunTransfers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 600 {
		t.Fatalf("sent %d requests, want 600 (Count)", rep.Requests)
	}
	if rep.Transfers+rep.Refused+rep.Errors != rep.Requests || rep.Status["201"] != rep.Transfers || rep.Status["422"] != rep.Refused {
		t.Fatalf("counts do not add up: %+v", rep)
	}
	if rep.Refused == 0 || rep.Transfers == 0 {
		t.Fatalf("expected both 201s and 422s (overdrafts): %+v", rep.Status)
	}
	if rep.Errors != rep.Status["500"]+rep.Status["503"] || rep.Uncertain != rep.Errors {
		t.Fatalf("every 500 is an error with an unknown outcome: %+v", rep)
	}
	if rep.Latency.Count != rep.Requests || rep.Latency.P50 <= 0 || rep.Latency.Max < rep.Latency.P99 {
		t.Fatalf("latency: %+v", rep.Latency)
	}
	if d.Succeeded() != int64(rep.Transfers) {
		t.Fatalf("Succeeded() = %d, want %d", d.Succeeded(), rep.Transfers)
	}

	res, err := d.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bank.mu.Lock()
	lost, lies := bank.lost, bank.lies
	committed := len(bank.committed)
	bank.mu.Unlock()
	if res.Uncertain != rep.Uncertain || res.Unresolved != 0 || res.Other != 0 {
		t.Fatalf("resolution %+v", res)
	}
	if res.Replayed != lost+lies {
		t.Fatalf("%d answers were lost after commit and %d said nothing changed, Resolve found %d replays", lost, lies, res.Replayed)
	}
	if res.Lies != lies || lies == 0 {
		t.Fatalf("the bank answered %d committed transfers 503 timeout; Resolve found %d lies", lies, res.Lies)
	}
	// Exactly once: the driver's committed set is the bank's.
	got := d.Committed()
	if len(got) != committed {
		t.Fatalf("driver knows %d committed transfers, the bank has %d", len(got), committed)
	}
	for _, c := range got {
		if !bank.committed[c.ID] {
			t.Fatalf("driver thinks %d committed; the bank does not have it", c.ID)
		}
	}
	if d.Unresolved() != 0 {
		t.Fatal("nothing should stay unresolved")
	}
}

func TestStopEndsRun(t *testing.T) {
	cs := fakeCustomers(3)
	srv := httptest.NewServer(newFakeBank(cs).handler())
	defer srv.Close()
	d, _ := New(Options{BaseURL: srv.URL, Customers: cs, Concurrency: 2, Duration: time.Hour})
	defer d.Close()
	if err := d.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	go func() {
		for d.Succeeded() < 5 {
			time.Sleep(time.Millisecond)
		}
		d.Stop()
	}()
	done := make(chan struct{})
	go func() {
		d.RunTransfers(context.Background())
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not end the run")
	}
}

func TestReads(t *testing.T) {
	cs := fakeCustomers(3)
	srv := httptest.NewServer(newFakeBank(cs).handler())
	defer srv.Close()
	d, _ := New(Options{BaseURL: srv.URL, Customers: cs, Concurrency: 4})
	defer d.Close()
	if err := d.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	rep, err := d.RunReads(context.Background(), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	h, db := rep.ByEndpoint["history"], rep.ByEndpoint["dashboard"]
	if rep.Errors != 0 || h.Count == 0 || db.Count == 0 || h.Count+db.Count != rep.Requests {
		t.Fatalf("reads: %+v", rep)
	}
}

func TestLoginFailureIsReported(t *testing.T) {
	cs := fakeCustomers(2)
	cs[1].Password = "wrong"
	srv := httptest.NewServer(newFakeBank(cs).handler())
	defer srv.Close()
	d, _ := New(Options{BaseURL: srv.URL, Customers: cs})
	defer d.Close()
	if err := d.Login(context.Background()); err == nil || !strings.Contains(err.Error(), "u2@x.test") || !strings.Contains(err.Error(), "401") {
		t.Fatalf("Login with a wrong password: %v", err)
	}
}

func TestProbeNotifications(t *testing.T) {
	cs := fakeCustomers(2)
	srv := httptest.NewServer(newFakeBank(cs).handler())
	defer srv.Close()
	rep, err := ProbeNotifications(context.Background(), NotifyOptions{BaseURL: srv.URL, A: cs[0], B: cs[1], Samples: 20, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Received != 20 || rep.Lost != 0 || rep.TransferErrors != 0 || len(rep.Committed) != 20 {
		t.Fatalf("probe: %+v", rep)
	}
	if rep.SinceRequest.Count != 20 || rep.SinceRequest.P99 <= 0 || rep.SinceRequest.P99 < rep.AfterResponse.P99 {
		t.Fatalf("probe latencies: since request %+v, after 201 %+v", rep.SinceRequest, rep.AfterResponse)
	}
}

func TestHotAccountPaysOneMerchant(t *testing.T) {
	cs := fakeCustomers(5)
	bank := newFakeBank(cs)
	srv := httptest.NewServer(bank.handler())
	defer srv.Close()

	d, err := New(Options{BaseURL: srv.URL, Customers: cs, Concurrency: 4, Count: 200, Seed: 3, OverdraftPercent: -1, HotAccount: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	if err := d.Login(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := d.RunTransfers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Transfers == 0 {
		t.Fatalf("no transfer succeeded: %+v", rep.Status)
	}
	merchant := cs[0].Accounts[0]
	for _, c := range d.Committed() {
		if c.To != merchant || c.From == merchant {
			t.Fatalf("hot-account run paid %s from %s; every transfer must pay %s from another account", c.To, c.From, merchant)
		}
	}

	one, _ := New(Options{BaseURL: srv.URL, Customers: cs[:1], Count: 1, HotAccount: true})
	defer one.Close()
	if err := one.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := one.RunTransfers(ctx); err == nil {
		t.Fatal("a hot-account run with only the merchant should be refused")
	}
}

// Start runs the transfers in the background; Stop ends the run and gives
// its report, the same one every time it is called.
func TestStartStop(t *testing.T) {
	cs := fakeCustomers(3)
	srv := httptest.NewServer(newFakeBank(cs).handler())
	defer srv.Close()
	d, _ := New(Options{BaseURL: srv.URL, Customers: cs, Concurrency: 2, Duration: time.Hour})
	defer d.Close()
	if err := d.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	run := d.Start(context.Background())
	deadline := time.Now().Add(10 * time.Second)
	for d.Succeeded() < 5 {
		if time.Now().After(deadline) {
			t.Fatal("the background run made no transfers")
		}
		time.Sleep(time.Millisecond)
	}
	stopped := make(chan struct{})
	var rep *Report
	var err error
	go func() {
		rep, err = run.Stop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not end the run")
	}
	if err != nil || rep == nil || rep.Mode != "transfers" || rep.Transfers < 5 || int64(rep.Transfers) != d.Succeeded() {
		t.Fatalf("Stop = %+v, %v; %d succeeded", rep, err, d.Succeeded())
	}
	if again, err2 := run.Stop(); again != rep || err2 != nil {
		t.Fatalf("a second Stop = %p, %v; want the first report %p", again, err2, rep)
	}

	// A run that cannot start gives its error through Stop.
	d2, _ := New(Options{BaseURL: srv.URL, Customers: cs, Duration: time.Hour})
	defer d2.Close()
	if rep, err := d2.Start(context.Background()).Stop(); err == nil || rep != nil {
		t.Fatalf("a run before Login: Stop = %+v, %v; want its error", rep, err)
	}
}
