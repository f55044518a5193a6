package db_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/pkg/db"
	"meridian/pkg/testdb"
)

// grandfathered are the migrations written before contract §10's rules.
// They are applied everywhere and an applied migration is never edited, so
// they stay as they are; each says why it may break them. A new migration
// is never added here: it follows the rules.
var grandfathered = map[int]string{
	1:  "creates the schema on an empty database: no release serves before it",
	2:  "written before §10; adds the ledger totals and their trigger to a young schema (locks the ledger while it sums it)",
	3:  "written before §10; new tables only, but sets no lock_timeout",
	4:  "written before §10; replaces the notify triggers by the sealer and indexes audit_log and notifications without CONCURRENTLY",
	5:  "written before §10; rebuilds ledger_totals per currency (a NOT NULL column, a new primary key) in one locked step",
	6:  "written before §10; replaces the ledger totals' trigger and function in one transaction",
	7:  "written before §10; new trigger and function, no lock_timeout",
	8:  "written before §10; new functions, no lock_timeout",
	9:  "written before §10; drops foreign keys of the hot path (its down file adds them back without NOT VALID)",
	10: "written before §10; a new view, no lock_timeout",
	11: "written before §10; gives auth_tokens an id (a primary key and SET NOT NULL under lock)",
	12: "written before §10; new tables, no lock_timeout",
	13: "written before §10; transfer_money's signature changed in one release (its old form dropped)",
	14: "written before §10; new tables, no lock_timeout",
	15: "written before §10; a statement index on transactions built without CONCURRENTLY",
	16: "written before §10; transfer_refused replaced by the batch functions in one release",
	17: "written before §10; event_seal replaced (CREATE OR REPLACE), no lock_timeout",
}

// TestMigrationsFollowTheRules reads every migration file: each follows
// contract §10's rules (db.CheckMigrationRules), or is grandfathered above
// with its reason. An entry that no longer breaks any rule must go.
func TestMigrationsFollowTheRules(t *testing.T) {
	all, err := db.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	known := map[int]bool{}
	for _, m := range all {
		known[m.Version] = true
	}
	for v, why := range grandfathered {
		if !known[v] || strings.TrimSpace(why) == "" {
			t.Errorf("grandfathered %04d: no such migration, or no reason", v)
		}
	}
	for _, m := range all {
		vs := db.CheckMigrationRules(m, known)
		if _, ok := grandfathered[m.Version]; ok {
			if len(vs) == 0 {
				t.Errorf("%04d_%s follows the rules now: take it off the grandfathered list", m.Version, m.Name)
			}
			continue
		}
		for _, v := range vs {
			t.Errorf("%s", v)
		}
	}
}

// TestMigrationRulesRefuse: each rule refuses what it is about, and lets
// the right way through.
func TestMigrationRulesRefuse(t *testing.T) {
	known := map[int]bool{40: true, 41: true}
	check := func(up, down string) []db.RuleViolation {
		return db.CheckMigrationRules(db.Migration{Version: 41, Name: "t", Up: up, Down: down}, known)
	}
	const okDown = "SET LOCAL lock_timeout = '5s';\nSELECT 1;"
	for _, tc := range []struct {
		name, up, rule string
	}{
		{"no lock_timeout", "ALTER TABLE accounts ADD COLUMN nickname text;", "lock_timeout"},
		{"lock_timeout later", "ALTER TABLE accounts ADD COLUMN nickname text;\nSET LOCAL lock_timeout = '5s';", "lock_timeout"},
		{"plain SET in a transaction", "SET lock_timeout = '5s';\nALTER TABLE accounts ADD COLUMN nickname text;", "lock_timeout"},
		{"lock_timeout 0", "SET LOCAL lock_timeout = 0;\nALTER TABLE accounts ADD COLUMN nickname text;", "lock_timeout"},
		{"lock_timeout too long", "SET LOCAL lock_timeout = '10min';\nALTER TABLE accounts ADD COLUMN nickname text;", "lock_timeout"},
		{"lock_timeout lifted", "SET LOCAL lock_timeout = '5s';\nRESET lock_timeout;\nSELECT 1;", "lock_timeout"},
		{"index without CONCURRENTLY", "SET LOCAL lock_timeout = '5s';\nCREATE INDEX t_idx ON transactions (created_at);", "concurrently"},
		{"drop index without CONCURRENTLY", "SET LOCAL lock_timeout = '5s';\nDROP INDEX t_idx;", "concurrently"},
		{"reindex", "SET LOCAL lock_timeout = '5s';\nREINDEX TABLE transactions;", "concurrently"},
		{"unique constraint", "SET LOCAL lock_timeout = '5s';\nALTER TABLE users ADD CONSTRAINT u UNIQUE (phone_number);", "concurrently"},
		{"CONCURRENTLY in a transaction", "SET LOCAL lock_timeout = '5s';\nCREATE INDEX CONCURRENTLY t_idx ON transactions (created_at);", "no_transaction"},
		{"no-transaction statement not idempotent", "-- meridian:no-transaction\nSET lock_timeout = '5s';\nCREATE INDEX CONCURRENTLY t_idx ON transactions (created_at);", "no_transaction"},
		{"an index built without dropping a half-built one", "-- meridian:no-transaction\nSET lock_timeout = '5s';\nCREATE INDEX CONCURRENTLY IF NOT EXISTS t_idx ON transactions (created_at);", "no_transaction"},
		{"drop column", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts DROP COLUMN nickname;", "expand_contract"},
		{"rename column", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts RENAME COLUMN balance TO amount;", "expand_contract"},
		{"rename table", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts RENAME TO wallets;", "expand_contract"},
		{"column type", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts ALTER COLUMN balance TYPE numeric(30, 2);", "expand_contract"},
		{"set not null", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts ALTER COLUMN nickname SET NOT NULL;", "expand_contract"},
		{"not null without default", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts ADD COLUMN nickname text NOT NULL;", "expand_contract"},
		{"drop table", "SET LOCAL lock_timeout = '5s';\nDROP TABLE payees;", "expand_contract"},
		{"drop function", "SET LOCAL lock_timeout = '5s';\nDROP FUNCTION transfer_money(bigint);", "expand_contract"},
		{"contract after a later migration", "-- meridian:contract-after 41: nothing reads it\nSET LOCAL lock_timeout = '5s';\nALTER TABLE accounts DROP COLUMN nickname;", "expand_contract"},
		{"check constraint validated at once", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts ADD CONSTRAINT positive CHECK (balance >= 0);", "validate_later"},
		{"foreign key validated at once", "SET LOCAL lock_timeout = '5s';\nALTER TABLE payees ADD CONSTRAINT p FOREIGN KEY (user_id) REFERENCES users (id);", "validate_later"},
	} {
		vs := check(tc.up, okDown)
		found := false
		for _, v := range vs {
			found = found || v.Rule == tc.rule
		}
		if !found {
			t.Errorf("%s: no %s violation in %v", tc.name, tc.rule, vs)
		}
	}
	for _, tc := range []struct{ name, up string }{
		{"expand: nullable column", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts ADD COLUMN nickname text;"},
		{"expand: NOT NULL with a default", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts ADD COLUMN tier int NOT NULL DEFAULT 0;"},
		{"a new table and its index", "SET LOCAL lock_timeout = '5s';\nCREATE TABLE cards (id bigint PRIMARY KEY, pan_last4 text);\nCREATE INDEX cards_pan ON cards (pan_last4);"},
		{"index concurrently", "-- meridian:no-transaction\nSET lock_timeout = '5s';\nDROP INDEX CONCURRENTLY IF EXISTS t_idx;\nCREATE INDEX CONCURRENTLY IF NOT EXISTS t_idx ON transactions (created_at);"},
		{"constraint not valid, validated later", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts ADD CONSTRAINT positive CHECK (balance >= 0) NOT VALID;\nALTER TABLE accounts VALIDATE CONSTRAINT positive;"},
		{"contract after its expand", "-- meridian:contract-after 40: 0040 moved every reader to nickname2; the release before 41 reads nickname2 only\nSET LOCAL lock_timeout = '5s';\nALTER TABLE accounts DROP COLUMN nickname;"},
		{"a function replaced", "SET LOCAL lock_timeout = '5s';\nCREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; DROP TABLE x $$;"},
		{"a trigger made again", "SET LOCAL lock_timeout = '5s';\nDROP TRIGGER t ON accounts;\nCREATE TRIGGER t AFTER INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION f();"},
		{"milliseconds", "SET LOCAL lock_timeout TO 3000;\nSELECT 1;"},
	} {
		if vs := check(tc.up, okDown); len(vs) > 0 {
			t.Errorf("%s: %v", tc.name, vs)
		}
	}
	// Down files undo an expand: the lock rules hold there, not expand/contract.
	if vs := check("SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts ADD COLUMN nickname text;", "SET LOCAL lock_timeout = '5s';\nALTER TABLE accounts DROP COLUMN nickname;"); len(vs) > 0 {
		t.Errorf("a down file that drops what its up added: %v", vs)
	}
	if vs := check("SET LOCAL lock_timeout = '5s';\nSELECT 1;", "ALTER TABLE accounts DROP COLUMN nickname;"); len(vs) != 1 || vs[0].File != "0041_t.down.sql" || vs[0].Rule != "lock_timeout" {
		t.Errorf("a down file without lock_timeout: %v", vs)
	}
}

// TestSplitStatements: semicolons inside comments, strings, quoted names
// and function bodies do not end a statement, and the shape hides them.
func TestSplitStatements(t *testing.T) {
	sql := `-- a comment; with a semicolon
SET LOCAL lock_timeout = '5s';
/* a block; /* nested; */ comment */ CREATE FUNCTION f() RETURNS text LANGUAGE plpgsql AS $body$
BEGIN DROP TABLE x; RETURN 'a;b'; END $body$;
INSERT INTO "odd;name" VALUES ('it''s; fine', E'back\'slash;', $$dollar;$$, $1);
`
	st := db.SplitStatements(sql)
	if len(st) != 3 {
		t.Fatalf("%d statements: %q", len(st), st)
	}
	if st[1].Shape != "CREATE FUNCTION F() RETURNS TEXT LANGUAGE PLPGSQL AS '…'" {
		t.Errorf("shape %q", st[1].Shape)
	}
	if !strings.HasPrefix(st[2].Shape, `INSERT INTO "ODD;NAME" VALUES ('…', E'…', '…', $1)`) {
		t.Errorf("shape %q", st[2].Shape)
	}
	if !strings.Contains(st[1].Text, "DROP TABLE x; RETURN 'a;b';") {
		t.Errorf("text %q", st[1].Text)
	}
}

// TestNoTransactionMigration: a file marked meridian:no-transaction builds
// an index CONCURRENTLY while rows are being inserted, under the migration
// lock, and is recorded; the same file in a transaction cannot run.
func TestNoTransactionMigration(t *testing.T) {
	ctx := context.Background()
	conn := testdb.New(t)
	if _, err := conn.Exec(`CREATE TABLE drill (id bigint GENERATED ALWAYS AS IDENTITY, x int); INSERT INTO drill (x) SELECT g FROM generate_series(1, 20000) g`); err != nil {
		t.Fatal(err)
	}
	body := "-- meridian:no-transaction\nSET lock_timeout = '5s';\nDROP INDEX CONCURRENTLY IF EXISTS drill_x;\nCREATE INDEX CONCURRENTLY IF NOT EXISTS drill_x ON drill (x);\n"
	m := db.Migration{Version: 99001, Name: "drill_index", Up: body, Down: "-- meridian:no-transaction\nSET lock_timeout = '5s';\nDROP INDEX CONCURRENTLY IF EXISTS drill_x;"}
	if vs := db.CheckMigrationRules(m, map[int]bool{99001: true}); len(vs) > 0 {
		t.Fatalf("the test's migration breaks the rules: %v", vs)
	}
	// Writers go on while the index is built.
	var stop atomic.Bool
	var wg sync.WaitGroup
	var inserted atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if _, err := conn.Exec(`INSERT INTO drill (x) VALUES (1)`); err == nil {
				inserted.Add(1)
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	err := db.ApplyForTest(ctx, conn, m)
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	var valid bool
	if err := conn.Get(&valid, `SELECT indisvalid FROM pg_index WHERE indexrelid = 'drill_x'::regclass`); err != nil || !valid {
		t.Fatalf("the index is not valid: %v %v", valid, err)
	}
	var recorded bool
	if err := conn.Get(&recorded, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = 99001)`); err != nil || !recorded {
		t.Fatalf("not recorded: %v %v", recorded, err)
	}
	var lockTimeout string
	if err := conn.Get(&lockTimeout, `SHOW lock_timeout`); err != nil || lockTimeout != "0" {
		t.Fatalf("the pool's lock_timeout after the migration: %q %v", lockTimeout, err)
	}
	if inserted.Load() == 0 {
		t.Fatal("no row was inserted while the index was built")
	}
	// Without the marker, the same statements run in a transaction: refused.
	m2 := db.Migration{Version: 99002, Name: "in_a_transaction", Up: strings.Replace(body, db.NoTransactionMarker, "--", 1), Down: m.Down}
	if err := db.ApplyForTest(ctx, conn, m2); err == nil || !strings.Contains(err.Error(), "cannot run inside a transaction block") {
		t.Fatalf("CREATE INDEX CONCURRENTLY in a transaction: %v", err)
	}
}

// TestCurrentWithANewerRelease: the release before an upgrade stays ready
// beside the newer release's migrations (a rolling upgrade); a missing
// migration of its own makes it unready.
func TestCurrentWithANewerRelease(t *testing.T) {
	ctx := context.Background()
	conn := testdb.New(t)
	if _, err := conn.Exec(`INSERT INTO schema_migrations (version, name) VALUES (99003, 'from_the_next_release')`); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.Current(ctx, conn); err != nil || !ok {
		t.Fatalf("current beside a newer release's migration: %v %v", ok, err)
	}
	if _, err := conn.Exec(`DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations WHERE version < 99003)`); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.Current(ctx, conn); err != nil || ok {
		t.Fatalf("current without its own newest migration: %v %v", ok, err)
	}
}
