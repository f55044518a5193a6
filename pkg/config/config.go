// Package config is Meridian's typed configuration. The CLI reads flags,
// MERIDIAN_* environment variables and meridian.yaml (through Viper, in cli/
// only) and hands the raw text values to Load, which parses and validates them.
package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"meridian/pkg/money"
)

// Config is the validated configuration of every command.
type Config struct {
	Addr            string        // listen address of serve
	DatabaseURL     string        // empty: the embedded cluster in DataDir/postgres
	DataDir         string        // embedded cluster, generated JWT secret
	JWTSecret       string        // empty: generated once into DataDir/jwt_secret
	TokenTTL        time.Duration // lifetime of a sign-in token
	RequestsTTL     time.Duration // a PENDING money request expires after this
	ExpiryInterval  time.Duration // how often serve looks for expired requests
	MaxAmount       money.Amount  // the largest amount accepted in one operation
	LogLevel        string        // debug, info, warn, error
	LogFormat       string        // text or json
	DemoSeed        bool          // seed demo data on the first start of an empty database
	LookupPerMinute int           // account-number lookups a user may make per minute
	RequestTimeout  time.Duration // every request's deadline, down to PostgreSQL's statement_timeout
}

// Keys lists every configuration key with its default, in the order shown by --help.
var Keys = []struct{ Name, Default, Usage string }{
	{"addr", ":8080", "address to listen on"},
	{"database_url", "", "PostgreSQL URL; empty runs the embedded cluster in <data_dir>/postgres"},
	{"data_dir", "data", "directory for the embedded database and the generated JWT secret"},
	{"jwt_secret", "", "HS256 secret for tokens (at least 32 characters); empty: generated once into <data_dir>/jwt_secret"},
	{"token_ttl", "24h", "lifetime of a sign-in token"},
	{"requests_ttl", "72h", "a pending money request expires after this"},
	{"expiry_interval", "30s", "how often serve expires old money requests"},
	{"max_amount", "1000000000.00", "the largest amount accepted in one operation"},
	{"log_level", "info", "debug, info, warn or error"},
	{"log_format", "text", "text or json"},
	{"demo_seed", "true", "seed demo data when serve starts on an empty database"},
	{"lookup_per_minute", "30", "account-number lookups allowed per user per minute"},
	{"request_timeout", "10s", "each request's deadline (also PostgreSQL's statement_timeout and lock_timeout for serve); past it: 503"},
}

// Load parses raw values (as Viper returns them) into a Config. get returns
// the value of a key, already resolved from flags, environment, file and
// defaults. The error names the offending key in one sentence.
func Load(get func(key string) string) (Config, error) {
	var c Config
	var err error
	bad := func(key, want string) error {
		return fmt.Errorf("invalid configuration: %s must be %s (got %q)", key, want, get(key))
	}
	c.Addr = strings.TrimSpace(get("addr"))
	if _, _, e := net.SplitHostPort(c.Addr); e != nil {
		return c, bad("addr", `a listen address like ":8080" or "127.0.0.1:8080"`)
	}
	c.DatabaseURL = strings.TrimSpace(get("database_url"))
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") && !strings.Contains(c.DatabaseURL, "=") {
		return c, bad("database_url", "a PostgreSQL URL like postgres://user:pass@host:5432/db")
	}
	c.DataDir = strings.TrimSpace(get("data_dir"))
	if c.DataDir == "" {
		return c, bad("data_dir", "a directory path")
	}
	c.JWTSecret = get("jwt_secret")
	if c.JWTSecret != "" && len(c.JWTSecret) < 32 {
		return c, fmt.Errorf("invalid configuration: jwt_secret must be at least 32 characters long")
	}
	durations := []struct {
		key string
		dst *time.Duration
		min time.Duration
	}{{"token_ttl", &c.TokenTTL, time.Minute}, {"requests_ttl", &c.RequestsTTL, time.Second}, {"expiry_interval", &c.ExpiryInterval, 100 * time.Millisecond}, {"request_timeout", &c.RequestTimeout, 100 * time.Millisecond}}
	for _, d := range durations {
		*d.dst, err = time.ParseDuration(strings.TrimSpace(get(d.key)))
		if err != nil || *d.dst < d.min {
			return c, bad(d.key, fmt.Sprintf("a duration of at least %s like \"24h\" or \"90m\"", d.min))
		}
	}
	c.MaxAmount, err = money.Parse(strings.TrimSpace(get("max_amount")))
	if err != nil || c.MaxAmount <= 0 {
		return c, bad("max_amount", "a positive amount with at most two decimals")
	}
	c.LogLevel = strings.ToLower(strings.TrimSpace(get("log_level")))
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return c, bad("log_level", "one of debug, info, warn, error")
	}
	c.LogFormat = strings.ToLower(strings.TrimSpace(get("log_format")))
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return c, bad("log_format", "text or json")
	}
	c.DemoSeed, err = strconv.ParseBool(strings.TrimSpace(get("demo_seed")))
	if err != nil {
		return c, bad("demo_seed", "true or false")
	}
	c.LookupPerMinute, err = strconv.Atoi(strings.TrimSpace(get("lookup_per_minute")))
	if err != nil || c.LookupPerMinute < 1 {
		return c, bad("lookup_per_minute", "a whole number of at least 1")
	}
	return c, nil
}

// Defaults returns the configuration with every key at its default.
func Defaults() Config {
	d := map[string]string{}
	for _, k := range Keys {
		d[k.Name] = k.Default
	}
	c, err := Load(func(k string) string { return d[k] })
	if err != nil {
		panic(err) // the defaults above are constants; a failure here is a bug
	}
	return c
}
