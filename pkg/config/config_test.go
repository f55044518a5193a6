package config

import (
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	c := Defaults()
	if c.Addr != ":8080" || c.TokenTTL != 24*time.Hour || c.RequestsTTL != 72*time.Hour || c.DatabaseURL != "" || c.MaxAmount != 1_000_000_000_00 {
		t.Fatalf("unexpected defaults: %+v", c)
	}
	if c.SealInterval != time.Second || c.WSMaxPerUser != 10 || len(c.AllowedOrigins) != 0 {
		t.Fatalf("unexpected event defaults: %+v", c)
	}
}

func TestAllowedOrigins(t *testing.T) {
	vals := map[string]string{}
	for _, k := range Keys {
		vals[k.Name] = k.Default
	}
	vals["allowed_origins"] = " https://App.Example.com/ , http://localhost:8081"
	c, err := Load(func(k string) string { return vals[k] })
	if err != nil || strings.Join(c.AllowedOrigins, " ") != "https://app.example.com http://localhost:8081" {
		t.Fatalf("allowed_origins: %q %v", c.AllowedOrigins, err)
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
		"seal_interval":     "0s",
		"allowed_origins":   "app.example.com",
		"ws_max_per_user":   "0",
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
