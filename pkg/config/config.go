// Package config is Meridian's typed configuration. The CLI reads flags,
// MERIDIAN_* environment variables and meridian.yaml (through Viper, in cli/
// only) and hands the raw text values to Load, which parses and validates them.
package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"meridian/pkg/money"
)

// Config is the validated configuration of every command.
type Config struct {
	Addr             string // listen address of serve
	DatabaseURL      string // empty: the embedded cluster in DataDir/postgres
	DatabaseOwnerURL string // migrations connect with it when set; else DatabaseURL
	DatabaseAppRole  string // the runtime role migrate up grants to (database_url only)
	// DatabaseReadURLs are PostgreSQL hot standbys that serve history,
	// dashboards, lists and statements (each a pool of DatabasePoolSize).
	DatabaseReadURLs []string
	// DatabaseListenURL is where the one session that LISTENs for events
	// connects (directly, not through a transaction pooler); empty in the
	// configuration: database_url.
	DatabaseListenURL string
	// ReplicaWait is how long a read waits for a replica to replay the
	// caller's last write before it reads from the primary.
	ReplicaWait    time.Duration
	DataDir        string        // embedded cluster, generated JWT secret
	JWTSecret      string        // empty: generated once into DataDir/jwt_secret
	TokenTTL       time.Duration // lifetime of a sign-in token
	RequestsTTL    time.Duration // a PENDING money request expires after this
	ExpiryInterval time.Duration // how often serve looks for expired requests
	// SchedulerInterval is how often serve runs the scheduled transfers
	// that are due.
	SchedulerInterval time.Duration
	MaxAmount         money.Amount  // the largest amount accepted in one operation
	LogLevel          string        // debug, info, warn, error
	LogFormat         string        // text or json
	DemoSeed          bool          // seed demo data (published passwords) on the first start of an empty database
	LookupPerMinute   int           // account-number lookups a user may make per minute
	DatabasePoolSize  int           // connections a command opens at most
	SealInterval      time.Duration // serve seals committed events at least this often
	AllowedOrigins    []string      // browser origins besides the server's own that may open /ws
	WSMaxPerUser      int           // open WebSockets per user per instance
	RequestTimeout    time.Duration // every request's deadline, down to PostgreSQL's statement_timeout
	// TrustedProxies are the peers whose X-Forwarded-For names the client
	// (the sign-in limit per address); empty: the TCP peer is the client.
	TrustedProxies []netip.Prefix
	// MaxPasswordChecks is how many bcrypt checks may run at once (0 in the
	// configuration: the number of cores, resolved here).
	MaxPasswordChecks int
	// CustomerFunding lets customers set opening balances and edit balances
	// (the spec's behaviour); false: only an administrator's deposit or
	// withdrawal moves money in or out.
	CustomerFunding bool
	// RequireTwoFactorForAdmins: an administrator without two-factor sign-in
	// may only turn it on (and see who they are, and sign out).
	RequireTwoFactorForAdmins bool
	// DailyTransferLimit is what a customer may send to others per currency
	// per UTC day, unless an administrator set their own.
	DailyTransferLimit money.Amount
	// ApprovalThreshold: an administrator's deposit, withdrawal or reversal
	// at or over it waits for a second administrator.
	ApprovalThreshold money.Amount
	// FXSpreadBps is the bank's spread on an exchange, in hundredths of a
	// percent (0 to 1000).
	FXSpreadBps int
	// TransferBatch is the most customers' transfers serve sends to the
	// database in one transaction (1: each alone); TransferBatchWorkers how
	// many such batches it has in flight at once.
	TransferBatch        int
	TransferBatchWorkers int
	// AnchorDir is where serve writes signed checkpoints of the audit
	// chain's head (empty in the configuration: <data_dir>/anchors, resolved
	// here); AnchorInterval how often; AnchorKey the secret they are signed
	// with (empty: derived from jwt_secret).
	AnchorDir      string
	AnchorInterval time.Duration
	AnchorKey      string
	// PushURL is the Expo push API the pusher posts to; empty: no push
	// notifications.
	PushURL string
	// WSQueryToken accepts the token in /ws's query string (the first app's
	// clients); otherwise only in a subprotocol or an Authorization header.
	WSQueryToken bool
	// LockAfter is how long the app may stay in the background before it
	// asks for the device's biometrics (or passcode) again.
	LockAfter time.Duration
	// ScheduledMaxActive is the most active scheduled transfers one
	// customer may have.
	ScheduledMaxActive int
	// BackupDir is where the embedded database archives its WAL and keeps
	// its base backups (empty in the configuration: DataDir/backups).
	BackupDir string
	// BackupInterval is how often serve takes a base backup of the
	// embedded database (0: never on its own; the WAL is archived still).
	BackupInterval time.Duration
	// BackupKeep is how many base backups to keep (0: all).
	BackupKeep int
	// ArchiveTimeout is PostgreSQL's archive_timeout for the embedded
	// database: the most WAL time a lost disk can take (0: only full
	// segments are archived).
	ArchiveTimeout time.Duration
	// OtelEndpoint is the OTLP/HTTP collector serve sends traces to (empty:
	// no tracing); OtelSampleRatio the share of new traces it records.
	OtelEndpoint    string
	OtelSampleRatio float64
	// ShutdownDelay is how long serve, told to stop, keeps answering while
	// /readyz says it is stopping, so a balancer takes it out of rotation
	// before it stops accepting (0: at once).
	ShutdownDelay time.Duration
	// WebhookAllowPrivate lets webhooks be registered for, and delivered to,
	// loopback, private, link-local and metadata addresses (tests, private
	// networks); false: only public addresses.
	WebhookAllowPrivate bool
	// WebhookCAFile is a PEM file of certificate authorities webhook
	// endpoints' TLS may chain to besides the system's (a private CA).
	WebhookCAFile string
	// WebhookRetryBase is the wait before a failed delivery's first retry;
	// it doubles with each failure, up to an hour.
	WebhookRetryBase time.Duration
	// OAuthIssuer is the address apps reach this server at, the OAuth
	// issuer (empty: the address each request came to).
	OAuthIssuer string
}

// Keys lists every configuration key with its default, in the order shown by --help.
var Keys = []struct{ Name, Default, Usage string }{
	{"addr", ":8080", "address to listen on"},
	{"database_url", "", "PostgreSQL URL; empty runs the embedded cluster in <data_dir>/postgres"},
	{"database_owner_url", "", "PostgreSQL URL of the role that owns the schema, for migrations; empty: database_url"},
	{"database_app_role", "meridian_app", "the role database_url signs in as; migrate up grants it the runtime privileges"},
	{"database_read_urls", "", "comma-separated PostgreSQL URLs of hot standbys that serve history, dashboards, lists and statements (needs database_url)"},
	{"database_listen_url", "", "PostgreSQL URL of the one session that LISTENs for events: a direct connection, not a transaction pooler; empty: database_url"},
	{"replica_wait", "200ms", "how long a read waits for a replica to replay the caller's last write before reading from the primary"},
	{"data_dir", "data", "directory for the embedded database and the generated JWT secret"},
	{"jwt_secret", "", "HS256 secret for tokens (at least 32 characters); empty: generated once into <data_dir>/jwt_secret"},
	{"token_ttl", "24h", "lifetime of a sign-in token"},
	{"requests_ttl", "72h", "a pending money request expires after this"},
	{"expiry_interval", "30s", "how often serve expires old money requests"},
	{"scheduler_interval", "5s", "how often serve runs the scheduled transfers that are due"},
	{"scheduled_max_active", "100", "the most active scheduled transfers one customer may have (one more answers 422)"},
	{"max_amount", "1000000000.00", "the largest amount accepted in one operation"},
	{"log_level", "info", "debug, info, warn or error"},
	{"log_format", "text", "text or json"},
	{"demo_seed", "auto", "seed demo data (published passwords) when serve starts on an empty database; auto: true on the embedded database, false with database_url"},
	{"lookup_per_minute", "30", "account-number lookups allowed per user per minute"},
	{"database_pool_size", "16", "database connections each serve instance opens at most (requests beyond them wait, within request_timeout)"},
	{"request_timeout", "10s", "each request's deadline (also PostgreSQL's statement_timeout and lock_timeout for serve); past it: 503"},
	{"trusted_proxies", "", "comma-separated IPs or CIDRs of proxies whose X-Forwarded-For is believed"},
	{"max_password_checks", "0", "password checks (bcrypt) running at once; 0: the number of cores"},
	{"seal_interval", "1s", "serve seals committed audit rows and notifications at least this often"},
	{"allowed_origins", "", "comma-separated browser origins (https://app.example.com) allowed to open /ws besides the server's own"},
	{"ws_max_per_user", "10", "open WebSockets allowed per user per serve instance"},
	{"customer_funding", "true", "customers may set an opening balance and edit balances; false: accounts open at 0 and only admin deposits and withdrawals move money in or out"},
	{"require_2fa_for_admins", "false", "an administrator without two-factor sign-in may only set it up (403 two_factor_required elsewhere)"},
	{"daily_transfer_limit", "10000.00", "what a customer may send to others per currency per UTC day, unless an administrator sets their own (meridian user limit)"},
	{"approval_threshold", "10000.00", "an administrator's deposit, withdrawal or reversal at or over this amount (in the account's currency) waits for a second administrator's approval"},
	{"fx_spread_bps", "50", "the bank's spread on an exchange between currencies, in hundredths of a percent, taken against the customer (50: 0.50 %)"},
	{"transfer_batch", "32", "the most transfers serve sends to the database in one transaction, each with its own answer; 1: each transfer alone"},
	{"transfer_batch_workers", "1", "transfer batches serve has in flight at once (1 was fastest on 2 cores: batches never wait for each other's locks)"},
	{"anchor_dir", "", "where serve writes signed checkpoints of the audit chain's head (keep a copy elsewhere); empty: <data_dir>/anchors"},
	{"anchor_interval", "10m", "how often serve writes a checkpoint of the audit chain's head"},
	{"anchor_key", "", "secret (at least 32 characters) the checkpoints are signed with; empty: derived from jwt_secret"},
	{"push_url", "https://exp.host/--/api/v2/push/send", "the Expo push API that push notifications to phones are posted to; empty: no pushes"},
	{"ws_query_token", "false", "accept the token in /ws's query string (/ws?token=..., the first app's form); false: only as a subprotocol or Authorization header"},
	{"lock_after", "5m", "the app asks for Face ID, a fingerprint or the device passcode after this long in the background"},
	{"backup_dir", "", "where the embedded database archives its WAL and keeps base backups (put it on another disk); empty: <data_dir>/backups"},
	{"backup_interval", "24h", "how often serve takes a base backup of the embedded database; 0: only meridian backup now"},
	{"backup_keep", "7", "base backups kept (and the archived WAL they need); 0: all"},
	{"otel_endpoint", "", "OpenTelemetry: the OTLP/HTTP collector serve sends traces to (http://collector:4318); empty: no tracing"},
	{"otel_sample_ratio", "1", "OpenTelemetry: the share of new traces recorded, 0 to 1 (a request whose caller sampled its trace is always recorded)"},
	{"shutdown_delay", "0s", "on SIGTERM, serve answers /readyz 503 (shutting_down) but keeps serving this long before it stops accepting, so a balancer stops sending it requests first"},
	{"archive_timeout", "60s", "the embedded database archives its WAL at least this often while it is written (what a lost disk can cost at most); 0: full segments only"},
	{"webhook_allow_private", "false", "webhooks may go to loopback, private, link-local and metadata addresses (tests, private networks)"},
	{"webhook_ca_file", "", "PEM file of certificate authorities webhook endpoints may chain to besides the system's (a private CA)"},
	{"webhook_retry_base", "5s", "wait before a failed webhook delivery's first retry; it doubles with each failure, up to an hour, for 24 hours"},
	{"oauth_issuer", "", "the https address connected apps reach this server at (the OAuth issuer); empty: the address of each request"},
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
	if c.DatabaseURL != "" && !isPostgresURL(c.DatabaseURL) {
		return c, bad("database_url", "a PostgreSQL URL like postgres://user:pass@host:5432/db")
	}
	c.DatabaseOwnerURL = strings.TrimSpace(get("database_owner_url"))
	if c.DatabaseOwnerURL != "" && !isPostgresURL(c.DatabaseOwnerURL) {
		return c, bad("database_owner_url", "a PostgreSQL URL like postgres://owner:pass@host:5432/db")
	}
	if c.DatabaseOwnerURL != "" && c.DatabaseURL == "" {
		return c, fmt.Errorf("invalid configuration: database_owner_url needs database_url (the embedded database manages its own roles)")
	}
	for _, u := range strings.Split(get("database_read_urls"), ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		if !isPostgresURL(u) {
			return c, bad("database_read_urls", "a comma-separated list of PostgreSQL URLs like postgres://user:pass@standby:5432/db")
		}
		c.DatabaseReadURLs = append(c.DatabaseReadURLs, u)
	}
	if len(c.DatabaseReadURLs) > 0 && c.DatabaseURL == "" {
		return c, fmt.Errorf("invalid configuration: database_read_urls needs database_url (the embedded database has no standbys)")
	}
	c.DatabaseListenURL = strings.TrimSpace(get("database_listen_url"))
	if c.DatabaseListenURL != "" && !isPostgresURL(c.DatabaseListenURL) {
		return c, bad("database_listen_url", "a PostgreSQL URL like postgres://user:pass@host:5432/db")
	}
	if c.DatabaseListenURL != "" && c.DatabaseURL == "" {
		return c, fmt.Errorf("invalid configuration: database_listen_url needs database_url (the embedded database listens on its own socket)")
	}
	if c.DatabaseListenURL == "" {
		c.DatabaseListenURL = c.DatabaseURL
	}
	c.DatabaseAppRole = strings.TrimSpace(get("database_app_role"))
	if !roleName.MatchString(c.DatabaseAppRole) {
		return c, bad("database_app_role", "a PostgreSQL role name of letters, digits and underscores")
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
	}{{"token_ttl", &c.TokenTTL, time.Minute}, {"requests_ttl", &c.RequestsTTL, time.Second}, {"expiry_interval", &c.ExpiryInterval, 100 * time.Millisecond},
		{"scheduler_interval", &c.SchedulerInterval, 100 * time.Millisecond},
		{"seal_interval", &c.SealInterval, 10 * time.Millisecond}, {"request_timeout", &c.RequestTimeout, 100 * time.Millisecond},
		{"replica_wait", &c.ReplicaWait, 0}, {"anchor_interval", &c.AnchorInterval, time.Second}, {"lock_after", &c.LockAfter, time.Second},
		{"shutdown_delay", &c.ShutdownDelay, 0}}
	for _, d := range durations {
		*d.dst, err = time.ParseDuration(strings.TrimSpace(get(d.key)))
		if err != nil || *d.dst < d.min {
			return c, bad(d.key, fmt.Sprintf("a duration of at least %s like \"24h\" or \"90m\"", d.min))
		}
	}
	c.ScheduledMaxActive, err = strconv.Atoi(strings.TrimSpace(get("scheduled_max_active")))
	if err != nil || c.ScheduledMaxActive < 1 || c.ScheduledMaxActive > 100000 {
		return c, bad("scheduled_max_active", "a whole number from 1 to 100000")
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
	// Demo users have published passwords: by default they are seeded only
	// into the embedded database, never into one named by database_url.
	switch v := strings.ToLower(strings.TrimSpace(get("demo_seed"))); v {
	case "auto", "":
		c.DemoSeed = c.DatabaseURL == ""
	default:
		c.DemoSeed, err = strconv.ParseBool(v)
		if err != nil {
			return c, bad("demo_seed", "true, false or auto")
		}
	}
	c.LookupPerMinute, err = strconv.Atoi(strings.TrimSpace(get("lookup_per_minute")))
	if err != nil || c.LookupPerMinute < 1 {
		return c, bad("lookup_per_minute", "a whole number of at least 1")
	}
	c.DatabasePoolSize, err = strconv.Atoi(strings.TrimSpace(get("database_pool_size")))
	if err != nil || c.DatabasePoolSize < 2 || c.DatabasePoolSize > 1000 {
		return c, bad("database_pool_size", "a whole number from 2 to 1000")
	}
	if c.TrustedProxies, err = parsePrefixes(get("trusted_proxies")); err != nil {
		return c, bad("trusted_proxies", `a comma-separated list of IP addresses or CIDRs like "10.0.0.1, 10.1.0.0/16"`)
	}
	v := strings.TrimSpace(get("max_password_checks"))
	if v == "" {
		v = "0"
	}
	c.MaxPasswordChecks, err = strconv.Atoi(v)
	if err != nil || c.MaxPasswordChecks < 0 {
		return c, bad("max_password_checks", "a whole number of at least 1, or 0 for the number of cores")
	}
	if c.MaxPasswordChecks == 0 {
		c.MaxPasswordChecks = runtime.NumCPU()
	}
	for _, o := range strings.Split(get("allowed_origins"), ",") {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if o == "" {
			continue
		}
		u, e := url.Parse(o)
		if e != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			return c, bad("allowed_origins", `a comma-separated list of origins like "https://app.example.com"`)
		}
		c.AllowedOrigins = append(c.AllowedOrigins, strings.ToLower(o))
	}
	c.WSMaxPerUser, err = strconv.Atoi(strings.TrimSpace(get("ws_max_per_user")))
	if err != nil || c.WSMaxPerUser < 1 {
		return c, bad("ws_max_per_user", "a whole number of at least 1")
	}
	if c.CustomerFunding, err = strconv.ParseBool(strings.TrimSpace(get("customer_funding"))); err != nil {
		return c, bad("customer_funding", "true or false")
	}
	if c.RequireTwoFactorForAdmins, err = strconv.ParseBool(strings.TrimSpace(get("require_2fa_for_admins"))); err != nil {
		return c, bad("require_2fa_for_admins", "true or false")
	}
	c.DailyTransferLimit, err = money.Parse(strings.TrimSpace(get("daily_transfer_limit")))
	if err != nil || c.DailyTransferLimit <= 0 {
		return c, bad("daily_transfer_limit", "a positive amount with at most two decimals")
	}
	c.ApprovalThreshold, err = money.Parse(strings.TrimSpace(get("approval_threshold")))
	if err != nil || c.ApprovalThreshold <= 0 {
		return c, bad("approval_threshold", "a positive amount with at most two decimals")
	}
	c.FXSpreadBps, err = strconv.Atoi(strings.TrimSpace(get("fx_spread_bps")))
	if err != nil || c.FXSpreadBps < 0 || c.FXSpreadBps > 1000 {
		return c, bad("fx_spread_bps", "a whole number from 0 to 1000 (hundredths of a percent)")
	}
	c.TransferBatch, err = strconv.Atoi(strings.TrimSpace(get("transfer_batch")))
	if err != nil || c.TransferBatch < 1 || c.TransferBatch > 1000 {
		return c, bad("transfer_batch", "a whole number from 1 to 1000")
	}
	c.TransferBatchWorkers, err = strconv.Atoi(strings.TrimSpace(get("transfer_batch_workers")))
	if err != nil || c.TransferBatchWorkers < 1 || c.TransferBatchWorkers > 1000 {
		return c, bad("transfer_batch_workers", "a whole number from 1 to 1000")
	}
	if c.AnchorDir = strings.TrimSpace(get("anchor_dir")); c.AnchorDir == "" {
		c.AnchorDir = filepath.Join(c.DataDir, "anchors")
	}
	if c.WebhookAllowPrivate, err = strconv.ParseBool(strings.TrimSpace(get("webhook_allow_private"))); err != nil {
		return c, bad("webhook_allow_private", "true or false")
	}
	c.WebhookCAFile = strings.TrimSpace(get("webhook_ca_file"))
	if c.WebhookRetryBase, err = time.ParseDuration(strings.TrimSpace(get("webhook_retry_base"))); err != nil || c.WebhookRetryBase <= 0 || c.WebhookRetryBase > 30*time.Second {
		return c, bad("webhook_retry_base", "a duration from 1ms to 30s, like 5s")
	}
	c.OAuthIssuer = strings.TrimRight(strings.TrimSpace(get("oauth_issuer")), "/")
	c.AnchorKey = get("anchor_key")
	if c.AnchorKey != "" && len(c.AnchorKey) < 32 {
		return c, fmt.Errorf("invalid configuration: anchor_key must be at least 32 characters long")
	}
	c.PushURL = strings.TrimSpace(get("push_url"))
	if c.PushURL != "" {
		u, e := url.Parse(c.PushURL)
		if e != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, bad("push_url", `an http(s) URL like "https://exp.host/--/api/v2/push/send", or empty`)
		}
	}
	if c.WSQueryToken, err = strconv.ParseBool(strings.TrimSpace(get("ws_query_token"))); err != nil {
		return c, bad("ws_query_token", "true or false")
	}
	if err := c.loadBackups(get); err != nil {
		return c, err
	}
	c.OtelEndpoint = strings.TrimSpace(get("otel_endpoint"))
	if c.OtelEndpoint != "" {
		u, e := url.Parse(c.OtelEndpoint)
		if e != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return c, bad("otel_endpoint", "an http(s) URL of an OTLP collector like http://collector:4318")
		}
	}
	c.OtelSampleRatio, err = strconv.ParseFloat(strings.TrimSpace(get("otel_sample_ratio")), 64)
	if err != nil || c.OtelSampleRatio < 0 || c.OtelSampleRatio > 1 {
		return c, bad("otel_sample_ratio", "a number from 0 to 1")
	}
	return c, nil
}

// loadBackups reads the backup keys (the embedded database's).
func (c *Config) loadBackups(get func(string) string) error {
	bad := func(key, want string) error {
		return fmt.Errorf("invalid configuration: %s must be %s (got %q)", key, want, get(key))
	}
	c.BackupDir = strings.TrimSpace(get("backup_dir"))
	if c.BackupDir == "" {
		c.BackupDir = filepath.Join(c.DataDir, "backups")
	}
	var err error
	for _, d := range []struct {
		key string
		dst *time.Duration
		min time.Duration
	}{{"backup_interval", &c.BackupInterval, time.Minute}, {"archive_timeout", &c.ArchiveTimeout, time.Second}} {
		v := strings.TrimSpace(get(d.key))
		if v == "0" {
			*d.dst = 0
			continue
		}
		*d.dst, err = time.ParseDuration(v)
		if err != nil || *d.dst < d.min || (*d.dst%time.Second != 0) {
			return bad(d.key, fmt.Sprintf("0 or a whole number of seconds of at least %s like \"24h\" or \"90s\"", d.min))
		}
	}
	c.BackupKeep, err = strconv.Atoi(strings.TrimSpace(get("backup_keep")))
	if err != nil || c.BackupKeep < 0 {
		return bad("backup_keep", "a whole number of at least 0")
	}
	return nil
}

// parsePrefixes reads a comma-separated list of IP addresses (taken as
// single-address prefixes) and CIDRs.
func parsePrefixes(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part, "/") {
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, err
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, err
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// roleName is what database_app_role accepts: a plain, unquoted identifier.
var roleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// isPostgresURL reports whether s looks like a lib/pq connection string.
func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") || strings.Contains(s, "=")
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
