package server

import (
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/db"
)

// TestCommitPositionHeader: with a read URL (here the primary itself) every
// write answers X-Meridian-Commit-LSN and the server remembers it for the
// user; a read that sends a position the replica has not reached falls back
// to the primary after replica_wait; a malformed position is a 400; without
// read URLs no write pays for a position.
func TestCommitPositionHeader(t *testing.T) {
	e := newEnv(t)
	u := e.customer("Rita Replica")
	_, from := e.account(u, "50.00")
	_, to := e.account(e.customer("Tom Target"), "0.00")
	transfer := func() resp {
		return e.want(e.do("POST", "/api/user/money-transfer", u.Token, map[string]any{"account_id": from, "to_account_id": to, "amount": "1.00"}), 201, "transfer")
	}
	if h := transfer().Header.Get(HeaderCommitLSN); h != "" {
		t.Fatalf("without read URLs a write answered a position %q", h)
	}

	replicas, err := db.OpenReplicas([]string{e.url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replicas[0].Close() })
	r := db.NewRouter(e.svc.DB(), []*sqlx.DB{replicas[0]}, 100*time.Millisecond)
	e.svc.SetReadRouter(r)

	h := transfer().Header.Get(HeaderCommitLSN)
	pos, err := db.ParseLSN(h)
	if err != nil || pos == 0 {
		t.Fatalf("write answered %s %q (%v)", HeaderCommitLSN, h, err)
	}
	if got := r.Remembered(u.ID); got != pos {
		t.Fatalf("remembered %v for the user, answered %v", got, pos)
	}
	e.want(e.do("GET", "/api/user/transactions/history", u.Token, nil, HeaderCommitLSN, h), 200, "history at the write's position")
	if n := r.Fallbacks(); n != 0 {
		t.Fatalf("fallbacks %d after a read the replica could serve", n)
	}
	began := time.Now()
	e.want(e.do("GET", "/api/user/transactions/history", u.Token, nil, HeaderCommitLSN, "FFFFFFFF/0"), 200, "history at a position not reached")
	if n, took := r.Fallbacks(), time.Since(began); n != 1 || took < 100*time.Millisecond {
		t.Fatalf("fallbacks %d after %s; want 1 after replica_wait (100ms)", n, took)
	}
	for _, bad := range []string{"16", "x/y", "1/2/3", "FFFFFFFFF/0"} {
		e.want(e.do("GET", "/api/user/transactions/history", u.Token, nil, HeaderCommitLSN, bad), 400, "malformed position "+bad)
	}
	// The remembered position applies without the header.
	r.Remember(u.ID, db.LSN(0xFFFFFFFF)<<32)
	e.want(e.do("GET", "/api/user/dashboard/transactions-summary", u.Token, nil), 200, "summary after a remembered write")
	if n := r.Fallbacks(); n != 2 {
		t.Fatalf("fallbacks %d; the remembered position was not waited for", n)
	}
}
