package bank

import (
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"meridian/pkg/errs"
)

func TestSanitizeUserAgent(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 300)
	for in, want := range map[string]string{
		"Mozilla/5.0 (X11; Linux)":    "Mozilla/5.0 (X11; Linux)",
		"  curl/8.5\x00\r\n\x1b[31m ": "curl/8.5[31m",
		"bad \xff\xfe bytes":          "bad  bytes",
		"tab\tand\u0085next":          "tabandnext",
		"":                            "",
	} {
		if got := SanitizeUserAgent(in); got != want {
			t.Errorf("SanitizeUserAgent(%q) = %q, want %q", in, got, want)
		}
	}
	if got := SanitizeUserAgent(long); utf8.RuneCountInString(got) != MaxUserAgentLen || !utf8.ValidString(got) {
		t.Errorf("a long User-Agent is cut to %d characters of valid UTF-8: got %d", MaxUserAgentLen, utf8.RuneCountInString(got))
	}
}

// loginAs signs email in with a User-Agent and an address and returns the token and actor.
func loginAs(t *testing.T, s *Service, email, agent, ip string) (string, Actor) {
	t.Helper()
	in := LoginInput{Email: email, Password: testPassword, UserAgent: agent}
	if ip != "" {
		in.IP = netip.MustParseAddr(ip)
	}
	res, err := s.Login(ctx, in)
	if err != nil {
		t.Fatalf("login %s: %v", email, err)
	}
	a, err := s.Authenticate(ctx, res.Token)
	if err != nil {
		t.Fatal(err)
	}
	return res.Token, a
}

// storedLastSeen reads a session's last use as the database holds it.
func storedLastSeen(t *testing.T, s *Service, jti string) time.Time {
	t.Helper()
	var at time.Time
	if err := s.db.Get(&at, `SELECT last_seen_at FROM auth_tokens WHERE jti = $1`, jti); err != nil {
		t.Fatal(err)
	}
	return at
}

// A session records what signed in and from where; its last use is kept in
// memory by the request and written only by the flusher, at most once a
// minute, with the session cache on or off.
func TestSessionsRecordClientAndLastUse(t *testing.T) {
	t.Parallel()
	for _, cache := range []bool{false, true} {
		s := newService(t)
		s.SessionFeed(cache)
		var mu sync.Mutex
		now := time.Now()
		s.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
		advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

		a := newCustomer(t, s, "Sol Session")
		email := mustEmail(t, s, a.UserID)
		tok, cur := loginAs(t, s, email, "Firefox\x00/128 \xff", "203.0.113.7")
		_, phone := loginAs(t, s, email, "MeridianApp/1.0 (iOS)", "")

		list, err := s.ListSessions(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 3 { // newCustomer's, and the two above
			t.Fatalf("cache %v: %d sessions, want 3: %+v", cache, len(list), list)
		}
		byUA := map[string]Session{}
		currents := 0
		for _, x := range list {
			byUA[x.UserAgent] = x
			if x.Current {
				currents++
			}
		}
		if currents != 1 || !byUA["Firefox/128"].Current {
			t.Fatalf("cache %v: the current session is not the one marked: %+v", cache, list)
		}
		if ip := byUA["Firefox/128"].IP; ip == nil || *ip != "203.0.113.7" {
			t.Fatalf("cache %v: address %v, want 203.0.113.7", cache, ip)
		}
		if x, ok := byUA["MeridianApp/1.0 (iOS)"]; !ok || x.IP != nil || x.Current {
			t.Fatalf("cache %v: the app's session: %+v", cache, x)
		}
		if list[0].ID <= list[1].ID {
			t.Fatalf("cache %v: sessions are not newest first: %+v", cache, list)
		}

		// A request two minutes later: remembered, not written by the request.
		before := storedLastSeen(t, s, cur.TokenID)
		advance(2 * time.Minute)
		used := now
		if _, err := s.Authenticate(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if got := storedLastSeen(t, s, cur.TokenID); !got.Equal(before) {
			t.Fatalf("cache %v: the request wrote its last use itself (%v, was %v)", cache, got, before)
		}
		list, _ = s.ListSessions(ctx, cur)
		for _, x := range list {
			if x.Current && !x.LastSeenAt.Equal(used.UTC()) {
				t.Fatalf("cache %v: the listing shows last use %v, want the pending %v", cache, x.LastSeenAt, used)
			}
		}
		if err := s.FlushSessionsSeen(ctx); err != nil {
			t.Fatal(err)
		}
		if got := storedLastSeen(t, s, cur.TokenID); got.Sub(used).Abs() > time.Millisecond {
			t.Fatalf("cache %v: flushed last use %v, want %v", cache, got, used)
		}
		if got := storedLastSeen(t, s, phone.TokenID); got.After(before.Add(time.Second)) {
			t.Fatalf("cache %v: an unused session's last use moved to %v", cache, got)
		}

		// Within the minute, more requests mark nothing: the next flush writes nothing.
		for range 5 {
			advance(10 * time.Second)
			if _, err := s.Authenticate(ctx, tok); err != nil {
				t.Fatal(err)
			}
		}
		if pending := s.seen.take(); len(pending) != 0 {
			t.Fatalf("cache %v: requests within a minute of the last use marked %d sessions", cache, len(pending))
		}
		// A minute after the last written use, the next request marks it again.
		advance(15 * time.Second)
		if _, err := s.Authenticate(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.seen.lookup(cur.TokenID); !ok {
			t.Fatalf("cache %v: a use a minute after the last one was not marked", cache)
		}
	}
}

// Ending a session revokes exactly that token, for good, and audits it;
// another user's session, an unknown one and one already ended are 404.
func TestEndSession(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.SessionFeed(true) // answers from memory: ending must forget it here too
	a := newCustomer(t, s, "Eve Ender")
	email := mustEmail(t, s, a.UserID)
	otherTok, _ := loginAs(t, s, email, "Laptop", "198.51.100.2")
	b := newCustomer(t, s, "Bea Bystander")

	list, err := s.ListSessions(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	var otherID, ownID int64
	for _, x := range list {
		if x.UserAgent == "Laptop" {
			otherID = x.ID
		}
		if x.Current {
			ownID = x.ID
		}
	}
	bList, _ := s.ListSessions(ctx, b)
	wantKind(t, s.EndSession(ctx, a, bList[0].ID), errs.NotFound, "session_not_found")
	wantKind(t, s.EndSession(ctx, a, 1<<62), errs.NotFound, "session_not_found")
	if !live(t, s, b.TokenID) {
		t.Fatal("b's session was ended by a")
	}

	if err := s.EndSession(ctx, a, otherID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, otherTok); err == nil {
		t.Fatal("an ended session still works")
	}
	wantKind(t, s.EndSession(ctx, a, otherID), errs.NotFound, "session_not_found")
	if n := auditCount(t, s, "SESSION_END"); n != 1 {
		t.Fatalf("%d SESSION_END audit rows, want 1", n)
	}
	list, _ = s.ListSessions(ctx, a)
	if len(list) != 1 || !list[0].Current {
		t.Fatalf("after ending the other: %+v", list)
	}
	wantKind(t, s.EndSession(ctx, CLIActor, ownID), errs.Forbidden, "")
}

// live reports whether a session's token is still valid in the database.
func live(t *testing.T, s *Service, jti string) bool {
	t.Helper()
	var ok bool
	if err := s.db.Get(&ok, `SELECT revoked_at IS NULL FROM auth_tokens WHERE jti = $1`, jti); err != nil {
		t.Fatal(err)
	}
	return ok
}

// Ending every other session keeps the current one and revokes the rest.
func TestEndOtherSessions(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.SessionFeed(true)
	a := newCustomer(t, s, "Oto Others")
	email := mustEmail(t, s, a.UserID)
	t1, _ := loginAs(t, s, email, "One", "")
	t2, _ := loginAs(t, s, email, "Two", "")
	b := newCustomer(t, s, "Bo Bystander")

	if err := s.EndOtherSessions(ctx, a); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{t1, t2} {
		if _, err := s.Authenticate(ctx, tok); err == nil {
			t.Fatal("another session still works")
		}
	}
	if !live(t, s, b.TokenID) || !live(t, s, a.TokenID) {
		t.Fatal("the current session, or another user's, was ended")
	}
	list, err := s.ListSessions(ctx, a)
	if err != nil || len(list) != 1 || !list[0].Current {
		t.Fatalf("after ending the others: %+v %v", list, err)
	}
	if n := auditCount(t, s, "SESSION_END_OTHERS"); n != 1 {
		t.Fatalf("%d SESSION_END_OTHERS audit rows, want 1", n)
	}
}
