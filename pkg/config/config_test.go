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
	if c.Addr != ":8080" || c.TokenTTL != 24*time.Hour || c.RequestsTTL != 72*time.Hour || c.DatabaseURL != "" || c.MaxAmount != 1_000_000_000_00 || c.RequestTimeout != 10*time.Second {
		t.Fatalf("unexpected defaults: %+v", c)
	}
	if c.SchedulerInterval != 5*time.Second {
		t.Fatalf("scheduler_interval defaults to 5s, got %s", c.SchedulerInterval)
	}
	if c.ScheduledMaxActive != 100 {
		t.Fatalf("scheduled_max_active defaults to 100, got %d", c.ScheduledMaxActive)
	}
	if c.SealInterval != time.Second || c.WSMaxPerUser != 10 || len(c.AllowedOrigins) != 0 {
		t.Fatalf("unexpected event defaults: %+v", c)
	}
	if !c.CustomerFunding {
		t.Fatal("customer_funding defaults to true (the spec's behaviour)")
	}
	if c.RequireTwoFactorForAdmins {
		t.Fatal("require_2fa_for_admins defaults to false")
	}
	if c.DailyTransferLimit != 10_000_00 {
		t.Fatalf("daily_transfer_limit defaults to 10000.00, not %s", c.DailyTransferLimit)
	}
	// The token stays out of /ws's URL unless an operator keeps the first app's form.
	if c.WSQueryToken || c.PushURL != "https://exp.host/--/api/v2/push/send" || c.LockAfter != 5*time.Minute {
		t.Fatalf("ws_query_token false, push_url Expo's, lock_after 5m by default: %+v", c)
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
		"addr":                   "8080",
		"token_ttl":              "abc",
		"requests_ttl":           "-5m",
		"max_amount":             "1.234",
		"log_level":              "loud",
		"log_format":             "xml",
		"demo_seed":              "perhaps",
		"jwt_secret":             "short",
		"database_url":           "mysql:thing",
		"data_dir":               "",
		"lookup_per_minute":      "0",
		"expiry_interval":        "1ns",
		"scheduler_interval":     "50ms",
		"scheduled_max_active":   "0",
		"trusted_proxies":        "10.0.0.1, proxy.internal",
		"max_password_checks":    "-1",
		"database_app_role":      "app; DROP ROLE x",
		"seal_interval":          "0s",
		"allowed_origins":        "app.example.com",
		"ws_max_per_user":        "0",
		"request_timeout":        "0s",
		"database_pool_size":     "1",
		"customer_funding":       "sometimes",
		"require_2fa_for_admins": "maybe",
		"daily_transfer_limit":   "0",
		"database_read_urls":     "mysql://standby/db",
		"database_listen_url":    "mysql:thing",
		"replica_wait":           "-1ms",
		"transfer_batch":         "0",
		"transfer_batch_workers": "many",
		"push_url":               "exp.host/--/api/v2/push/send",
		"ws_query_token":         "sometimes",
		"lock_after":             "0s",
		"backup_interval":        "30s",
		"archive_timeout":        "1.5s",
		"backup_keep":            "-1",
		"otel_endpoint":          "collector:4318",
		"otel_sample_ratio":      "1.5",
		"shutdown_delay":         "-1s",
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

func load(t *testing.T, set map[string]string) (Config, error) {
	t.Helper()
	vals := map[string]string{}
	for _, k := range Keys {
		vals[k.Name] = k.Default
	}
	for k, v := range set {
		vals[k] = v
	}
	return Load(func(k string) string { return vals[k] })
}

// Demo data has published passwords: by default it goes only into the
// embedded database; with database_url it needs demo_seed=true.
func TestDemoSeedDefaultsByDatabase(t *testing.T) {
	ext := "postgres://app@db:5432/meridian"
	cases := []struct {
		set  map[string]string
		want bool
	}{
		{map[string]string{}, true},
		{map[string]string{"database_url": ext}, false},
		{map[string]string{"database_url": ext, "demo_seed": "auto"}, false},
		{map[string]string{"database_url": ext, "demo_seed": "true"}, true},
		{map[string]string{"demo_seed": "false"}, false},
		{map[string]string{"demo_seed": "AUTO"}, true},
	}
	for _, c := range cases {
		cfg, err := load(t, c.set)
		if err != nil {
			t.Fatalf("%v: %v", c.set, err)
		}
		if cfg.DemoSeed != c.want {
			t.Errorf("%v: DemoSeed = %v, want %v", c.set, cfg.DemoSeed, c.want)
		}
	}
}

func TestDatabaseRoleKeys(t *testing.T) {
	cfg, err := load(t, map[string]string{"database_url": "postgres://app@db/m", "database_owner_url": "postgres://owner@db/m"})
	if err != nil || cfg.DatabaseOwnerURL != "postgres://owner@db/m" || cfg.DatabaseAppRole != "meridian_app" {
		t.Fatalf("%+v %v", cfg, err)
	}
	if _, err := load(t, map[string]string{"database_owner_url": "postgres://owner@db/m"}); err == nil || !strings.Contains(err.Error(), "database_owner_url") {
		t.Fatalf("owner URL without database_url: %v", err)
	}
	if _, err := load(t, map[string]string{"database_url": "postgres://app@db/m", "database_owner_url": "mysql:x"}); err == nil || !strings.Contains(err.Error(), "database_owner_url") {
		t.Fatalf("bad owner URL: %v", err)
	}
}

func TestReadReplicaKeys(t *testing.T) {
	vals := map[string]string{}
	for _, k := range Keys {
		vals[k.Name] = k.Default
	}
	load := func() (Config, error) { return Load(func(k string) string { return vals[k] }) }
	c, err := load()
	if err != nil || c.DatabaseReadURLs != nil || c.DatabaseListenURL != "" || c.ReplicaWait != 200*time.Millisecond {
		t.Fatalf("defaults: %q %q %s %v", c.DatabaseReadURLs, c.DatabaseListenURL, c.ReplicaWait, err)
	}
	vals["database_read_urls"] = "postgres://r@standby1/m"
	if _, err := load(); err == nil || !strings.Contains(err.Error(), "database_read_urls needs database_url") {
		t.Fatalf("read URLs without database_url: %v", err)
	}
	vals["database_url"] = "postgres://app@primary/m"
	vals["database_read_urls"] = " postgres://r@standby1/m , ,postgres://r@standby2/m"
	vals["replica_wait"] = "0s"
	c, err = load()
	if err != nil || strings.Join(c.DatabaseReadURLs, " ") != "postgres://r@standby1/m postgres://r@standby2/m" || c.ReplicaWait != 0 {
		t.Fatalf("read URLs %q, wait %s (%v)", c.DatabaseReadURLs, c.ReplicaWait, err)
	}
	if c.DatabaseListenURL != "postgres://app@primary/m" {
		t.Fatalf("database_listen_url defaults to database_url, got %q", c.DatabaseListenURL)
	}
	vals["database_listen_url"] = "postgres://app@primary-direct/m"
	if c, err = load(); err != nil || c.DatabaseListenURL != "postgres://app@primary-direct/m" {
		t.Fatalf("database_listen_url %q (%v)", c.DatabaseListenURL, err)
	}
}

// Rules that the one-bad-value table cannot reach: the upper bounds of the
// batch keys, and a listen URL without database_url.
func TestMoreRefusals(t *testing.T) {
	for _, c := range []struct {
		vals map[string]string
		key  string
	}{
		{map[string]string{"transfer_batch": "1001"}, "transfer_batch"},
		{map[string]string{"transfer_batch_workers": "1001"}, "transfer_batch_workers"},
		{map[string]string{"scheduled_max_active": "100001"}, "scheduled_max_active"},
		{map[string]string{"scheduled_max_active": "ten"}, "scheduled_max_active"},
		{map[string]string{"database_listen_url": "postgres://app@primary-direct/m"}, "database_listen_url"},
	} {
		vals := map[string]string{}
		for _, k := range Keys {
			vals[k.Name] = k.Default
		}
		for k, v := range c.vals {
			vals[k] = v
		}
		if _, err := Load(func(k string) string { return vals[k] }); err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%v: got %v, want a refusal naming %s", c.vals, err, c.key)
		}
	}
	vals := map[string]string{}
	for _, k := range Keys {
		vals[k.Name] = k.Default
	}
	vals["transfer_batch"], vals["transfer_batch_workers"] = "1000", "1000"
	if c, err := Load(func(k string) string { return vals[k] }); err != nil || c.TransferBatch != 1000 || c.TransferBatchWorkers != 1000 {
		t.Fatalf("1000 refused: %v", err)
	}
}

func TestBackupKeys(t *testing.T) {
	c := Defaults()
	if c.BackupDir != "data/backups" || c.BackupInterval != 24*time.Hour || c.BackupKeep != 7 || c.ArchiveTimeout != time.Minute {
		t.Fatalf("backup defaults: dir %q interval %s keep %d archive_timeout %s", c.BackupDir, c.BackupInterval, c.BackupKeep, c.ArchiveTimeout)
	}
	vals := map[string]string{}
	for _, k := range Keys {
		vals[k.Name] = k.Default
	}
	vals["data_dir"], vals["backup_dir"], vals["backup_interval"], vals["archive_timeout"], vals["backup_keep"] = "/srv/m", "/mnt/other-disk/m", "0", "0", "0"
	c, err := Load(func(k string) string { return vals[k] })
	if err != nil || c.BackupDir != "/mnt/other-disk/m" || c.BackupInterval != 0 || c.ArchiveTimeout != 0 || c.BackupKeep != 0 {
		t.Fatalf("backup keys: %+v %v", c, err)
	}
	vals["backup_dir"] = ""
	if c, err = Load(func(k string) string { return vals[k] }); err != nil || c.BackupDir != "/srv/m/backups" {
		t.Fatalf("backup_dir follows data_dir: %q %v", c.BackupDir, err)
	}
}
