package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"meridian/pkg/db"
)

// TestWebhooksAcrossServeRestart: a customer's endpoint gets every event of
// a run, each signature verified by the Standard Webhooks library, in commit
// order, though it fails its first three deliveries and serve is stopped
// halfway (events made meanwhile by the CLI) and started again.
func TestWebhooksAcrossServeRestart(t *testing.T) {
	c := newCLI(t)
	c.ok("seed", "--demo-seed", "true")

	var mu sync.Mutex
	var verify *standardwebhooks.Webhook
	fail := 3
	var got []string
	rec := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if verify == nil || verify.Verify(body, r.Header) != nil {
			t.Errorf("a delivery whose signature does not verify: %s", body)
			w.WriteHeader(400)
			return
		}
		if fail > 0 {
			fail--
			w.WriteHeader(503)
			return
		}
		if id := r.Header.Get("webhook-id"); !slices.Contains(got, id) {
			got = append(got, id)
		}
		w.WriteHeader(204)
	}))
	defer rec.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rec.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	arrived := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(got) }

	serve := func() (string, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		var out, errb syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- ExecuteContext(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--demo-seed=false", "--webhook-allow-private", "true",
				"--webhook-ca-file", ca, "--webhook-retry-base", "50ms"}, c.base...), nil, &out, &errb)
		}()
		waitFor(t, func() bool { return strings.Contains(out.String(), "Meridian is running at") }, "serve to start")
		base := strings.Replace(strings.Fields(strings.SplitAfter(out.String(), "running at ")[1])[0], "localhost", "127.0.0.1", 1)
		return base, func() {
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("serve exit %d: %s", code, errb.String())
			}
		}
	}
	call := func(base, method, path, token string, body any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		json.NewDecoder(res.Body).Decode(&m)
		if res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %v", method, path, res.StatusCode, m)
		}
		return m
	}

	base, stop := serve()
	alice := call(base, "POST", "/api/auth/login", "", map[string]string{"email": "alice@meridian.test", "password": "alice12345"})["token"].(string)
	hook := call(base, "POST", "/api/user/webhooks", alice, map[string]any{"url": rec.URL + "/meridian", "events": []string{"transaction.created", "money_request.created"}})
	mu.Lock()
	verify, _ = standardwebhooks.NewWebhook(hook["secret"].(string))
	mu.Unlock()
	for _, amount := range []string{"1.01", "1.02"} {
		call(base, "POST", "/api/user/money-transfer", alice, map[string]any{"account_id": "100200300", "to_account_id": "200300400", "amount": amount})
	}
	waitFor(t, func() bool { return len(arrived()) >= 2 }, "the first events, after three failures")
	stop()

	// serve is down: the CLI moves money; the events wait in the feed.
	c.ok("account", "deposit", "100200300", "3.00")
	c.ok("account", "withdraw", "100200300", "4.00")
	base, stop = serve()
	defer stop()
	bob := call(base, "POST", "/api/auth/login", "", map[string]string{"email": "bob@meridian.test", "password": "bob12345"})["token"].(string)
	call(base, "POST", "/api/user/money-request", bob, map[string]any{"requester_id": "200300400", "recipient_id": "100200300", "amount": "5.00"})

	// What happened to Alice, in the feed's (commit) order.
	owner, err := db.Open(context.Background(), c.base[1])
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	var want []string
	waitFor(t, func() bool {
		var ids []int64
		owner.Select(&ids, `SELECT f.event_id FROM webhook_feed f JOIN webhooks w ON w.user_id = f.user_id WHERE w.id = $1 ORDER BY f.seq`, int64(hook["id"].(float64)))
		want = want[:0]
		for _, id := range ids {
			want = append(want, "msg_"+strconv.FormatInt(id, 10))
		}
		return len(want) == 5
	}, "five events of Alice's in the feed")
	waitFor(t, func() bool { return len(arrived()) == 5 }, "every event at the endpoint")
	if got := arrived(); !slices.Equal(got, want) {
		t.Fatalf("arrived %v, want %v", got, want)
	}
}
