//go:build cluster

package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"meridian/pkg/db"
	"meridian/pkg/loadtest"
)

// drillVersion is the version string of the release the drill upgrades to.
const drillVersion = "upgrade-drill"

// TestRollingUpgrade is contract §10's upgrade drill: two serve instances
// behind HAProxy, on the Patroni cluster, serve transfers and reads under
// load; a release with one more migration (testdata/9001_upgrade_drill: a
// column on accounts, an index built CONCURRENTLY on the ledger) is rolled
// out as README's "Upgrades without downtime" says: its migrations first,
// applied by the new binary while the old release serves (expand), then
// each instance in turn drained in HAProxy, stopped (SIGTERM: its requests
// in flight finish), started on the new binary and put back
// (cluster.sh upgrade-serve). No request may be answered 5xx or lose its
// connection, every transfer answered 201 must be in the ledger, and both
// instances must end on the new release.
func TestRollingUpgrade(t *testing.T) {
	oldBin := prerequisites(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	upSQL, downSQL := readFile("testdata/9001_upgrade_drill.up.sql"), readFile("testdata/9001_upgrade_drill.down.sql")
	if upSQL == "" || downSQL == "" {
		t.Fatal("testdata/9001_upgrade_drill.{up,down}.sql missing")
	}
	all, err := db.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	known := map[int]bool{9001: true}
	for _, m := range all {
		known[m.Version] = true
	}
	if vs := db.CheckMigrationRules(db.Migration{Version: 9001, Name: "upgrade_drill", Up: upSQL, Down: downSQL}, known); len(vs) > 0 {
		t.Fatalf("the drill's migration breaks contract §10's rules: %v", vs)
	}
	newBin := buildWithMigration(t)

	c := up2(t, oldBin)
	owner, err := db.Open(ctx, c.env["OWNER_PRIMARY_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	owner.SetMaxOpenConns(2)
	before, err := loadtest.TakeMark(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	const users = 24
	c.meridian(t, c.env["APP_PRIMARY_URL"], "seed", "--users", strconv.Itoa(users), "--seed", "8")
	customers, err := loadtest.BulkCustomers(ctx, owner, before.MaxUserID, 0, 0)
	if err != nil || len(customers) != users {
		t.Fatalf("seeded customers: %d, %v", len(customers), err)
	}
	mark, err := loadtest.TakeMark(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	versions := func() []string {
		var out []string
		for _, u := range []string{c.env["SERVE_A_URL"], c.env["SERVE_B_URL"]} {
			out = append(out, healthVersion(ctx, t, u))
		}
		return out
	}
	oldVersions := versions()
	if oldVersions[0] == drillVersion || oldVersions[1] == drillVersion {
		t.Fatalf("the instances run %v before the upgrade", oldVersions)
	}

	// The load: transfers and reads through HAProxy, until the end.
	writes, err := loadtest.New(loadtest.Options{BaseURL: c.env["URL"], Customers: customers[:users/2], Concurrency: 6,
		Duration: 10 * time.Minute, Seed: 31, RequestTimeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer writes.Close()
	reads, err := loadtest.New(loadtest.Options{BaseURL: c.env["URL"], Customers: customers[users/2:], Concurrency: 4,
		Seed: 37, RequestTimeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer reads.Close()
	if err := writes.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if err := reads.Login(ctx); err != nil {
		t.Fatal(err)
	}
	running := writes.Start(ctx)
	defer running.Stop()
	readDone := make(chan *loadtest.Report, 1)
	go func() {
		rep, err := reads.RunReads(ctx, 10*time.Minute)
		if err != nil {
			t.Error(err)
		}
		readDone <- rep
	}()
	time.Sleep(3 * time.Second)

	// 1. Expand: the new release's migration, applied by the new binary as
	// the schema's owner while the old release serves.
	started := time.Now()
	cmd := exec.Command(newBin, "migrate", "up", "--data-dir", filepath.Join(c.dir, "cli"), "--log-level", "warn")
	cmd.Env = append(cleanEnv(), "MERIDIAN_DATABASE_URL="+c.env["APP_PRIMARY_URL"], "MERIDIAN_DATABASE_OWNER_URL="+c.env["OWNER_PRIMARY_URL"])
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("migrate up with the new release: %v\n%s", err, out)
	}
	migrated := time.Since(started)
	// The old release stays ready beside a newer schema.
	for _, u := range []string{c.env["SERVE_A_URL"], c.env["SERVE_B_URL"]} {
		if status, body := get(ctx, t, loadtest.NewClient(1, 5*time.Second), u+"/readyz", "", ""); status != http.StatusOK {
			t.Fatalf("%s/readyz after the new release's migration: %d %s", u, status, body)
		}
	}
	time.Sleep(2 * time.Second)

	// 2. Roll: one instance at a time.
	var rolled []time.Duration
	for _, name := range []string{"a", "b"} {
		started := time.Now()
		c.script(t, "upgrade-serve", name, newBin)
		rolled = append(rolled, time.Since(started))
		time.Sleep(2 * time.Second)
	}
	time.Sleep(time.Second)
	wrep, err := running.Stop()
	if err != nil {
		t.Fatal(err)
	}
	reads.Stop()
	rrep := <-readDone
	if rrep == nil {
		t.Fatal("no read report")
	}

	// No 5xx, no connection lost, for writes and reads alike.
	for name, rep := range map[string]*loadtest.Report{"transfers": wrep, "reads": rrep} {
		t.Logf("%s: %d requests, answers %v, p50 %s p99 %s max %s", name, rep.Requests, rep.Status, rep.Latency.P50, rep.Latency.P99, rep.Latency.Max)
		for status, n := range rep.Status {
			if status == "network" || strings.HasPrefix(status, "5") {
				t.Errorf("%s: %d answered %s during the upgrade: %v", name, n, status, rep.ErrorSamples)
			}
		}
	}
	if wrep.Transfers == 0 || rrep.Requests == 0 {
		t.Fatalf("the load did nothing: %d transfers, %d reads", wrep.Transfers, rrep.Requests)
	}
	// Nothing lost: every 201 in the ledger, nothing else there.
	res, err := writes.Resolve(ctx)
	if err != nil || res.Unresolved > 0 {
		t.Fatalf("resolving: %+v %v", res, err)
	}
	inv, err := loadtest.CheckInvariants(ctx, owner, loadtest.InvariantOptions{ExpectedTotal: &mark.TotalBalance, Committed: writes.Committed(), ExactSince: mark.MaxTransactionID})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range inv.Problems {
		t.Errorf("invariant: %s", p)
	}
	// Both instances run the new release, on the expanded schema.
	if got := versions(); got[0] != drillVersion || got[1] != drillVersion {
		t.Errorf("after the upgrade the instances run %v, want %s", got, drillVersion)
	}
	var column, validIndex bool
	if err := owner.GetContext(ctx, &column, `SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'accounts' AND column_name = 'nickname')`); err != nil || !column {
		t.Errorf("accounts.nickname after the migration: %v %v", column, err)
	}
	if err := owner.GetContext(ctx, &validIndex, `SELECT indisvalid FROM pg_index WHERE indexrelid = 'transactions_to_created_idx'::regclass`); err != nil || !validIndex {
		t.Errorf("the index built CONCURRENTLY: valid %v, %v", validIndex, err)
	}
	var worst time.Duration
	for _, l := range []time.Duration{wrep.Latency.Max, rrep.Latency.Max} {
		worst = max(worst, l)
	}
	t.Logf("upgraded %v -> %s: migration %s under load, instance a rolled in %s, b in %s; %d transfers answered 201 checked in the ledger",
		oldVersions, drillVersion, migrated.Round(time.Millisecond), rolled[0].Round(time.Millisecond), rolled[1].Round(time.Millisecond), inv.CommittedChecked)
	fmt.Printf("UPGRADE drill: %d transfer requests and %d reads through HAProxy while the new release's migration ran (%.1f s) and both instances were replaced one at a time (%.1f s and %.1f s each): answers %s and %s; none 5xx, no connection lost; %d transfers answered 201 all in the ledger, invariant %s; slowest answer %s\n",
		wrep.Requests, rrep.Requests, migrated.Seconds(), rolled[0].Seconds(), rolled[1].Seconds(), statusText(wrep.Status), statusText(rrep.Status),
		inv.CommittedChecked, map[bool]string{true: "holds", false: "BROKEN"}[inv.OK], ms(worst))
}

// up2 brings up the cluster for the upgrade drill: no pgBackRest (the
// drill is about serve), the old binary on both instances.
func up2(t *testing.T, oldBin string) *cluster {
	return up(t, oldBin, "CLUSTER_POOLER=pgbouncer", "CLUSTER_BACKUPS=0")
}

// buildWithMigration builds the release the drill upgrades to: this tree
// with testdata/9001_upgrade_drill added to migrations/ (go build -overlay,
// which go:embed honours), version drillVersion.
func buildWithMigration(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	here, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	overlay := map[string]map[string]string{"Replace": {}}
	for _, f := range []string{"9001_upgrade_drill.up.sql", "9001_upgrade_drill.down.sql"} {
		overlay["Replace"][filepath.Join(root, "migrations", f)] = filepath.Join(here, f)
	}
	b, _ := json.Marshal(overlay)
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "meridian-next")
	started := time.Now()
	cmd := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-trimpath",
		"-ldflags", "-X meridian/cli.Version="+drillVersion, "-o", out, "./cmd/meridian")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the next release: %v\n%s", err, b)
	}
	t.Logf("built the next release (one more migration, 9001_upgrade_drill) in %s", time.Since(started).Round(time.Millisecond))
	return out
}

// healthVersion is the version an instance tells on /healthz.
func healthVersion(ctx context.Context, t *testing.T, base string) string {
	t.Helper()
	status, body := get(ctx, t, loadtest.NewClient(1, 5*time.Second), base+"/healthz", "", "")
	var h struct {
		Version string `json:"version"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &h) != nil {
		t.Fatalf("%s/healthz: %d %s", base, status, body)
	}
	return h.Version
}

// cleanEnv is the environment without MERIDIAN_* settings.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MERIDIAN_") {
			env = append(env, kv)
		}
	}
	return env
}

func statusText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
