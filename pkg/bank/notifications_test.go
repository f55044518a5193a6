package bank

import (
	"strings"
	"testing"
	"time"

	"meridian/pkg/errs"
)

func TestNotifications(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "100.00", "100.00")
	s := f.s
	// Alice gets: a transfer, a request, then (as requester) a decline and an expiry.
	if _, err := s.Transfer(ctx, f.bob, TransferInput{AccountID: f.bobAcc.AccountNumber, ToAccountID: f.aliceAcc.AccountNumber, Amount: 500}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateMoneyRequest(ctx, f.bob, MoneyRequestInput{RequesterID: f.bobAcc.AccountNumber, RecipientID: f.aliceAcc.AccountNumber, Amount: 700}); err != nil {
		t.Fatal(err)
	}
	declined := f.aliceAsksBob(t, "1.00")
	if _, err := s.DeclineMoneyRequest(ctx, f.bob, declined.ID); err != nil {
		t.Fatal(err)
	}
	f.aliceAsksBob(t, "2.00")
	f.clock.add(2 * time.Hour)
	if _, err := s.ExpireMoneyRequests(ctx); err != nil {
		t.Fatal(err)
	}

	list := func(a Actor, filter string, limit int) []Notification {
		t.Helper()
		out, err := s.ListNotifications(ctx, a, nil, filter, limit)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := list(f.alice, "", 0)
	if len(all) < 4 {
		t.Fatalf("alice's notifications %+v", all)
	}
	for i, n := range all {
		if !n.IsNew || n.CreatedAt.IsZero() || (i > 0 && n.ID > all[i-1].ID) {
			t.Fatalf("not newest first, or not new: %+v", all)
		}
	}
	if got := list(f.alice, "all", 0); len(got) != len(all) {
		t.Fatalf("filter all: %d; want %d", len(got), len(all))
	}
	requests := list(f.alice, "requests", 0)
	alerts := list(f.alice, "Alerts", 0)
	for _, n := range requests {
		if !strings.Contains(strings.ToLower(n.Message), "request") {
			t.Fatalf("requests filter gave %q", n.Message)
		}
	}
	for _, n := range alerts {
		if !strings.Contains(n.Message, "expired") && !strings.Contains(n.Message, "declined") {
			t.Fatalf("alerts filter gave %q", n.Message)
		}
	}
	// received (not a request), requested, declined, expired; the rest are alice's own.
	if len(requests) != 3 || len(alerts) != 2 {
		t.Fatalf("requests %+v, alerts %+v", requests, alerts)
	}
	if got := list(f.alice, "", 2); len(got) != 2 || got[0].ID != all[0].ID {
		t.Fatalf("limit 2: %+v", got)
	}
	for _, bad := range []struct {
		filter string
		limit  int
	}{{"unknown", 0}, {"", -1}, {"", 1001}} {
		_, err := s.ListNotifications(ctx, f.alice, nil, bad.filter, bad.limit)
		wantKind(t, err, errs.Invalid, "invalid_input")
	}
	// A user_id sent along must be the caller's own.
	own, bobID, zero := f.alice.UserID, f.bob.UserID, int64(0)
	if got, err := s.ListNotifications(ctx, f.alice, &own, "", 0); err != nil || len(got) != len(all) {
		t.Fatalf("own user_id: %d, %v", len(got), err)
	}
	_, err := s.ListNotifications(ctx, f.alice, &bobID, "", 0)
	wantKind(t, err, errs.Forbidden, "")
	_, err = s.ListNotifications(ctx, f.alice, &zero, "", 0)
	wantKind(t, err, errs.Invalid, "invalid_input")

	// Reading one; someone else's or a missing one is 404 and changes nothing.
	target := all[1]
	if err := s.MarkNotificationRead(ctx, f.alice, target.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkNotificationRead(ctx, f.alice, target.ID); err != nil {
		t.Fatalf("marking read twice: %v", err)
	}
	bobs := list(f.bob, "", 0)
	if len(bobs) == 0 {
		t.Fatal("bob has no notifications")
	}
	wantKind(t, s.MarkNotificationRead(ctx, f.alice, bobs[0].ID), errs.NotFound, "notification_not_found")
	wantKind(t, s.MarkNotificationRead(ctx, f.alice, all[0].ID+1000), errs.NotFound, "notification_not_found")
	for _, n := range list(f.alice, "", 0) {
		if n.IsNew == (n.ID == target.ID) {
			t.Fatalf("after reading %d: %+v", target.ID, n)
		}
	}
	if !list(f.bob, "", 0)[0].IsNew {
		t.Fatal("alice read bob's notification")
	}

	// Read all: alice's only.
	if err := s.MarkAllNotificationsRead(ctx, f.alice); err != nil {
		t.Fatal(err)
	}
	for _, n := range list(f.alice, "", 0) {
		if n.IsNew {
			t.Fatalf("still new: %+v", n)
		}
	}
	for _, n := range list(f.bob, "", 0) {
		if !n.IsNew {
			t.Fatalf("bob's notification read by alice's read-all: %+v", n)
		}
	}

	// Any signed-in user, admins too, has a (here empty) list.
	admin := newAdmin(t, s)
	if got := list(admin, "", 0); len(got) != 0 || got == nil {
		t.Fatalf("admin's notifications %#v", got)
	}
	wantKind(t, s.MarkNotificationRead(ctx, admin, bobs[0].ID), errs.NotFound, "")
}
