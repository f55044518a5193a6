package bank

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/pkg/errs"
)

func TestAdminOnly(t *testing.T) {
	t.Parallel()
	s := newService(t)
	c := newCustomer(t, s, "Carl Cust")
	_, err := s.ListUsers(ctx, c)
	wantKind(t, err, errs.Forbidden, "admin_only")
	_, err = s.SetUserActive(ctx, c, c.UserID, false)
	wantKind(t, err, errs.Forbidden, "admin_only")
	_, err = s.AssignRole(ctx, c, c.UserID, []string{RoleAdmin})
	wantKind(t, err, errs.Forbidden, "admin_only")
	_, _, err = s.AuditLogs(ctx, c, Page{})
	wantKind(t, err, errs.Forbidden, "admin_only")
	_, err = s.AllAccounts(ctx, c)
	wantKind(t, err, errs.Forbidden, "admin_only")
	if me, _ := s.Me(ctx, c); me.Role != RoleUser {
		t.Fatal("a refused role change changed the role")
	}
}

func TestUserStatus(t *testing.T) {
	t.Parallel()
	s := newService(t)
	adm := newAdmin(t, s)
	c := newCustomer(t, s, "Dora Deer")

	rows, err := s.ListUsers(ctx, adm)
	if err != nil || len(rows) != 2 || rows[0].ID != c.UserID || rows[0].Name != "Dora Deer" || !rows[0].Status {
		t.Fatalf("list: %+v %v", rows, err)
	}
	row, err := s.SetUserActive(ctx, adm, c.UserID, false)
	if err != nil || row.Status {
		t.Fatalf("deactivate: %+v %v", row, err)
	}
	_, err = s.Authenticate(ctx, "x")
	wantKind(t, err, errs.Unauthorized, "")
	_, err = s.SetUserActive(ctx, adm, adm.UserID, false)
	wantKind(t, err, errs.Unprocessable, "self_deactivation")
	_, err = s.SetUserActive(ctx, adm, 99999, true)
	wantKind(t, err, errs.NotFound, "user_not_found")
	// The last active admin cannot be deactivated, even from the CLI.
	_, err = s.SetUserActive(ctx, CLIActor, adm.UserID, false)
	wantKind(t, err, errs.Unprocessable, "last_admin")
	if n := auditCount(t, s, "USER_STATUS"); n != 1 {
		t.Fatalf("USER_STATUS rows %d", n)
	}
	if _, err := s.SetUserActive(ctx, CLIActor, c.UserID, true); err != nil {
		t.Fatal(err)
	}
	var desc string
	s.db.Get(&desc, `SELECT description FROM audit_log WHERE action_type = 'USER_STATUS' ORDER BY id DESC LIMIT 1`)
	if desc == "" || desc[len(desc)-len("(via CLI)"):] != "(via CLI)" {
		t.Fatalf("CLI action not marked in the audit log: %q", desc)
	}
}

func TestAssignRole(t *testing.T) {
	t.Parallel()
	s := newService(t)
	adm := newAdmin(t, s) // made an Admin by set_user_role: one ROLE_ASSIGN row
	c := newCustomer(t, s, "Eli Fox")
	for _, roles := range [][]string{nil, {}, {"Root"}, {RoleAdmin, RoleUser}, {"admin"}} {
		_, err := s.AssignRole(ctx, adm, c.UserID, roles)
		wantKind(t, err, errs.Invalid, "")
	}
	row, err := s.AssignRole(ctx, adm, c.UserID, []string{RoleAdmin})
	if err != nil || row.Role != RoleAdmin {
		t.Fatalf("assign: %+v %v", row, err)
	}
	// Two admins now: one may step down, but the last one may not.
	if _, err := s.AssignRole(ctx, adm, adm.UserID, []string{RoleUser}); err != nil {
		t.Fatal(err)
	}
	_, err = s.AssignRole(ctx, CLIActor, c.UserID, []string{RoleUser})
	wantKind(t, err, errs.Unprocessable, "last_admin")
	if n := auditCount(t, s, "ROLE_ASSIGN"); n != 3 {
		t.Fatalf("ROLE_ASSIGN rows %d", n)
	}
	_, err = s.AssignRole(ctx, CLIActor, 424242, []string{RoleUser})
	wantKind(t, err, errs.NotFound, "")
}

func TestAuditLogPagingAndAppendOnly(t *testing.T) {
	t.Parallel()
	s := newService(t)
	adm := newAdmin(t, s)
	for i := 0; i < 5; i++ {
		newCustomer(t, s, "Page Person")
	}
	var total int
	s.db.Get(&total, `SELECT count(*) FROM audit_log`)
	seen := map[int64]bool{}
	var before string
	for pages := 0; ; pages++ {
		rows, next, err := s.AuditLogs(ctx, adm, Page{Limit: 3, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			if seen[r.ID] || (i > 0 && r.ID > rows[i-1].ID) {
				t.Fatalf("page order broken at %d", r.ID)
			}
			seen[r.ID] = true
		}
		if next == nil {
			break
		}
		before = *next
		if pages > 20 {
			t.Fatal("paging does not end")
		}
	}
	if len(seen) != total {
		t.Fatalf("paged %d of %d rows", len(seen), total)
	}
	rows, _, _ := s.AuditLogs(ctx, adm, Page{Limit: 1})
	if rows[0].FullName == "" || rows[0].ActionType != "LOGIN" {
		t.Fatalf("newest row: %+v", rows[0])
	}
	for _, bad := range []Page{{Limit: -1}, {Limit: 1001}, {Before: "not-a-cursor"}, {Before: "aWQ6LTE"}} {
		_, _, err := s.AuditLogs(ctx, adm, bad)
		wantKind(t, err, errs.Invalid, "")
	}
	for _, q := range []string{`UPDATE audit_log SET description = 'x'`, `DELETE FROM audit_log`, `TRUNCATE audit_log`} {
		if _, err := s.db.Exec(q); err == nil {
			t.Fatalf("%s was allowed", q)
		}
	}
	var after int
	s.db.Get(&after, `SELECT count(*) FROM audit_log WHERE description <> 'x'`)
	if after != total {
		t.Fatal("audit log changed")
	}
}

// Deactivating revokes every token; reactivating does not bring them back;
// a role change keeps the session.
func TestDeactivationEndsSessionsForGood(t *testing.T) {
	t.Parallel()
	s := newService(t)
	adm := newAdmin(t, s)
	c := newCustomer(t, s, "Vic Void")
	u, _ := s.Me(ctx, c)
	second, err := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetUserActive(ctx, adm, c.UserID, false); err != nil {
		t.Fatal(err)
	}
	var live int
	s.db.Get(&live, `SELECT count(*) FROM auth_tokens WHERE user_id = $1 AND revoked_at IS NULL`, c.UserID)
	if live != 0 {
		t.Fatalf("%d tokens still live after deactivation", live)
	}
	if _, err := s.SetUserActive(ctx, CLIActor, c.UserID, true); err != nil {
		t.Fatal(err)
	}
	_, err = s.Authenticate(ctx, second.Token)
	wantKind(t, err, errs.Unauthorized, "invalid_token")
	// Nothing brings a revoked token back, not even SQL.
	if _, err := s.db.Exec(`UPDATE auth_tokens SET revoked_at = NULL WHERE user_id = $1`, c.UserID); err == nil {
		t.Fatal("a revoked token was un-revoked")
	}
	// The user signs in again; a role change keeps that session, with the new role.
	fresh, err := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword})
	if err != nil {
		t.Fatalf("sign-in after reactivation: %v", err)
	}
	if _, err := s.AssignRole(ctx, adm, c.UserID, []string{RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Authenticate(ctx, fresh.Token)
	if err != nil || got.Role != RoleAdmin {
		t.Fatalf("after a role change: %+v %v", got, err)
	}
	_, err = s.Authenticate(ctx, second.Token)
	wantKind(t, err, errs.Unauthorized, "invalid_token")
}

// A customer whose open accounts hold money, or who has a pending money
// request, cannot be promoted to Admin; once every account is empty (or
// closed) and nothing is pending, they can, empty open accounts and all.
func TestAssignRoleRefusesHeldMoney(t *testing.T) {
	t.Parallel()
	s := newService(t)
	clock := fixClock(s, time.Now().UTC().Truncate(time.Second))
	adm := newAdmin(t, s)
	c := newCustomer(t, s, "Gus Hold")
	other := newCustomer(t, s, "Hal Peer")
	acc := openAccount(t, s, c, "10.00")
	peer := openAccount(t, s, other, "10.00")
	refused := func(when string) {
		t.Helper()
		before := auditCount(t, s, "ROLE_ASSIGN")
		_, err := s.AssignRole(ctx, adm, c.UserID, []string{RoleAdmin})
		wantKind(t, err, errs.Unprocessable, "customer_has_accounts")
		if errs.As(err).Message != "Close or empty this customer's accounts first" {
			t.Fatalf("%s: %q", when, errs.As(err).Message)
		}
		u, _ := s.getUser(ctx, s.db, c.UserID)
		if u.Role != RoleUser || auditCount(t, s, "ROLE_ASSIGN") != before {
			t.Fatalf("%s: a refused promotion changed the role (%s) or was audited", when, u.Role)
		}
	}
	refused("a balance")
	// Emptied, but asked to pay a request: still refused.
	if _, err := s.Transfer(ctx, c, TransferInput{AccountID: acc.AccountNumber, ToAccountID: peer.AccountNumber, Amount: amt(t, "10.00")}, ""); err != nil {
		t.Fatal(err)
	}
	in, err := s.CreateMoneyRequest(ctx, other, MoneyRequestInput{RequesterID: peer.AccountNumber, RecipientID: acc.AccountNumber, Amount: 100})
	if err != nil {
		t.Fatal(err)
	}
	refused("an incoming request")
	if _, err := s.DeclineMoneyRequest(ctx, c, in.ID); err != nil {
		t.Fatal(err)
	}
	// Waiting to be paid: refused too.
	_, err = s.CreateMoneyRequest(ctx, c, MoneyRequestInput{RequesterID: acc.AccountNumber, RecipientID: peer.AccountNumber, Amount: 100})
	if err != nil {
		t.Fatal(err)
	}
	refused("an outgoing request")
	// Past its expiry, the request can no longer move money.
	clock.add(2 * time.Hour)
	row, err := s.AssignRole(ctx, adm, c.UserID, []string{RoleAdmin})
	if err != nil || row.Role != RoleAdmin {
		t.Fatalf("promotion with an empty open account: %+v %v", row, err)
	}
	// Demoting and promoting an admin back is not about money.
	if _, err := s.AssignRole(ctx, adm, c.UserID, []string{RoleUser}); err != nil {
		t.Fatal(err)
	}
}

// A transfer in flight into the customer's account makes the promotion
// wait, and then see the money: the check reads locked, current balances.
// The transfer's steps run in its order (the balance, then the ledger row,
// which locks the user row through its foreign key) without a deadlock.
func TestAssignRoleWaitsForMoneyInFlight(t *testing.T) {
	t.Parallel()
	s := newService(t)
	adm := newAdmin(t, s)
	c := newCustomer(t, s, "Ina Wait")
	acc := openAccount(t, s, c, "0")
	tx, err := s.db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`UPDATE accounts SET balance = balance + 5 WHERE id = $1`, acc.ID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.AssignRole(ctx, adm, c.UserID, []string{RoleAdmin})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the promotion did not wait for the transfer in flight: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := tx.Exec(`INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description)
		VALUES ($1, $2, 'CREDIT', 'adjustment', 5, $1, $1, 'in flight')`, acc.ID, c.UserID); err != nil {
		t.Fatalf("the transfer's ledger row: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wantKind(t, <-done, errs.Unprocessable, "customer_has_accounts")
}

// The four-worker flip of issue 20: four workers flip four account-less
// users between Admin and User for 15 s while admin 1 stays an active
// admin throughout. No flip may be refused as last_admin (43 of 3,721
// were: the admins were counted in the statement's snapshot, the target
// read in its latest version), and every flip is done.
func TestLastAdminFlipHasNoFalseRefusal(t *testing.T) {
	t.Parallel()
	s := newService(t)
	adm := newAdmin(t, s)
	var users []int64
	for i := range 4 {
		users = append(users, newCustomer(t, s, fmt.Sprintf("Flip%d Flop", i)).UserID)
	}
	stop := time.Now().Add(15 * time.Second)
	var done, refused atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 20))
			for time.Now().Before(stop) && !t.Failed() {
				role := RoleAdmin
				if rng.IntN(2) == 0 {
					role = RoleUser
				}
				_, err := s.AssignRole(ctx, adm, users[rng.IntN(len(users))], []string{role})
				switch e := errs.As(err); {
				case err == nil:
					done.Add(1)
				case e.Code == "last_admin":
					refused.Add(1)
				default:
					t.Errorf("flip: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if n := refused.Load(); n != 0 {
		t.Fatalf("%d of %d flips refused as last_admin while admin %d was active throughout", n, n+done.Load(), adm.UserID)
	}
	var admins int
	if err := s.db.Get(&admins, `SELECT count(*) FROM users WHERE role_id = 2 AND is_active`); err != nil || admins < 1 {
		t.Fatalf("%d active admins (%v)", admins, err)
	}
	t.Logf("%d flips, none refused", done.Load())
}

// Never zero active admins: four admins, and in each round four workers
// at once each remove a different one (two demote, two deactivate).
// Exactly one is refused as last_admin and one active admin is left.
func TestLastAdminNeverZeroUnderRaces(t *testing.T) {
	t.Parallel()
	s := newService(t)
	var admins []int64
	for range 4 {
		admins = append(admins, newAdmin(t, s).UserID)
	}
	for round := range 25 {
		for _, id := range admins {
			if _, err := s.SetUserActive(ctx, CLIActor, id, true); err != nil {
				t.Fatal(err)
			}
			if _, err := s.AssignRole(ctx, CLIActor, id, []string{RoleAdmin}); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		var refused atomic.Int64
		start := make(chan struct{})
		for i, id := range admins {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				var err error
				if i%2 == 0 {
					_, err = s.AssignRole(ctx, CLIActor, id, []string{RoleUser})
				} else {
					_, err = s.SetUserActive(ctx, CLIActor, id, false)
				}
				if errs.As(err).Code == "last_admin" {
					refused.Add(1)
				} else if err != nil {
					t.Errorf("round %d: %v", round, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		var left int
		if err := s.db.Get(&left, `SELECT count(*) FROM users WHERE role_id = 2 AND is_active`); err != nil {
			t.Fatal(err)
		}
		if left != 1 || refused.Load() != 1 {
			t.Fatalf("round %d: %d active admins left, %d refused; want 1 and 1", round, left, refused.Load())
		}
	}
}

// An admin made while the check waited counts: admin A is being demoted by
// another transaction when X is demoted (X's check waits for A's row), and
// W is made an admin (committed) before A's demotion commits. The first
// locking statement no longer sees A as an admin and never saw W: only the
// count taken again finds W, so demoting X goes through and W is left.
func TestLastAdminCountsAdminMadeWhileWaiting(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a, x := newAdmin(t, s), newAdmin(t, s)
	w := newCustomer(t, s, "Wes Waiting")
	other, err := s.db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback()
	if _, err := other.Exec(`UPDATE users SET role_id = 1 WHERE id = $1`, a.UserID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.AssignRole(ctx, CLIActor, x.UserID, []string{RoleUser})
		done <- err
	}()
	for waiting := 0; waiting == 0; time.Sleep(5 * time.Millisecond) {
		if err := s.db.Get(&waiting, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.Exec(`UPDATE users SET role_id = 2 WHERE id = $1`, w.UserID); err != nil {
		t.Fatal(err)
	}
	if err := other.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("demoting X while W is an active admin: %v", err)
	}
	var admins []int64
	if err := s.db.Select(&admins, `SELECT id FROM users WHERE role_id = 2 AND is_active ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if len(admins) != 1 || admins[0] != w.UserID {
		t.Fatalf("active admins %v; want only W (%d)", admins, w.UserID)
	}
}
