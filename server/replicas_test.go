package server

import (
	"strings"
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
	for _, bad := range []string{"16", "x/y", "1/2/3", "FFFFFFFFF/0"} {
		e.want(e.do("GET", "/api/user/transactions/history", u.Token, nil, HeaderCommitLSN, bad), 400, "malformed position "+bad)
	}
	// The remembered position (a write of this user here that no replica
	// has replayed yet) is waited for without the header, replica_wait at
	// most, then the primary answers.
	r.Remember(u.ID, db.LSN(0xFFFFFFFF)<<32)
	began := time.Now()
	e.want(e.do("GET", "/api/user/dashboard/transactions-summary", u.Token, nil), 200, "summary after a remembered write")
	if n, took := r.Fallbacks(), time.Since(began); n != 1 || took < 100*time.Millisecond {
		t.Fatalf("fallbacks %d after %s; want 1 after replica_wait (100ms)", n, took)
	}
}

// TestCommitPositionChecked: the header is read only after the token is
// checked (a request without one answers 401 whatever the header), never
// on the health checks, and a position the primary has not reached (no
// answer gave it: FFFFFFFF/FFFFFFFF) is refused at once, replicas or not,
// instead of making every read wait replica_wait for it (issue 20).
func TestCommitPositionChecked(t *testing.T) {
	e := newEnv(t)
	u := e.customer("Paula Position")
	e.svc.SetReadRouter(db.NewRouter(e.svc.DB(), nil, 100*time.Millisecond)) // as serve has it without read URLs
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		e.want(e.do("GET", path, "", nil, HeaderCommitLSN, "garbage"), 200, path+" with a garbage position")
		e.want(e.do("GET", path, "", nil, HeaderCommitLSN, "FFFFFFFF/FFFFFFFF"), 200, path+" with a position ahead")
	}
	e.want(e.do("GET", "/api/user/accounts", "", nil, HeaderCommitLSN, "garbage"), 401, "no token, a garbage position")
	e.want(e.do("GET", "/api/user/accounts", "not-a-token", nil, HeaderCommitLSN, "garbage"), 401, "a bad token, a garbage position")
	e.want(e.do("GET", "/api/user/accounts", u.Token, nil, HeaderCommitLSN, "garbage"), 400, "signed in, a garbage position")

	var now string
	if err := e.svc.DB().Get(&now, `SELECT pg_current_wal_insert_lsn()::text`); err != nil {
		t.Fatal(err)
	}
	e.want(e.do("GET", "/api/user/accounts", u.Token, nil, HeaderCommitLSN, now), 200, "the primary's own position")
	e.want(e.do("GET", "/api/user/accounts", u.Token, nil, HeaderCommitLSN, "0/0"), 200, "position zero")
	for _, ahead := range []string{"FFFFFFFF/FFFFFFFF", "FFFFFFFF/0"} {
		m := e.want(e.do("GET", "/api/user/accounts", u.Token, nil, HeaderCommitLSN, ahead), 400, "a position ahead of the primary").JSON(t)
		if m["code"] != "commit_position_ahead" || !strings.Contains(m["error"].(string), HeaderCommitLSN) {
			t.Fatalf("ahead: %v", m)
		}
	}

	// With a replica, a position ahead is refused without waiting for it.
	replicas, err := db.OpenReplicas([]string{e.url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replicas[0].Close() })
	r := db.NewRouter(e.svc.DB(), []*sqlx.DB{replicas[0]}, time.Second)
	e.svc.SetReadRouter(r)
	began := time.Now()
	e.want(e.do("GET", "/api/user/transactions/history", u.Token, nil, HeaderCommitLSN, "FFFFFFFF/FFFFFFFF"), 400, "ahead, with a replica")
	if took := time.Since(began); took >= time.Second || r.Fallbacks() != 0 || r.Waited() != 0 {
		t.Fatalf("a position ahead took %s, %d fallbacks, %d waits", took, r.Fallbacks(), r.Waited())
	}
	e.want(e.do("GET", "/healthz", "", nil, HeaderCommitLSN, "FFFFFFFF/FFFFFFFF"), 200, "healthz with a replica")
}
