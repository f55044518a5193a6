package server

// Fuzz targets: one per endpoint family, through the real HTTP stack
// (App().Test) on a real PostgreSQL database. Each drives every body field,
// query parameter, path id and header of its family with what the fuzzer
// makes of the seeds below, and fails on any 5xx or on an error answer that
// is not the JSON error shape. Without -fuzz, `go test` runs the seeds (and
// testdata/fuzz/<FuzzName>/) as ordinary tests; `make fuzz` fuzzes each
// target for FUZZTIME.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
	"meridian/pkg/testdb"
)

// fuzzEnv is one server on its own database with two customers (each
// with an account) and an admin, made through the services.
type fuzzEnv struct {
	srv                *Server
	svc                *bank.Service
	alice, bob, admin  fuzzUser
	aliceAcct, bobAcct fuzzAcct
}

type fuzzUser struct {
	id    int64
	token string
}

type fuzzAcct struct {
	id     int64
	number string
}

func newFuzzEnv(f *testing.F) *fuzzEnv {
	f.Helper()
	url := testdb.URL(f)
	conn, err := openDB(url)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { conn.Close() })
	tokens, _ := auth.NewTokens(testSecret, time.Hour)
	// The fuzzer signs in from several workers at once: a password check
	// waits for a free slot as long as it must instead of answering 503
	// busy, which this test would take for a failure.
	fe := &fuzzEnv{svc: bank.New(conn, tokens, bank.Settings{RequestsTTL: time.Hour, LookupPerMinute: 1000, PasswordCheckWait: time.Minute})}
	fe.srv = New(fe.svc, NewHub(fe.svc, quiet), Options{Logger: quiet, Version: "fuzz"})
	user := func(name, email string, role string) fuzzUser {
		actor := bank.Actor{}
		if role != "" {
			actor = bank.CLIActor
		}
		if _, err := fe.svc.Register(ctxBG, actor, bank.RegisterInput{FullName: name, Email: email, PhoneNumber: "+1 555 0100", Password: "password123", Role: role}); err != nil {
			f.Fatal(err)
		}
		res, err := fe.svc.Login(ctxBG, bank.LoginInput{Email: email, Password: "password123"})
		if err != nil {
			f.Fatal(err)
		}
		return fuzzUser{id: res.User.ID, token: res.Token}
	}
	fe.alice = user("Alice Fuzz", "alice@fuzz.test", "")
	fe.bob = user("Bob Fuzz", "bob@fuzz.test", "")
	fe.admin = user("Ada Fuzz", "ada@fuzz.test", bank.RoleAdmin)
	acct := func(u fuzzUser, number string) fuzzAcct {
		a, err := fe.svc.Authenticate(ctxBG, u.token)
		if err != nil {
			f.Fatal(err)
		}
		acc, err := fe.svc.CreateAccount(ctxBG, a, bank.AccountInput{AccountNumber: number, Balance: 1_000_000_00, AccountTypeID: 1})
		if err != nil {
			f.Fatal(err)
		}
		return fuzzAcct{id: acc.ID, number: acc.AccountNumber}
	}
	fe.aliceAcct = acct(fe.alice, "100200300")
	fe.bobAcct = acct(fe.bob, "200300400")
	return fe
}

// send makes one request and fails on a 5xx or on an error that is not
// {"error", "code"}. A header value that no HTTP client could send (a
// control byte) is left out: the HTTP parser refuses it before routing,
// which TestRawHeadersOverSocket covers.
func (fe *fuzzEnv) send(t *testing.T, method, target, token string, body []byte, headers ...string) int {
	t.Helper()
	u, err := url.ParseRequestURI(target)
	if err != nil {
		t.Fatalf("test bug: target %q: %v", target, err)
	}
	req := &http.Request{Method: method, URL: u, Host: "example.com", Header: http.Header{}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.Header.Set("Content-Type", "application/json")
	} else {
		req.Body = http.NoBody
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headerValueOK(headers[i+1]) {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	res, err := fe.srv.App().Test(req, fiber.TestConfig{Timeout: 30 * time.Second, FailOnTimeout: true})
	if err != nil {
		t.Fatalf("%s %s %q: %v", method, target, body, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 500 {
		t.Fatalf("%s %s %q %q: %d %s", method, target, body, headers, res.StatusCode, out)
	}
	if res.StatusCode >= 400 && method != http.MethodHead {
		var e struct{ Error, Code string }
		if json.Unmarshal(out, &e) != nil || e.Error == "" || e.Code == "" {
			t.Fatalf("%s %s %q: %d without the JSON error shape: %q", method, target, body, res.StatusCode, out)
		}
	}
	return res.StatusCode
}

func headerValueOK(v string) bool {
	for i := 0; i < len(v); i++ {
		if (v[i] < 0x20 && v[i] != '\t') || v[i] == 0x7f {
			return false
		}
	}
	return strings.TrimSpace(v) == v
}

// str writes s as a JSON string with its bytes as they are: control bytes,
// quotes and backslashes escaped (so the JSON stays well-formed), anything
// else, invalid UTF-8 included, left raw.
func str(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// val writes v as a raw JSON value when it is one (1e309, -1, null, [..]),
// or else as a string.
func val(v string) string {
	if v != "" && json.Valid([]byte(v)) {
		return v
	}
	return str(v)
}

// obj builds a JSON object from key, JSON text pairs.
func obj(kv ...string) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(str(kv[i]) + ":" + kv[i+1])
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// seg escapes a path segment; qs builds a query string.
func seg(v string) string { return url.PathEscape(v) }

func qs(kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q.Encode()
}

// Interesting values for every kind of field.
var (
	fuzzTexts   = []string{"", "Alice", "\x00", "a\x00b", "\xff", "\xff\xfe", "\xc3", "\u0085", "tab\tnew\nline", "\x1b[31m", "\ufeff", "\ud7ff\ue000", strings.Repeat("é", 101), strings.Repeat("a", 300), "100200300", "200300400", " 100200300 "}
	fuzzNumbers = []string{"", "1", "0", "-1", "1.5", "0.001", "1e309", "-1e309", "NaN", "9223372036854775807", "9223372036854775808", "99999999999999999999", "32767", "32768", `"12.50"`, "null", "[]", "{}", "true", `"\u0000"`}
	fuzzIDs     = []string{"1", "2", "0", "-1", "+1", "abc", "1e3", "9223372036854775807", "9223372036854775808", "99999999999999999999", "\x00", "\xff", " 1"}
	deepJSON    = strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
)

func FuzzAuth(f *testing.F) {
	fe := newFuzzEnv(f)
	f.Add("Eve Example", "eve@example.test", "+1 555 0100", "password123", "")
	f.Add("\x00", "a\x00@x.test", "\xff", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8", `{"email":"\u0000"}`)
	f.Add(strings.Repeat("é", 101), strings.Repeat("e", 250)+"@x.test", strings.Repeat("5", 33), strings.Repeat("p", 73), deepJSON)
	f.Add("tab\tname", "alice@fuzz.test", "+1 (555) 010-0000", "password123", `{"email":1e309,"password":[]}`)
	f.Add("Ünïcødé", "ALICE@FUZZ.TEST", "", "short", `null`)
	f.Fuzz(func(t *testing.T, name, email, phone, password, raw string) {
		fe.send(t, "POST", "/api/auth/register", "", obj("full_name", str(name), "email", str(email), "phone_number", str(phone), "password", str(password)))
		fe.send(t, "POST", "/api/auth/login", "", obj("email", str(email), "password", str(password)))
		fe.send(t, "POST", "/api/auth/login", "", []byte(raw))
		fe.send(t, "POST", "/api/user/password-reset", fe.bob.token, obj("old_password", str(password), "new_password", str(name)))
	})
}

func FuzzAccounts(f *testing.F) {
	fe := newFuzzEnv(f)
	for i, n := range fuzzNumbers {
		f.Add(fuzzTexts[i%len(fuzzTexts)], n, fuzzNumbers[(i+3)%len(fuzzNumbers)], fuzzNumbers[(i+7)%len(fuzzNumbers)], fuzzIDs[i%len(fuzzIDs)])
	}
	f.Add("NEW0000001", "10.00", "1", "", strconv.FormatInt(fe.aliceAcct.id, 10))
	f.Add("NEW0000002", "0", "3", strconv.FormatInt(fe.alice.id, 10), strconv.FormatInt(fe.alice.id, 10))
	f.Fuzz(func(t *testing.T, number, balance, typeID, userID, pathID string) {
		kv := []string{"account_number", str(number), "balance", val(balance), "account_type_id", val(typeID)}
		if userID != "" {
			kv = append(kv, "user_id", val(userID))
		}
		body := obj(kv...)
		fe.send(t, "POST", "/api/user/accounts", fe.alice.token, body)
		fe.send(t, "PUT", "/api/user/accounts/"+seg(pathID), fe.alice.token, body)
		fe.send(t, "GET", "/api/user/accounts/"+seg(pathID), fe.alice.token, nil)
		fe.send(t, "DELETE", "/api/user/accounts/"+seg(pathID), fe.bob.token, nil)
		fe.send(t, "GET", "/api/user/account-details?"+qs("account_number", number), fe.alice.token, nil)
	})
}

func FuzzTransfer(f *testing.F) {
	fe := newFuzzEnv(f)
	a, b := fe.aliceAcct.number, fe.bobAcct.number
	f.Add(a, b, "1.00", "Lunch", "", "key-1")
	f.Add(a, b, "1.00", "Lunch", "", "key-1") // a replay
	f.Add(a, b, "2.00", "Lunch", "", "key-1") // the key reused
	f.Add(a, a, "1", "", "", "")
	f.Add(a, "\x00", "1e309", "\x00", "-1", "\xff")
	f.Add("\xff", b, "-1", "rent\tMarch\nthanks", "99999999999999999999", strings.Repeat("k", 256))
	f.Add(a, b, "0.001", strings.Repeat("d", 256), "0", "key\x7f")
	f.Add(a, b, "NaN", "\u2028", strconv.FormatInt(fe.alice.id, 10), "key\tvalue")
	f.Add(b, a, `"12.50"`, "", strconv.FormatInt(fe.bob.id, 10), "ключ")
	f.Fuzz(func(t *testing.T, from, to, amount, desc, userID, key string) {
		kv := []string{"account_id", str(from), "to_account_id", str(to), "amount", val(amount), "description", str(desc)}
		if userID != "" {
			kv = append(kv, "user_id", val(userID))
		}
		var h []string
		if key != "" {
			h = []string{"Idempotency-Key", key}
		}
		fe.send(t, "POST", "/api/user/money-transfer", fe.alice.token, obj(kv...), h...)
		fe.send(t, "POST", "/api/user/money-transer", fe.alice.token, obj(kv...), h...)
	})
}

func FuzzMoneyRequest(f *testing.F) {
	fe := newFuzzEnv(f)
	a, b := fe.aliceAcct.number, fe.bobAcct.number
	f.Add(a, b, "5.00", "Dinner", "", "1")
	f.Add(a, a, "5.00", "", "", "0")
	f.Add("\x00", b, "1e309", "\x07", "-1", "-1")
	f.Add(a, "\xff\xfe", "-5", strings.Repeat("d", 300), "99999999999999999999", "99999999999999999999")
	f.Add(a, b, "0.001", "line\nbreak", strconv.FormatInt(fe.alice.id, 10), "abc")
	f.Fuzz(func(t *testing.T, requester, recipient, amount, desc, userID, pathID string) {
		kv := []string{"requester_id", str(requester), "recipient_id", str(recipient), "amount", val(amount), "description", str(desc)}
		if userID != "" {
			kv = append(kv, "user_id", val(userID))
		}
		fe.send(t, "POST", "/api/user/money-request", fe.alice.token, obj(kv...))
		fe.send(t, "GET", "/api/user/transactions/money-request?"+qs("user_id", userID), fe.bob.token, nil)
		fe.send(t, "PUT", "/api/user/accept-money-request/"+seg(pathID), fe.bob.token, nil)
		fe.send(t, "PUT", "/api/user/decline-money-request/"+seg(pathID), fe.bob.token, nil)
	})
}

func FuzzHistory(f *testing.F) {
	fe := newFuzzEnv(f)
	cursor := *bank.EncodeCursor(1 << 40)
	f.Add(fe.aliceAcct.number, "DEBIT", "10", "", "")
	f.Add("", "credit", "", cursor, strconv.FormatInt(fe.alice.id, 10))
	f.Add("\x00", "\x00", "0", "garbage", "-1")
	f.Add("\xff", "DEBIT\x00", "99999999999999999999", "aWQ6OTk5OTk5OTk5OTk5OTk5OTk5OTk5", "99999999999999999999")
	f.Add(strings.Repeat("9", 35), "", "-1", "aWQ6LTE", "abc")
	f.Add(fe.bobAcct.number, "", "1001", "\xff\xfe", "0")
	f.Fuzz(func(t *testing.T, account, typ, limit, before, userID string) {
		q := qs("account_id", account, "transaction_type", typ, "limit", limit, "before", before, "user_id", userID)
		fe.send(t, "GET", "/api/user/transactions/history?"+q, fe.alice.token, nil)
		fe.send(t, "GET", "/api/admin/transactions/history?"+q, fe.admin.token, nil)
	})
}

// FuzzStatement drives the statement's query string; a period is at most
// 366 days of a two-row account, so each input stays small.
func FuzzStatement(f *testing.F) {
	fe := newFuzzEnv(f)
	f.Add(fe.aliceAcct.number, "2026-01-01", "2026-12-31", "csv")
	f.Add(fe.aliceAcct.number, "1970-01-01", "1970-01-01", "PDF")
	f.Add(fe.bobAcct.number, "2026-02-01", "2026-01-01", "pdf")
	f.Add("\x00", "2026-02-30", "9999-12-31", "\x00")
	f.Add("\xff", "0000-01-01", "-2026-01-01", "xlsx")
	f.Add(strings.Repeat("9", 35), "2026-01-01T00:00:00Z", "", "csv ")
	f.Fuzz(func(t *testing.T, account, from, to, format string) {
		fe.send(t, "GET", "/api/user/statements?"+qs("account_id", account, "from", from, "to", to, "format", format), fe.alice.token, nil)
	})
}

func FuzzNotifications(f *testing.F) {
	fe := newFuzzEnv(f)
	f.Add("all", "10", "", "1")
	f.Add("requests", "", strconv.FormatInt(fe.alice.id, 10), "0")
	f.Add("\x00", "-1", "-1", "-1")
	f.Add("ALERTS", "99999999999999999999", "99999999999999999999", "99999999999999999999")
	f.Add("\xff", "abc", "abc", "\xff")
	f.Fuzz(func(t *testing.T, filter, limit, userID, pathID string) {
		fe.send(t, "GET", "/api/user/notifications?"+qs("filter", filter, "limit", limit, "user_id", userID), fe.alice.token, nil)
		fe.send(t, "PUT", "/api/user/notifications/"+seg(pathID)+"/read", fe.alice.token, nil)
		fe.send(t, "PUT", "/api/user/notifications/read-all", fe.alice.token, nil)
	})
}

func FuzzAdmin(f *testing.F) {
	fe := newFuzzEnv(f)
	bob := strconv.FormatInt(fe.bob.id, 10)
	f.Add(bob, "true", bob, `["User"]`, "10", "")
	f.Add(bob, "false", bob, `["Admin","User"]`, "", *bank.EncodeCursor(1 << 40))
	f.Add("0", "null", "-1", `["\u0000"]`, "0", "garbage")
	f.Add("99999999999999999999", `"yes"`, "99999999999999999999", `"Admin"`, "99999999999999999999", "aWQ6OTk5OTk5OTk5OTk5OTk5OTk5OTk5")
	f.Add("\xff", "1", "1e309", deepJSON, "-5", "\x00")
	f.Fuzz(func(t *testing.T, pathID, active, userID, roles, limit, before string) {
		fe.send(t, "PUT", "/api/admin/users/"+seg(pathID)+"/status", fe.admin.token, obj("is_active", val(active)))
		fe.send(t, "POST", "/api/admin/assign-roles", fe.admin.token, obj("user_id", val(userID), "roles", val(roles)))
		fe.send(t, "GET", "/api/admin/audit-logs?"+qs("limit", limit, "before", before), fe.admin.token, nil)
		fe.send(t, "GET", "/api/admin/users", fe.admin.token, nil)
		// Keep the fuzzing admin an active admin for the next input.
		if _, err := fe.svc.AssignRole(ctxBG, bank.CLIActor, fe.admin.id, []string{bank.RoleAdmin}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzRequest sends any method, path and body: every route, known or not,
// with or without a session, compressed or not.
func FuzzRequest(f *testing.F) {
	fe := newFuzzEnv(f)
	f.Add("POST", "/api/user/money-transfer", `{"account_id":"100200300","to_account_id":"200300400","amount":1}`, byte(1), "")
	f.Add("PROPFIND", "/api/auth/login", "", byte(0), "")
	f.Add("DELETE", "/api/user/accounts/99999999999999999999", "", byte(1), "")
	f.Add("PUT", "/api/admin/users/0/status", `{"is_active":true}`, byte(2), "")
	f.Add("GET", "/api/user/accounts/\x00", "", byte(1), "")
	f.Add("POST", "/api/auth/register", deepJSON, byte(0), "gzip")
	f.Add("PATCH", "/", "\xff\xfe", byte(2), "br")
	f.Add("GET", "/api/admin/audit-logs", "", byte(1), "")
	f.Fuzz(func(t *testing.T, method, path, body string, who byte, encoding string) {
		m := strings.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' {
				return r
			}
			return -1
		}, strings.ToUpper(method))
		if m == "" || len(m) > 16 {
			m = "GET"
		}
		token := []string{"", fe.alice.token, fe.admin.token}[int(who)%3]
		target := (&url.URL{Path: "/" + strings.TrimLeft(path, "/")}).RequestURI()
		var b []byte
		if body != "" {
			b = []byte(body)
		}
		fe.send(t, m, target, token, b, "Content-Encoding", encoding)
	})
}

// FuzzTwoFactorSessionsFunding drives the two-factor calls, ending a
// session and the bank's deposits and withdrawals.
func FuzzTwoFactorSessionsFunding(f *testing.F) {
	fe := newFuzzEnv(f)
	f.Add("challenge", "123456", "password123", "1", "100200300", "12.50", "Cash")
	f.Add("\x00", "abcde-fghjk", "\xff", "0", "bad number!", "1e309", "\x1b[31m")
	f.Add(strings.Repeat("c", 200), strings.Repeat("9", 40), strings.Repeat("p", 73), "99999999999999999999", strings.Repeat("1", 40), "-1", strings.Repeat("é", 300))
	f.Add("", " 12 34 56 ", "", "-1", "", `"0.001"`, "")
	f.Fuzz(func(t *testing.T, challenge, code, password, sessionID, number, amount, desc string) {
		fe.send(t, "POST", "/api/auth/2fa/verify", "", obj("challenge", str(challenge), "code", str(code)))
		fe.send(t, "POST", "/api/auth/2fa/verify", "", obj("challenge", val(challenge), "code", val(code)))
		fe.send(t, "POST", "/api/auth/2fa/setup", fe.alice.token, nil)
		fe.send(t, "POST", "/api/auth/2fa/enable", fe.alice.token, obj("code", val(code)))
		fe.send(t, "POST", "/api/auth/2fa/disable", fe.alice.token, obj("password", str(password), "code", str(code)))
		fe.send(t, "GET", "/api/auth/2fa", fe.alice.token, nil)
		fe.send(t, "DELETE", "/api/auth/sessions/"+seg(sessionID), fe.bob.token, nil)
		fe.send(t, "GET", "/api/auth/sessions", fe.alice.token, nil)
		fe.send(t, "POST", "/api/admin/accounts/"+seg(number)+"/deposit", fe.admin.token, obj("amount", val(amount), "description", str(desc)))
		fe.send(t, "POST", "/api/admin/accounts/"+seg(number)+"/withdraw", fe.admin.token, obj("amount", val(amount), "description", str(desc)))
	})
}

// FuzzPayeesLimits drives the payees, the daily limits (the customer's view
// and an admin's PUT) and the commit-position header any request may carry.
func FuzzPayeesLimits(f *testing.F) {
	fe := newFuzzEnv(f)
	bob := strconv.FormatInt(fe.bob.id, 10)
	f.Add("Bob", fe.bobAcct.number, "1", bob, "500.00", "0/16B3748")
	f.Add("", fe.aliceAcct.number, "0", "0", "null", "")
	f.Add("\x00", "bad number!", "-1", "-1", "-1", "16/")
	f.Add(strings.Repeat("é", 300), strings.Repeat("1", 40), "99999999999999999999", "99999999999999999999", "1e309", "FFFFFFFFF/0")
	f.Add("\xff", "\x1b[31m", "x", "\xff", `"0.001"`, "\x7f")
	f.Fuzz(func(t *testing.T, nickname, number, payeeID, userID, limit, lsn string) {
		fe.send(t, "POST", "/api/user/payees", fe.alice.token, obj("nickname", str(nickname), "account_number", str(number)))
		fe.send(t, "POST", "/api/user/payees", fe.alice.token, obj("nickname", val(nickname), "account_number", val(number)))
		fe.send(t, "GET", "/api/user/payees", fe.alice.token, nil, "X-Meridian-Commit-LSN", lsn)
		fe.send(t, "DELETE", "/api/user/payees/"+seg(payeeID), fe.alice.token, nil)
		fe.send(t, "GET", "/api/user/limits", fe.alice.token, nil, "X-Meridian-Commit-LSN", lsn)
		fe.send(t, "PUT", "/api/admin/users/"+seg(userID)+"/limits", fe.admin.token, obj("daily_transfer_limit", val(limit)))
		fe.send(t, "PUT", "/api/admin/users/"+seg(userID)+"/limits", fe.admin.token, obj("daily_transfer_limit", str(limit)))
	})
}
