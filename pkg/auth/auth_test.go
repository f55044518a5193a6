package auth

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

func TestIssueAndParse(t *testing.T) {
	tk, _ := NewTokens(secret, time.Hour)
	now := time.Now()
	s, c, err := tk.Issue(42, now)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tk.Parse(s, now)
	if err != nil || got.UserID != 42 || got.ID != c.ID {
		t.Fatalf("parse: %+v %v", got, err)
	}
	if _, err := tk.Parse(s, now.Add(2*time.Hour)); err == nil {
		t.Fatal("expired token accepted")
	}
	other, _ := NewTokens([]byte(strings.Repeat("x", 32)), time.Hour)
	if _, err := other.Parse(s, now); err == nil {
		t.Fatal("token signed with another secret accepted")
	}
	tampered := s[:len(s)-2] + "AA"
	if _, err := tk.Parse(tampered, now); err == nil {
		t.Fatal("tampered token accepted")
	}
	none := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": "42", "jti": c.ID, "exp": now.Add(time.Hour).Unix(), "iss": "meridian"})
	ns, _ := none.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if _, err := tk.Parse(ns, now); err == nil {
		t.Fatal("alg=none accepted")
	}
	for _, junk := range []string{"", "a.b.c", "Bearer", strings.Repeat("é", 500)} {
		if _, err := tk.Parse(junk, now); err == nil {
			t.Fatalf("junk %q accepted", junk)
		}
	}
	if _, err := NewTokens([]byte("short"), time.Hour); err == nil {
		t.Fatal("short secret accepted")
	}
}

func TestPasswords(t *testing.T) {
	h, err := HashPassword("correct horse")
	if err != nil || !CheckPassword(h, "correct horse") || CheckPassword(h, "wrong horse") || strings.Contains(h, "correct") {
		t.Fatalf("hash %q err %v", h, err)
	}
}

func TestSecretFile(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadOrCreateSecret(dir)
	if err != nil || len(a) < 32 {
		t.Fatalf("create: %v", err)
	}
	st, _ := os.Stat(filepath.Join(dir, "jwt_secret"))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
	b, _ := LoadOrCreateSecret(dir)
	if string(a) != string(b) {
		t.Fatal("secret changed between loads")
	}
}

// The gate lets at most n bcrypts run at once; the others queue.
func TestPasswordsCapConcurrency(t *testing.T) {
	p := NewPasswords(2, time.Minute)
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := p.Hold(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			n := running.Add(1)
			for {
				m := peak.Load()
				if n <= m || peak.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			running.Add(-1)
			release()
		}()
	}
	wg.Wait()
	if peak.Load() != 2 {
		t.Fatalf("peak %d checks at once; want 2", peak.Load())
	}
	h, err := p.Hash(context.Background(), "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := p.Check(context.Background(), h, "correct horse"); !ok || err != nil || p.Runs() != 2 {
		t.Fatalf("check %v %v, runs %d", ok, err, p.Runs())
	}
}

// Past the wait, ErrBusy; a cancelled request stops waiting at once.
func TestPasswordsBusy(t *testing.T) {
	p := NewPasswords(1, 100*time.Millisecond)
	release, err := p.Hold(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := p.Check(context.Background(), "x", "y"); !errors.Is(err, ErrBusy) || time.Since(start) < 100*time.Millisecond {
		t.Fatalf("got %v after %s; want ErrBusy after the wait", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.CheckNothing(ctx, "y"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if p.Runs() != 0 {
		t.Fatal("a refused check counted as run")
	}
	release()
	if _, err := p.Hash(context.Background(), "correct horse"); err != nil {
		t.Fatal(err)
	}
}

func TestDeriveKey(t *testing.T) {
	a, _ := NewTokens([]byte(strings.Repeat("a", 32)), time.Hour)
	b, _ := NewTokens([]byte(strings.Repeat("b", 32)), time.Hour)
	k1, k2 := a.DeriveKey("one"), a.DeriveKey("two")
	if len(k1) != 32 || bytes.Equal(k1, k2) || !bytes.Equal(k1, a.DeriveKey("one")) || bytes.Equal(k1, b.DeriveKey("one")) {
		t.Fatal("a derived key is 32 bytes, stable, and differs by purpose and by secret")
	}
}
