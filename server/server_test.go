package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/gofiber/fiber/v3"
	"github.com/jmoiron/sqlx"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
	"meridian/pkg/money"
	"meridian/pkg/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// testEnv is a server on a fresh database, driven through App().Test.
type testEnv struct {
	t        *testing.T
	svc      *bank.Service
	srv      *Server
	url      string // the database, as the runtime role serve uses
	superURL string // the same database as its superuser, for test setup
}

var testSecret = []byte(strings.Repeat("t", 32))

func newEnv(t *testing.T) *testEnv { return newEnvWith(t, bank.Settings{}, Options{}) }

// newEnvWith is newEnv with the service's settings (RequestsTTL and
// LookupPerMinute are always the tests' own) and the server's options.
func newEnvWith(t *testing.T, st bank.Settings, o Options) *testEnv {
	t.Helper()
	super := testdb.URL(t)
	url := testdb.AppURL(super)
	e := &testEnv{t: t, url: url, superURL: super}
	if st.Owner == nil {
		st.Owner = ownerPool(t, super)
	}
	e.svc = newServiceWith(t, url, st)
	o.Logger, o.Version = quiet, "test"
	e.srv = New(e.svc, NewHub(e.svc, quiet), o)
	return e
}

// ownerPool is bank.Settings.Owner on the test database's superuser URL
// (the schema's owner here), opened once.
func ownerPool(t *testing.T, super string) func(context.Context) (*sqlx.DB, error) {
	var once sync.Once
	var conn *sqlx.DB
	var err error
	return func(context.Context) (*sqlx.DB, error) {
		once.Do(func() {
			if conn, err = openDB(super); err == nil {
				t.Cleanup(func() { conn.Close() })
			}
		})
		return conn, err
	}
}

func newService(t *testing.T, url string) *bank.Service {
	return newServiceWith(t, url, bank.Settings{})
}

func newServiceWith(t *testing.T, url string, st bank.Settings) *bank.Service {
	t.Helper()
	conn, err := openDB(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	tokens, _ := auth.NewTokens(testSecret, time.Hour)
	st.RequestsTTL, st.LookupPerMinute = time.Hour, 1000
	return bank.New(conn, tokens, st)
}

type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r resp) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %s", r.Body)
	}
	return m
}

// Into decodes the body into v, a typed value: money fields as
// money.Amount, exact to the cent.
func (r resp) Into(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("body %s: %v", r.Body, err)
	}
}

// Amount reads one money field of an object body, exactly.
func (r resp) Amount(t *testing.T, field string) money.Amount {
	t.Helper()
	var m map[string]json.RawMessage
	r.Into(t, &m)
	var a money.Amount
	if err := json.Unmarshal(m[field], &a); err != nil {
		t.Fatalf("%s in %s: %v", field, r.Body, err)
	}
	return a
}

// do sends a request; body may be a string (sent as is) or a value (sent as JSON).
func (e *testEnv) do(method, path, token string, body any, headers ...string) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	// Fiber's default of 1 s is shorter than a bcrypt on a loaded machine:
	// the server's own deadline (request_timeout) is what a test asserts.
	res, err := e.srv.App().Test(req, fiber.TestConfig{Timeout: 30 * time.Second, FailOnTimeout: true})
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{Status: res.StatusCode, Header: res.Header, Body: b}
}

// want fails unless the answer has the status (and, for errors, the JSON error shape).
func (e *testEnv) want(r resp, status int, what string) resp {
	e.t.Helper()
	if r.Status != status {
		e.t.Fatalf("%s: status %d, want %d: %s", what, r.Status, status, r.Body)
	}
	if status >= 400 {
		m := r.JSON(e.t)
		msg, _ := m["error"].(string)
		code, _ := m["code"].(string)
		if msg == "" || code == "" {
			e.t.Fatalf("%s: error body without error/code: %s", what, r.Body)
		}
		for _, leak := range []string{"pq:", "sql:", "SQLSTATE", "goroutine", "runtime error", ".go:"} {
			if strings.Contains(string(r.Body), leak) {
				e.t.Fatalf("%s: internal text reached the client: %s", what, r.Body)
			}
		}
	}
	return r
}

var seq atomic.Int64

type user struct {
	ID    int64
	Email string
	Token string
}

// customer registers and signs in a customer through the API.
func (e *testEnv) customer(name string) user {
	e.t.Helper()
	email := fmt.Sprintf("u%d@example.test", seq.Add(1))
	e.want(e.do("POST", "/api/auth/register", "", map[string]any{"full_name": name, "email": email, "phone_number": "+1 555 0100", "password": "password123"}), 201, "register")
	return e.login(email, "password123")
}

// admin creates an admin (as the CLI does) and signs in through the API.
func (e *testEnv) admin() user {
	e.t.Helper()
	email := fmt.Sprintf("a%d@example.test", seq.Add(1))
	if _, err := e.svc.Register(ctxBG, bank.CLIActor, bank.RegisterInput{FullName: "Ada Admin", Email: email, PhoneNumber: "+1 555 0199", Password: "password123", Role: bank.RoleAdmin}); err != nil {
		e.t.Fatal(err)
	}
	return e.login(email, "password123")
}

func (e *testEnv) login(email, password string) user {
	e.t.Helper()
	m := e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": password}), 200, "login").JSON(e.t)
	u := m["user"].(map[string]any)
	return user{ID: int64(u["id"].(float64)), Email: email, Token: m["token"].(string)}
}

// account opens an account with a balance and returns its id and number.
func (e *testEnv) account(u user, balance any) (int64, string) {
	e.t.Helper()
	num := fmt.Sprintf("AC%08d", seq.Add(1))
	m := e.want(e.do("POST", "/api/user/accounts", u.Token, map[string]any{"account_number": num, "balance": balance, "account_type_id": 1}), 201, "create account").JSON(e.t)
	return int64(m["id"].(float64)), num
}

// listen serves e on a real loopback socket and returns its base URL.
func (e *testEnv) listen() string {
	e.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.t.Fatal(err)
	}
	go e.srv.Serve(ln)
	e.t.Cleanup(func() { e.srv.Shutdown(ctxBG) })
	return "http://" + ln.Addr().String()
}

// rawRequest writes raw bytes to the server and returns the status and body.
func rawRequest(t *testing.T, base, raw string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
