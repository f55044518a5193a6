package db

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The rules of contract §10 for migrations: each runs while the release
// before it serves, so none may hold a lock that stops that release for
// long, nor remove or change what it still reads. CheckMigrationRules
// applies them to a migration's files; pkg/db's tests apply it to every
// migration there is (migrationrules_test.go), so a new one that breaks a
// rule fails the build.
//
//   - lock_timeout: the file's first statement sets lock_timeout (SET LOCAL
//     in a file that runs in a transaction, SET in a no-transaction file),
//     to at most MaxMigrationLockTimeout, and nothing later lifts it. Every
//     statement then waits at most that long for a lock, so a migration that
//     cannot get its lock fails (and is run again) instead of queueing every
//     request of the serving release behind it.
//   - concurrently: an index on a table the file did not create is built
//     and dropped CONCURRENTLY (no lock that stops writes while it is
//     built); REINDEX likewise; a UNIQUE or PRIMARY KEY constraint is added
//     USING INDEX built that way.
//   - no_transaction: CONCURRENTLY cannot run in a transaction, so such
//     statements live in a file marked "-- meridian:no-transaction" (run
//     statement by statement, outside a transaction), where every statement
//     is safe to run again after a crash half-way: SET, RESET, or a
//     statement with IF [NOT] EXISTS; and an index is dropped (DROP INDEX
//     CONCURRENTLY IF EXISTS) before it is built, since a crash during the
//     build leaves an INVALID index that IF NOT EXISTS would keep.
//   - expand_contract (up files): a statement that removes or changes what a
//     running release may read or write (DROP TABLE, VIEW, FUNCTION, TYPE,
//     COLUMN; RENAME; ALTER COLUMN ... TYPE or SET NOT NULL; a NOT NULL
//     column without a DEFAULT, which the release before does not fill in)
//     is a contract step: it comes only in a release after the one that
//     stopped using the thing, and says so in the file, with
//     "-- meridian:contract-after NNNN: <why nothing running needs it>",
//     NNNN an earlier migration (the expand it follows).
//   - validate_later: a CHECK or FOREIGN KEY constraint added to a table the
//     file did not create is added NOT VALID (no scan under the lock), and
//     validated by a later statement (VALIDATE CONSTRAINT takes a lock that
//     lets reads and writes go on).
//
// Down files follow the lock rules; they undo an expand, so they are
// contract steps by nature and run only when a release is rolled back.

// NoTransactionMarker, as a line of a migration file, runs it statement by
// statement outside a transaction (for CREATE INDEX CONCURRENTLY).
const NoTransactionMarker = "-- meridian:no-transaction"

// contractMarker, as a line of an up file, declares its contract statements.
var contractMarker = regexp.MustCompile(`(?m)^--\s*meridian:contract-after\s+(\d+)\s*:\s*\S`)

// MaxMigrationLockTimeout is the longest lock_timeout a migration may set.
const MaxMigrationLockTimeout = time.Minute

// RuleViolation is one broken rule in one migration file.
type RuleViolation struct {
	File      string `json:"file"` // e.g. 0050_quiet_sealer.up.sql
	Rule      string `json:"rule"` // lock_timeout, concurrently, no_transaction, expand_contract, validate_later
	Statement string `json:"statement,omitempty"`
	Message   string `json:"message"`
}

func (v RuleViolation) String() string {
	if v.Statement == "" {
		return fmt.Sprintf("%s: %s: %s", v.File, v.Rule, v.Message)
	}
	return fmt.Sprintf("%s: %s: %s (%s)", v.File, v.Rule, v.Message, v.Statement)
}

// NoTransaction reports whether a migration file's body runs outside a
// transaction.
func NoTransaction(body string) bool {
	for _, line := range strings.Split(body, "\n") {
		if strings.TrimSpace(line) == NoTransactionMarker {
			return true
		}
	}
	return false
}

var (
	setLockTimeout  = regexp.MustCompile(`(?is)^SET\s+(LOCAL\s+)?LOCK_TIMEOUT\s*(?:=|TO)\s*'?\s*([0-9]+)\s*(ms|s|min)?\s*'?$`)
	liftLockTimeout = regexp.MustCompile(`^(SET (LOCAL |SESSION )?LOCK_TIMEOUT|RESET (LOCK_TIMEOUT|ALL))\b`)
	createTable     = regexp.MustCompile(`^CREATE (?:(?:GLOBAL |LOCAL )?(?:TEMPORARY |TEMP |UNLOGGED ))?TABLE (?:IF NOT EXISTS )?([A-Z0-9_."]+)`)
	createIndex     = regexp.MustCompile(`^CREATE (UNIQUE )?INDEX (CONCURRENTLY )?.*? ON (?:ONLY )?([A-Z0-9_."]+)`)
	dropIndex       = regexp.MustCompile(`^DROP INDEX (CONCURRENTLY )?`)
	reindex         = regexp.MustCompile(`^REINDEX (?:\(.*?\) )?(?:INDEX|TABLE|SCHEMA|DATABASE|SYSTEM) (CONCURRENTLY )?`)
	alterTable      = regexp.MustCompile(`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?([A-Z0-9_."]+) (.*)$`)
	contractDrop    = regexp.MustCompile(`^DROP (TABLE|VIEW|MATERIALIZED VIEW|FUNCTION|PROCEDURE|TYPE|DOMAIN|SEQUENCE|SCHEMA|TRIGGER)\b`)
	renameAny       = regexp.MustCompile(`^ALTER \w+(?: \w+)? .*\bRENAME\b`)
	createTrigger   = regexp.MustCompile(`^CREATE (?:OR REPLACE )?(?:CONSTRAINT )?TRIGGER ([A-Z0-9_."]+)`)
	dropTrigger     = regexp.MustCompile(`^DROP TRIGGER (?:IF EXISTS )?([A-Z0-9_."]+)`)
	alterType       = regexp.MustCompile(`ALTER (COLUMN )?\S+ (SET DATA )?TYPE `)
	setNotNull      = regexp.MustCompile(`ALTER (COLUMN )?\S+ SET NOT NULL`)
)

// CheckMigrationRules returns the rules m's files break. known holds every
// migration version there is (contract-after must name one before m).
func CheckMigrationRules(m Migration, known map[int]bool) []RuleViolation {
	base := fmt.Sprintf("%04d_%s", m.Version, m.Name)
	out := checkFile(base+".up.sql", m.Up, true, m.Version, known)
	return append(out, checkFile(base+".down.sql", m.Down, false, m.Version, known)...)
}

func checkFile(file, body string, up bool, version int, known map[int]bool) []RuleViolation {
	var out []RuleViolation
	add := func(rule string, st *Statement, format string, args ...any) {
		v := RuleViolation{File: file, Rule: rule, Message: fmt.Sprintf(format, args...)}
		if st != nil {
			v.Statement = shorten(st.Shape)
		}
		out = append(out, v)
	}
	notx := NoTransaction(body)
	stmts := SplitStatements(body)
	if len(stmts) == 0 {
		return nil
	}

	// lock_timeout first, never lifted.
	first := stmts[0]
	m := setLockTimeout.FindStringSubmatch(strings.TrimSpace(stripComments(first.Text)))
	switch {
	case m == nil:
		want := "SET LOCAL lock_timeout = '5s'"
		if notx {
			want = "SET lock_timeout = '5s'"
		}
		add("lock_timeout", &first, "the first statement must set lock_timeout (%s)", want)
	case notx && m[1] != "":
		add("lock_timeout", &first, "a no-transaction file runs outside a transaction, where SET LOCAL does nothing: SET lock_timeout")
	case !notx && m[1] == "":
		add("lock_timeout", &first, "in a transaction, SET LOCAL lock_timeout (a plain SET would outlive the migration on a pooled connection)")
	default:
		if d := lockDuration(m[2], m[3]); d <= 0 || d > MaxMigrationLockTimeout {
			add("lock_timeout", &first, "lock_timeout must be above 0 and at most %s, not %s", MaxMigrationLockTimeout, d)
		}
	}
	for i := 1; i < len(stmts); i++ {
		if liftLockTimeout.MatchString(stmts[i].Shape) {
			add("lock_timeout", &stmts[i], "lock_timeout is set once, by the first statement")
		}
	}

	created, triggers := map[string]bool{}, map[string]bool{}
	for _, st := range stmts {
		if c := createTable.FindStringSubmatch(st.Shape); c != nil {
			created[unquote(c[1])] = true
		}
		if c := createTrigger.FindStringSubmatch(st.Shape); c != nil {
			triggers[unquote(c[1])] = true
		}
	}
	contract := contractMarker.FindStringSubmatch(body)
	if contract != nil {
		after, _ := strconv.Atoi(contract[1])
		if !up {
			add("expand_contract", nil, "meridian:contract-after belongs in an up file")
		} else if after >= version || !known[after] {
			add("expand_contract", nil, "meridian:contract-after %04d must name an earlier migration", after)
		}
	}

	dropped := map[string]bool{} // indexes dropped so far
	for i := range stmts {
		st := &stmts[i]
		s := st.Shape
		concurrently := strings.Contains(s, " CONCURRENTLY ") || strings.HasSuffix(s, " CONCURRENTLY")
		if concurrently && !notx {
			add("no_transaction", st, "CONCURRENTLY cannot run in a transaction: put it in a file marked %q", NoTransactionMarker)
		}
		if notx && i > 0 && !strings.HasPrefix(s, "SET ") && !strings.HasPrefix(s, "RESET ") &&
			!strings.Contains(s, " IF NOT EXISTS ") && !strings.Contains(s, " IF EXISTS ") {
			add("no_transaction", st, "outside a transaction, a crash half-way runs the file again: each statement needs IF [NOT] EXISTS")
		}
		if c := createIndex.FindStringSubmatch(s); c != nil && c[2] != "" {
			// An index a crash left half-built is INVALID, and IF NOT
			// EXISTS would keep it: the file drops it first.
			if name := indexName(s); name != "" && !dropped[name] {
				add("no_transaction", st, "DROP INDEX CONCURRENTLY IF EXISTS %s before building it (a crash leaves an INVALID index that IF NOT EXISTS would keep)", name)
			}
		}
		if c := dropIndex.FindStringSubmatch(s); c != nil {
			rest := strings.TrimPrefix(s[len(c[0]):], "IF EXISTS ")
			for _, name := range strings.Split(strings.Fields(rest + " ")[0], ",") {
				dropped[unquote(name)] = true
			}
		}
		if c := createIndex.FindStringSubmatch(s); c != nil && c[2] == "" && !created[unquote(c[3])] {
			add("concurrently", st, "an index on %s, which holds data: CREATE INDEX CONCURRENTLY", unquote(c[3]))
		}
		if c := dropIndex.FindStringSubmatch(s); c != nil && c[1] == "" {
			add("concurrently", st, "DROP INDEX CONCURRENTLY")
		}
		if c := reindex.FindStringSubmatch(s); c != nil && c[1] == "" {
			add("concurrently", st, "REINDEX ... CONCURRENTLY")
		}
		if c := alterTable.FindStringSubmatch(s); c != nil && !created[unquote(c[1])] {
			table, action := unquote(c[1]), c[2]
			if (strings.Contains(action, "ADD CONSTRAINT") || strings.HasPrefix(action, "ADD PRIMARY KEY") || strings.HasPrefix(action, "ADD UNIQUE")) &&
				(strings.Contains(action, " UNIQUE") || strings.Contains(action, "PRIMARY KEY")) && !strings.Contains(action, " USING INDEX ") {
				add("concurrently", st, "a UNIQUE or PRIMARY KEY constraint on %s builds its index under a lock: CREATE UNIQUE INDEX CONCURRENTLY, then ADD CONSTRAINT ... USING INDEX", table)
			}
			if (strings.Contains(action, " CHECK ") || strings.Contains(action, " CHECK(") || strings.Contains(action, "FOREIGN KEY") || strings.Contains(action, " REFERENCES ")) &&
				strings.Contains(action, "ADD ") && !strings.Contains(action, "NOT VALID") && !strings.Contains(action, "ADD COLUMN") {
				add("validate_later", st, "a constraint on %s that holds data: ADD CONSTRAINT ... NOT VALID, then VALIDATE CONSTRAINT", table)
			}
			if up && contract == nil {
				if why := contractAction(action); why != "" {
					add("expand_contract", st, "%s on %s is a contract step: only after a release that no longer uses it, with \"-- meridian:contract-after NNNN: why\"", why, table)
				}
			}
		}
		if up && contract == nil {
			// A work table the file made, or a trigger it makes again (a
			// trigger is the database's own: no release calls it), are not
			// contract steps.
			replaced := (c2(contractDrop, s) == "TABLE" && droppedCreated(s, created)) ||
				(c2(contractDrop, s) == "TRIGGER" && triggers[unquote(c2(dropTrigger, s))])
			if c := contractDrop.FindStringSubmatch(s); c != nil && !replaced {
				add("expand_contract", st, "DROP %s is a contract step: only after a release that no longer uses it, with \"-- meridian:contract-after NNNN: why\"", c[1])
			} else if renameAny.MatchString(s) && alterTable.FindStringSubmatch(s) == nil {
				add("expand_contract", st, "RENAME is a contract step: the release before uses the old name")
			}
		}
	}
	return out
}

// c2 is the first group re matches in s, or "".
func c2(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); len(m) > 1 {
		return m[1]
	}
	return ""
}

// contractAction names what in an ALTER TABLE action a running release may
// depend on, or "".
func contractAction(action string) string {
	switch {
	case strings.Contains(action, "DROP COLUMN"):
		return "DROP COLUMN"
	case strings.Contains(action, "RENAME"):
		return "RENAME"
	case alterType.MatchString(action):
		return "a column's new TYPE"
	case setNotNull.MatchString(action):
		return "SET NOT NULL"
	case strings.Contains(action, "ADD COLUMN") && strings.Contains(action, "NOT NULL") && !strings.Contains(action, "DEFAULT"):
		return "a NOT NULL column without a DEFAULT (the release before inserts rows without it)"
	}
	return ""
}

// createIndexName matches the index's name in CREATE INDEX.
var createIndexName = regexp.MustCompile(`^CREATE (?:UNIQUE )?INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?([A-Z0-9_."]+) ON `)

// indexName is the name a CREATE INDEX gives ("" when it gives none).
func indexName(shape string) string { return unquote(c2(createIndexName, shape)) }

// droppedCreated: a DROP TABLE of tables this file created (a work table).
func droppedCreated(shape string, created map[string]bool) bool {
	rest := strings.TrimPrefix(strings.TrimPrefix(shape, "DROP TABLE "), "IF EXISTS ")
	for _, name := range strings.Split(strings.Fields(rest + " ")[0], ",") {
		if !created[unquote(name)] {
			return false
		}
	}
	return true
}

func lockDuration(n, unit string) time.Duration {
	v, _ := strconv.Atoi(n)
	switch strings.ToLower(unit) {
	case "s":
		return time.Duration(v) * time.Second
	case "min":
		return time.Duration(v) * time.Minute
	}
	return time.Duration(v) * time.Millisecond // no unit: milliseconds
}

// stripComments removes -- comments (for reading a SET's value).
func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
		b.WriteByte(' ')
	}
	return b.String()
}

func unquote(name string) string {
	name = strings.Trim(name, `"`)
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return strings.Trim(name, `"`)
}

func shorten(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
