package config

import (
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	c := Defaults()
	if c.Addr != ":8080" || c.TokenTTL != 24*time.Hour || c.RequestsTTL != 72*time.Hour || c.DatabaseURL != "" || c.MaxAmount != 1_000_000_000_00 || c.RequestTimeout != 10*time.Second {
		t.Fatalf("unexpected defaults: %+v", c)
	}
}

func TestBadValuesNameTheKey(t *testing.T) {
	cases := map[string]string{
		"addr":              "8080",
		"token_ttl":         "abc",
		"requests_ttl":      "-5m",
		"max_amount":        "1.234",
		"log_level":         "loud",
		"log_format":        "xml",
		"demo_seed":         "perhaps",
		"jwt_secret":        "short",
		"database_url":      "mysql:thing",
		"data_dir":          "",
		"lookup_per_minute": "0",
		"expiry_interval":   "1ns",
		"request_timeout":   "0s",
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
