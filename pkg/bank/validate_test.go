package bank

import (
	"strings"
	"testing"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

func TestCheckText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		v         string
		max       int
		multiline bool
		ok        bool
	}{
		{"Alice Example", 100, false, true},
		{"Zoë Ådne 山田", 100, false, true},
		{"a\x00b", 100, false, false},                // NUL: PostgreSQL refuses it
		{"a\xffb", 100, false, false},                // not UTF-8: PostgreSQL refuses it
		{"\xc3", 100, false, false},                  // a cut multi-byte character
		{"a\x01b", 100, false, false},                // other C0 controls
		{"a\x7fb", 100, false, false},                // DEL
		{"a\u0085b", 100, false, false},              // C1 control (NEL)
		{"a\tb", 100, false, false},                  // tab: only in a description
		{"a\nb", 100, false, false},                  // newline: only in a description
		{"a\tb\nc", 100, true, true},                 // ... where both are fine
		{"a\rb", 100, true, false},                   // but not a carriage return
		{strings.Repeat("é", 100), 100, false, true}, // characters, not bytes
		{strings.Repeat("é", 101), 100, false, false},
	}
	for _, c := range cases {
		err := checkText("f", c.v, c.max, c.multiline)
		if (err == nil) != c.ok {
			t.Errorf("checkText(%q, %d, %v) = %v, want ok=%v", c.v, c.max, c.multiline, err, c.ok)
		}
		if err != nil && (errs.KindOf(err) != errs.Invalid || errs.As(err).Fields["f"] == "") {
			t.Errorf("checkText(%q): %v is not a 400 naming the field", c.v, err)
		}
	}
}

func TestCleanTrimsAndCounts(t *testing.T) {
	t.Parallel()
	if v, err := clean("full_name", "  Ivy  ", 3, true); err != nil || v != "Ivy" {
		t.Fatalf("clean: %q %v", v, err)
	}
	if _, err := clean("full_name", "   ", 3, true); err == nil {
		t.Fatal("blank accepted as required")
	}
	if _, err := clean("email", "a@b.test\n", MaxEmailLen, false); err == nil {
		t.Fatal("a trailing newline is a control character, not space to trim")
	}
	if v, err := cleanDescription(" Rent\tMarch\nthanks "); err != nil || v != "Rent\tMarch\nthanks" {
		t.Fatalf("description: %q %v", v, err)
	}
	if _, err := cleanDescription(strings.Repeat("x", MaxDescriptionLen+1)); err == nil {
		t.Fatal("256-character description accepted")
	}
	if _, err := cleanDescription("a\x00"); err == nil {
		t.Fatal("NUL in a description accepted")
	}
}

func TestPasswordRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p     string
		isNew bool
		ok    bool
	}{
		{"password123", true, true},
		{"short", true, false},
		{strings.Repeat("a", 72), true, true},
		{strings.Repeat("a", 73), true, false}, // bcrypt would cut it silently
		{strings.Repeat("é", 37), true, false}, // 74 bytes, 37 characters
		{"pass\x00word123", true, false},
		{strings.Repeat("a", 73), false, false}, // sign-in too
		{"short", false, true},                  // a short sign-in password is only wrong
		{"pass\xffword123", false, false},
	} {
		var err error
		if c.isNew {
			err = checkPassword("password", c.p)
		} else {
			err = checkPasswordInput("password", c.p)
		}
		if (err == nil) != c.ok {
			t.Errorf("password %q (new %v): %v, want ok=%v", c.p, c.isNew, err, c.ok)
		}
	}
}

func TestParseID(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int64{"1": 1, "42": 42, "9223372036854775807": 1<<63 - 1} {
		if id, err := ParseID("id", v); err != nil || id != want {
			t.Errorf("ParseID(%q) = %d, %v", v, id, err)
		}
	}
	for _, v := range []string{"", "0", "-1", "+1", " 1", "1 ", "1e3", "0x10", "9223372036854775808", "99999999999999999999", "1.0", "１", "1\x00"} {
		if _, err := ParseID("user_id", v); errs.KindOf(err) != errs.Invalid {
			t.Errorf("ParseID(%q): %v, want 400", v, err)
		}
		if _, err := ParsePathID(v); errs.KindOf(err) != errs.NotFound {
			t.Errorf("ParsePathID(%q): %v, want 404", v, err)
		}
	}
}

func TestAccountTypeIDRange(t *testing.T) {
	t.Parallel()
	for _, id := range []int{0, -1, MaxSmallint + 1, 1 << 40} {
		if err := checkAccountTypeID(id); errs.KindOf(err) != errs.Invalid {
			t.Errorf("account_type_id %d: %v", id, err)
		}
	}
	if err := checkAccountTypeID(MaxSmallint); err != nil {
		t.Fatal(err)
	}
}

// TestHostileInputsNeverReachTheDatabase drives each service method with
// bytes PostgreSQL refuses: each must answer 400 (or 404 for an id), never
// an internal error.
func TestHostileInputsNeverReachTheDatabase(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Hostile")
	admin := newAdmin(t, s)
	acc := openAccount(t, s, alice, "100.00")
	one := money.Amount(100)
	bad := []string{"\x00", "ab\x00cdefg", "\xff\xfe", "ACC\xc3", "ACC\x01DEF"}
	check := func(what string, err error, kind errs.Kind) {
		t.Helper()
		if errs.KindOf(err) != kind {
			t.Errorf("%s: %v, want kind %d", what, err, kind)
		}
	}
	for _, v := range bad {
		_, err := s.Login(ctx, LoginInput{Email: v + "@example.test", Password: testPassword})
		check("login email "+v, err, errs.Invalid)
		_, err = s.LookupAccount(ctx, alice, v)
		check("lookup "+v, err, errs.Invalid)
		_, _, err = s.History(ctx, alice, HistoryQuery{AccountNumber: v})
		check("history "+v, err, errs.Invalid)
		_, _, err = s.AdminHistory(ctx, admin, HistoryQuery{AccountNumber: v})
		check("admin history "+v, err, errs.Invalid)
		_, err = s.Transfer(ctx, alice, TransferInput{AccountID: acc.AccountNumber, ToAccountID: v, Amount: one}, "")
		check("transfer to "+v, err, errs.Invalid)
		_, err = s.Transfer(ctx, alice, TransferInput{AccountID: v, ToAccountID: acc.AccountNumber, Amount: one}, "")
		check("transfer from "+v, err, errs.Invalid)
		_, err = s.CreateMoneyRequest(ctx, alice, MoneyRequestInput{RequesterID: acc.AccountNumber, RecipientID: v, Amount: one})
		check("request from "+v, err, errs.Invalid)
		_, err = s.Register(ctx, Actor{}, RegisterInput{FullName: "Eve " + v, Email: "eve@example.test", PhoneNumber: "+1 555 0100", Password: testPassword})
		check("register name "+v, err, errs.Invalid)
		_, err = s.FindUser(ctx, v)
		check("find user "+v, err, errs.Invalid)
	}
	for _, v := range []string{strings.Repeat("9", MaxAccountNumberLen+1), ""} {
		_, err := s.LookupAccount(ctx, alice, v)
		check("lookup "+v, err, errs.Invalid)
		_, err = s.Transfer(ctx, alice, TransferInput{AccountID: acc.AccountNumber, ToAccountID: v, Amount: one}, "")
		check("transfer to "+v, err, errs.Invalid)
		_, err = s.CreateMoneyRequest(ctx, alice, MoneyRequestInput{RequesterID: acc.AccountNumber, RecipientID: v, Amount: one})
		check("request from "+v, err, errs.Invalid)
	}
	_, _, err := s.History(ctx, alice, HistoryQuery{AccountNumber: strings.Repeat("9", MaxAccountNumberLen+1)})
	check("history of a 35-character number", err, errs.Invalid)
	for _, key := range []string{"k\x00", "k\xff", "k\ty", strings.Repeat("k", MaxIdempotencyKeyLen+1)} {
		_, err := s.Transfer(ctx, alice, TransferInput{AccountID: acc.AccountNumber, ToAccountID: "ZZZ999999", Amount: one}, key)
		check("Idempotency-Key "+key, err, errs.Invalid)
	}
	for _, d := range []string{"lunch\x00", "lunch\xff", "lunch\x1b[31m", strings.Repeat("d", 256)} {
		_, err := s.Transfer(ctx, alice, TransferInput{AccountID: acc.AccountNumber, ToAccountID: "ZZZ999999", Amount: one, Description: d}, "")
		check("description "+d, err, errs.Invalid)
	}
	for _, id := range []int{MaxSmallint + 1, 1 << 40, -3} {
		_, err := s.CreateAccount(ctx, alice, AccountInput{AccountNumber: "TYPE000001", Balance: 0, AccountTypeID: id})
		check("account_type_id", err, errs.Invalid)
	}
	neg := int64(-1)
	_, err = s.ListMoneyRequests(ctx, alice, &neg)
	check("user_id -1", err, errs.Invalid)
	_, err = s.Login(ctx, LoginInput{Email: alice.FullName + "@x.test", Password: strings.Repeat("p", 73)})
	check("login with a 73-byte password", err, errs.Invalid)
	_, err = s.Login(ctx, LoginInput{Email: strings.Repeat("e", 250) + "@x.test", Password: testPassword})
	check("login with a 257-character email", err, errs.Invalid)
	check("reset with a 73-byte old password", s.ResetPassword(ctx, alice, strings.Repeat("p", 73), "password456"), errs.Invalid)
	for _, id := range []int64{0, -1} {
		check("close account", s.CloseAccount(ctx, alice, id), errs.NotFound)
		_, err = s.AcceptMoneyRequest(ctx, alice, id, "")
		check("accept request", err, errs.NotFound)
		check("read notification", s.MarkNotificationRead(ctx, alice, id), errs.NotFound)
		_, err = s.SetUserActive(ctx, admin, id, true)
		check("set user active", err, errs.NotFound)
	}

	// A cursor of an id past int4 pages the audit log instead of failing.
	rows, _, err := s.AuditLogs(ctx, admin, Page{Before: *EncodeCursor(1 << 40)})
	if err != nil || len(rows) == 0 {
		t.Fatalf("audit page before a big id: %d rows, %v", len(rows), err)
	}
	rows2, _, err := s.AuditLogs(ctx, admin, Page{Before: *EncodeCursor(rows[0].ID)})
	if err != nil || len(rows2) != len(rows)-1 {
		t.Fatalf("audit page before the newest: %d rows, %v", len(rows2), err)
	}
}
