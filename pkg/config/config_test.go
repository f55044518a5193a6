package config

import (
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	c := Defaults()
	if c.Addr != ":8080" || c.TokenTTL != 24*time.Hour || c.RequestsTTL != 72*time.Hour || c.DatabaseURL != "" || c.MaxAmount != 1_000_000_000_00 {
		t.Fatalf("unexpected defaults: %+v", c)
	}
}

func TestBadValuesNameTheKey(t *testing.T) {
	cases := map[string]string{
		"addr":                "8080",
		"token_ttl":           "abc",
		"requests_ttl":        "-5m",
		"max_amount":          "1.234",
		"log_level":           "loud",
		"log_format":          "xml",
		"demo_seed":           "perhaps",
		"jwt_secret":          "short",
		"database_url":        "mysql:thing",
		"data_dir":            "",
		"lookup_per_minute":   "0",
		"expiry_interval":     "1ns",
		"trusted_proxies":     "10.0.0.1, proxy.internal",
		"max_password_checks": "-1",
	}
	for key, val := range cases {
		vals := map[string]string{}
		for _, k := range Keys {
			vals[k.Name] = k.Default
		}
		vals[key] = val
		_, err := Load(func(k string) string { return vals[k] })
		if err == nil {
			t.Errorf("%s=%q accepted", key, val)
			continue
		}
		if !strings.Contains(err.Error(), key) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%s=%q: error %q should be one sentence naming the key", key, val, err)
		}
	}
}

func TestSignInKeys(t *testing.T) {
	c := Defaults()
	if len(c.TrustedProxies) != 0 || c.MaxPasswordChecks != runtime.NumCPU() {
		t.Fatalf("defaults: trusted_proxies %v, max_password_checks %d", c.TrustedProxies, c.MaxPasswordChecks)
	}
	vals := map[string]string{}
	for _, k := range Keys {
		vals[k.Name] = k.Default
	}
	vals["trusted_proxies"] = " 10.0.0.1, 10.1.2.3/16 ,::1,"
	vals["max_password_checks"] = "3"
	c, err := Load(func(k string) string { return vals[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32"), netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("::1/128")}
	if !slices.Equal(c.TrustedProxies, want) || c.MaxPasswordChecks != 3 {
		t.Fatalf("got %v %d", c.TrustedProxies, c.MaxPasswordChecks)
	}
	vals["max_password_checks"] = ""
	if c, err = Load(func(k string) string { return vals[k] }); err != nil || c.MaxPasswordChecks != runtime.NumCPU() {
		t.Fatalf("empty max_password_checks: %d %v", c.MaxPasswordChecks, err)
	}
}
