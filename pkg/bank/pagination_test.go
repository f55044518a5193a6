package bank

import (
	"encoding/base64"
	"strings"
	"testing"

	"meridian/pkg/errs"
)

func TestCursorsOnlyAsGiven(t *testing.T) {
	t.Parallel()
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	if _, id, err := (Page{Before: *EncodeCursor(42)}).decode(); err != nil || id != 42 {
		t.Fatalf("own cursor: %d %v", id, err)
	}
	for _, c := range []string{
		"garbage!", "%%%", "\x00", enc("id:0"), enc("id:-5"), enc("id:+5"), enc("id: 5"), enc("id:5x"),
		enc("id:99999999999999999999"), enc("x:5"), enc("5"), base64.StdEncoding.EncodeToString([]byte("id:5")), *EncodeCursor(5) + "=",
		strings.Repeat("A", 5000),
	} {
		if _, _, err := (Page{Before: c}).decode(); errs.KindOf(err) != errs.Invalid {
			t.Errorf("cursor %q: %v, want 400", c, err)
		}
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int{"": 0, "1": 1, "1000": 1000} {
		if n, err := ParseLimit(v); err != nil || n != want {
			t.Errorf("ParseLimit(%q) = %d, %v; want %d", v, n, err, want)
		}
	}
	for _, v := range []string{"0", "-1", "1001", "x", "1.5"} {
		if _, err := ParseLimit(v); errs.KindOf(err) != errs.Invalid {
			t.Errorf("ParseLimit(%q): %v, want 400", v, err)
		}
	}
	if n, err := checkLimit(0); err != nil || n != defaultLimit {
		t.Errorf("checkLimit(0) = %d, %v", n, err)
	}
	for _, n := range []int{-1, maxLimit + 1} {
		if _, err := checkLimit(n); errs.KindOf(err) != errs.Invalid {
			t.Errorf("checkLimit(%d): %v, want 400", n, err)
		}
	}
}

func TestNextPage(t *testing.T) {
	t.Parallel()
	id := func(n int64) int64 { return n }
	if rows, next := nextPage([]int64{9, 8}, 2, id); len(rows) != 2 || next != nil {
		t.Errorf("last page: %v %v", rows, next)
	}
	rows, next := nextPage([]int64{9, 8, 7}, 2, id)
	if len(rows) != 2 || next == nil || *next != *EncodeCursor(8) {
		t.Errorf("full page: %v %v", rows, next)
	}
}
