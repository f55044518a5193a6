package money

import (
	"encoding/json"
	"testing"
)

func TestParse(t *testing.T) {
	good := map[string]Amount{"0": 0, "0.01": 1, "12": 1200, "12.5": 1250, "1250.50": 125050, "1000000000.00": DefaultMax}
	for in, want := range good {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "+1", "1.001", "1e3", "NaN", "Infinity", " 1", "1.", ".5", "1,000", "0x10", "99999999999999999999999"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
}

func TestJSON(t *testing.T) {
	var v struct{ A Amount }
	for in, want := range map[string]Amount{`{"A":1250.5}`: 125050, `{"A":"1250.50"}`: 125050, `{"A":0.01}`: 1} {
		if err := json.Unmarshal([]byte(in), &v); err != nil || v.A != want {
			t.Errorf("%s: got %v %v", in, v.A, err)
		}
	}
	for _, in := range []string{`{"A":1e2}`, `{"A":-5}`, `{"A":"abc"}`, `{"A":1.234}`, `{"A":null}`, `{"A":true}`} {
		if err := json.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
	if err := json.Unmarshal([]byte(`{"A":-5}`), &v); err != ErrNegative {
		t.Errorf("negative: got %v", err)
	}
	for a, want := range map[Amount]string{125050: "1250.5", 1: "0.01", 1200: "12", 0: "0", 125055: "1250.55"} {
		b, _ := json.Marshal(a)
		if string(b) != want {
			t.Errorf("Marshal(%d) = %s; want %s", a, b, want)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		a        Amount
		currency string
		want     string
	}{
		{1250, "USD", "$12.50"},
		{1250, "EUR", "€12.50"},
		{1250, "eur", "€12.50"},
		{1250, "GBP", "£12.50"},
		{1250, "CHF", "12.50 CHF"},
		{1250, "", "12.50"},
		{123456789, "USD", "$1,234,567.89"},
		{123456789, "EUR", "€1,234,567.89"},
		{123456789, "XYZ", "1,234,567.89 XYZ"},
		{5, "USD", "$0.05"},
		{100000, "USD", "$1,000.00"},
		{-1250, "USD", "-$12.50"},
		{-1250, "EUR", "-€12.50"},
		{DefaultMax, "EUR", "€1,000,000,000.00"},
	} {
		if got := Format(c.a, c.currency); got != c.want {
			t.Errorf("Format(%d, %q) = %s; want %s", c.a, c.currency, got, c.want)
		}
	}
}

func TestScan(t *testing.T) {
	var a Amount
	if err := a.Scan([]byte("-12.30")); err != nil || a != -1230 {
		t.Fatalf("scan: %v %v", a, err)
	}
	if err := a.Scan("abc"); err == nil {
		t.Fatal("scan accepted junk")
	}
	if v, _ := Amount(5).Value(); v != "0.05" {
		t.Fatalf("value: %v", v)
	}
}
