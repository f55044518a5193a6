package bank

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"meridian/pkg/errs"
)

const pushTokenA = "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]"

func TestRegisterDevice(t *testing.T) {
	t.Parallel()
	s := newService(t)
	bob := newCustomer(t, s, "Bob Stone")
	carol := newCustomer(t, s, "Carol King")

	for _, in := range []DeviceInput{
		{PushToken: "not-a-token", Platform: "ios"},
		{PushToken: "ExponentPushToken[]", Platform: "ios"},
		{PushToken: "ExponentPushToken[abc\x00]", Platform: "ios"},
		{PushToken: pushTokenA, Platform: "web"},
	} {
		_, err := s.RegisterDevice(ctx, bob, in)
		wantKind(t, err, errs.Invalid, "invalid_input")
	}
	_, err := s.RegisterDevice(ctx, CLIActor, DeviceInput{PushToken: pushTokenA, Platform: "ios"})
	wantKind(t, err, errs.Invalid, "session_required")

	d, err := s.RegisterDevice(ctx, bob, DeviceInput{PushToken: pushTokenA, Platform: "ios"})
	if err != nil || d.ID == 0 || !d.Current || d.Platform != "ios" {
		t.Fatalf("register: %+v %v", d, err)
	}
	// Again from the same session: the same device, no second audit row.
	again, err := s.RegisterDevice(ctx, bob, DeviceInput{PushToken: pushTokenA, Platform: "ios"})
	if err != nil || again.ID != d.ID {
		t.Fatalf("register again: %+v %v", again, err)
	}
	if n := auditCount(t, s, "DEVICE_REGISTER"); n != 1 {
		t.Fatalf("DEVICE_REGISTER rows: %d", n)
	}
	// The phone passes to Carol: the token moves; Bob no longer has it.
	moved, err := s.RegisterDevice(ctx, carol, DeviceInput{PushToken: pushTokenA, Platform: "ios"})
	if err != nil || moved.ID != d.ID {
		t.Fatalf("move: %+v %v", moved, err)
	}
	if list, _ := s.ListDevices(ctx, bob); len(list) != 0 {
		t.Fatalf("bob still lists %+v", list)
	}
	if list, _ := s.ListDevices(ctx, carol); len(list) != 1 || !list[0].Current {
		t.Fatalf("carol lists %+v", list)
	}
	if n := auditCount(t, s, "DEVICE_MOVE"); n != 1 {
		t.Fatalf("DEVICE_MOVE rows: %d", n)
	}
	// Another user's device is not found; the owner removes it.
	wantKind(t, s.RemoveDevice(ctx, bob, d.ID), errs.NotFound, "device_not_found")
	if err := s.RemoveDevice(ctx, carol, d.ID); err != nil {
		t.Fatal(err)
	}
	wantKind(t, s.RemoveDevice(ctx, carol, d.ID), errs.NotFound, "device_not_found")
	if n := auditCount(t, s, "DEVICE_REMOVE"); n != 1 {
		t.Fatalf("DEVICE_REMOVE rows: %d", n)
	}
}

// fakeExpo is a local stand-in for the Expo push API: it records every
// message and answers a ticket for each, DeviceNotRegistered for the tokens
// in gone.
type fakeExpo struct {
	mu   sync.Mutex
	got  []expoMessage
	gone map[string]bool
	srv  *httptest.Server
}

func newFakeExpo(t *testing.T) *fakeExpo {
	f := &fakeExpo{gone: map[string]bool{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msgs []expoMessage
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &msgs) != nil {
			http.Error(w, `{"errors":[{"code":"VALIDATION_ERROR"}]}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		var tickets []string
		for _, m := range msgs {
			f.got = append(f.got, m)
			if f.gone[m.To] {
				tickets = append(tickets, `{"status":"error","message":"not registered","details":{"error":"DeviceNotRegistered"}}`)
			} else {
				tickets = append(tickets, `{"status":"ok","id":"`+uuid.NewString()+`"}`)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[`+strings.Join(tickets, ",")+`]}`)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeExpo) take() []expoMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.got
	f.got = nil
	return out
}

// pushRound seals what was committed and runs one round of the pusher.
func pushRound(t *testing.T, s *Service, o PushOptions) int {
	t.Helper()
	if _, err := s.Seal(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := s.PushRound(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPushRound(t *testing.T) {
	t.Parallel()
	s := newService(t)
	expo := newFakeExpo(t)
	o := PushOptions{URL: expo.srv.URL}
	alice := newCustomer(t, s, "Alice Ames")
	bob := newCustomer(t, s, "Bob Stone")
	from := openAccount(t, s, alice, "100.00")
	to := openAccount(t, s, bob, "0.00")
	pay := func(amount string) {
		t.Helper()
		if _, err := s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: amt(t, amount)}, ""); err != nil {
			t.Fatal(err)
		}
	}
	// No device yet: the round moves past the notification and sends nothing.
	pay("1.00")
	if n := pushRound(t, s, o); n != 0 || len(expo.take()) != 0 {
		t.Fatalf("pushed without a device: %d", n)
	}
	if _, err := s.RegisterDevice(ctx, bob, DeviceInput{PushToken: pushTokenA, Platform: "android"}); err != nil {
		t.Fatal(err)
	}

	// Money received while no socket is open: one push, once.
	pay("12.50")
	if n := pushRound(t, s, o); n != 1 {
		t.Fatalf("sent %d, want 1", n)
	}
	got := expo.take()
	if len(got) != 1 || got[0].To != pushTokenA || !strings.Contains(got[0].Body, "You received $12.50 from account "+from.AccountNumber) || got[0].Title != "Meridian" {
		t.Fatalf("messages %+v", got)
	}
	if n := pushRound(t, s, o); n != 0 || len(expo.take()) != 0 {
		t.Fatal("the same notification was pushed twice")
	}

	// Requests too: Bob is asked for money.
	if _, err := s.CreateMoneyRequest(ctx, alice, MoneyRequestInput{RequesterID: from.AccountNumber, RecipientID: to.AccountNumber, Amount: amt(t, "3.00")}); err != nil {
		t.Fatal(err)
	}
	pushRound(t, s, o)
	if got := expo.take(); len(got) != 1 || !strings.Contains(got[0].Body, "request") {
		t.Fatalf("request push %+v", got)
	}

	// A socket open on any instance (live_presence): no push.
	instance := uuid.NewString()
	if err := s.PublishPresence(ctx, instance, []int64{bob.UserID}); err != nil {
		t.Fatal(err)
	}
	pay("2.00")
	if n := pushRound(t, s, o); n != 0 || len(expo.take()) != 0 {
		t.Fatal("pushed while a socket was open on another instance")
	}
	if err := s.PublishPresence(ctx, instance, nil); err != nil {
		t.Fatal(err)
	}
	// ... or on this one (the hub's own count).
	pay("2.00")
	if n := pushRound(t, s, PushOptions{URL: o.URL, Live: func(id int64) bool { return id == bob.UserID }}); n != 0 || len(expo.take()) != 0 {
		t.Fatal("pushed while a socket was open here")
	}

	// A device Expo no longer knows is forgotten.
	expo.gone[pushTokenA] = true
	pay("2.00")
	if n := pushRound(t, s, o); n != 0 || len(expo.take()) != 1 {
		t.Fatal("want one refused message")
	}
	if list, _ := s.ListDevices(ctx, bob); len(list) != 0 {
		t.Fatalf("unregistered device kept: %+v", list)
	}
	if st := s.PushStats(); st.Sent != 2 || st.Gone != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// pushScene is Alice with $100 who pays Bob, whose phone is registered.
type pushScene struct {
	alice, bob Actor
	from, to   Account
}

func newPushScene(t *testing.T, s *Service) pushScene {
	t.Helper()
	p := pushScene{alice: newCustomer(t, s, "Alice Ames"), bob: newCustomer(t, s, "Bob Stone")}
	p.from = openAccount(t, s, p.alice, "100.00")
	p.to = openAccount(t, s, p.bob, "0.00")
	if _, err := s.RegisterDevice(ctx, p.bob, DeviceInput{PushToken: pushTokenA, Platform: "ios"}); err != nil {
		t.Fatal(err)
	}
	return p
}

// pay sends Bob amount from Alice.
func (p pushScene) pay(t *testing.T, s *Service, amount string) {
	t.Helper()
	if _, err := s.Transfer(ctx, p.alice, TransferInput{AccountID: p.from.AccountNumber, ToAccountID: p.to.AccountNumber, Amount: amt(t, amount)}, ""); err != nil {
		t.Fatal(err)
	}
}

func TestPushStopsWithTheSession(t *testing.T) {
	t.Parallel()
	s := newService(t)
	expo := newFakeExpo(t)
	o := PushOptions{URL: expo.srv.URL}
	p := newPushScene(t, s)
	// Bob's session ends (signed out, or from another device): no push,
	// though the app could not remove the device.
	if err := s.Logout(ctx, p.bob); err != nil {
		t.Fatal(err)
	}
	p.pay(t, s, "5.00")
	if n := pushRound(t, s, o); n != 0 || len(expo.take()) != 0 {
		t.Fatal("pushed to a device of an ended session")
	}
}

func TestPushRoundOneInstanceAtATime(t *testing.T) {
	t.Parallel()
	s := newService(t)
	expo := newFakeExpo(t)
	// Another instance holds the cursor: this one sends nothing and waits for nothing.
	tx, err := s.db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT 1 FROM push_cursor WHERE id = 1 FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	newPushScene(t, s).pay(t, s, "5.00")
	if n := pushRound(t, s, PushOptions{URL: expo.srv.URL}); n != 0 || len(expo.take()) != 0 {
		t.Fatal("pushed while another instance held the cursor")
	}
	tx.Rollback()
	if n := pushRound(t, s, PushOptions{URL: expo.srv.URL}); n != 1 {
		t.Fatalf("after the other instance let go: %d", n)
	}
}
