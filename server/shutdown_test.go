package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
)

// waitFor polls cond every 10 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestGracefulShutdown: Shutdown stops accepting at once, lets the request
// in flight finish (its notification still reaches the open WebSocket),
// and only then closes the WebSockets, with close code 1001.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startHub()
	a := e.customer("Sid Sender")
	b := e.customer("Rita Receiver")
	aid, anum := e.account(a, "100.00")
	_, bnum := e.account(b, "0")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	go e.srv.Serve(ln)
	ws, status := dialWS(t, "http://"+addr, "token="+b.Token)
	if status != 101 {
		t.Fatalf("dial: %d", status)
	}

	// A transfer in flight: a row lock the test holds keeps it back (its
	// posting waits in the queue, tried again until the lock is gone).
	release := e.lockAccount(aid)
	answer := make(chan int, 1)
	go func() {
		body, _ := json.Marshal(map[string]any{"account_id": anum, "to_account_id": bnum, "amount": "12.50"})
		req, _ := http.NewRequest("POST", "http://"+addr+"/api/user/money-transfer", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+a.Token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			answer <- 0
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		answer <- res.StatusCode
	}()
	if !waitFor(5*time.Second, func() bool { return e.svc.PostingStats().Busy > 0 }) {
		t.Fatal("the transfer never found its account held")
	}

	shutdown := make(chan error, 1)
	go func() { shutdown <- e.srv.Shutdown(ctxBG) }()

	// 1. No new connection is accepted.
	if !waitFor(2*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err != nil
	}) {
		t.Fatal("still accepting after Shutdown began")
	}
	// 2. The request in flight is not cut, the WebSocket stays open, and
	// Shutdown waits for both.
	time.Sleep(200 * time.Millisecond)
	select {
	case s := <-answer:
		t.Fatalf("the transfer in flight answered %d before its lock was released", s)
	case err := <-shutdown:
		t.Fatalf("Shutdown returned (%v) with a request in flight", err)
	default:
	}
	release()
	if s := <-answer; s != 201 {
		t.Fatalf("the transfer in flight answered %d, want 201", s)
	}
	// Its notification is pushed before the socket closes...
	if p := readPush(t, ws, 3*time.Second); p.UserID != b.ID {
		t.Fatalf("push %+v", p)
	}
	// 3. ... and then the socket closes with 1001 (going away).
	ws.SetReadDeadline(time.Now().Add(3 * time.Second))
	_, _, err = ws.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
		t.Fatalf("WebSocket ended with %v, want close 1001", err)
	}
	select {
	case err := <-shutdown:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Shutdown did not return")
	}
	if n := e.srv.hub.metrics.wsConns.Load(); n != 0 {
		t.Fatalf("%d WebSockets left after Shutdown", n)
	}
}
