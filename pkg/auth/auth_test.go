package auth

import (
	"os"
	"path/filepath"
	"strings"
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
