// Package doctor checks a Meridian deployment as serve sees it and names
// what is wrong: the runtime role's privileges, the timeouts its
// connections carry, the schema, the read replicas and synchronous
// replication, WAL archiving, the base backups (embedded database) and the
// clocks. `meridian doctor` prints the findings and exits non-zero when one
// fails.
package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/backup"
	"meridian/pkg/db"
)

// Status is a finding's verdict.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn" // worth a look; doctor still exits 0
	Fail Status = "fail" // doctor exits non-zero naming it
	Skip Status = "skip" // does not apply to this deployment
)

// Finding is one check's outcome.
type Finding struct {
	Check  string `json:"check"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
}

// Report is every finding. OK when none failed.
type Report struct {
	OK       bool      `json:"ok"`
	Findings []Finding `json:"findings"`
}

// Failed lists the failed findings.
func (r *Report) Failed() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Status == Fail {
			out = append(out, f)
		}
	}
	return out
}

// Replica is a read replica (database_read_urls), opened as serve opens it.
type Replica struct {
	Name string
	DB   *sqlx.DB
}

// Target is the deployment to check.
type Target struct {
	// DB is database_url's pool opened as serve opens it (db.Timeouts of
	// RequestTimeout), signed in as the runtime role.
	DB             *sqlx.DB
	AppRole        string
	RequestTimeout time.Duration
	Replicas       []Replica
	// Embedded: the embedded database, whose base backups and WAL archive
	// live in BackupDir and are taken every BackupInterval.
	Embedded       bool
	BackupDir      string
	BackupInterval time.Duration
	// MaxClockSkew is the largest difference allowed between this machine's
	// clock and a database's (default 1 s); MaxReplicaLag how far behind a
	// replica may be (default 30 s).
	MaxClockSkew  time.Duration
	MaxReplicaLag time.Duration
	// Now is this machine's clock (default time.Now).
	Now func() time.Time
}

// Run runs every check.
func Run(ctx context.Context, t Target) *Report {
	if t.MaxClockSkew <= 0 {
		t.MaxClockSkew = time.Second
	}
	if t.MaxReplicaLag <= 0 {
		t.MaxReplicaLag = 30 * time.Second
	}
	if t.Now == nil {
		t.Now = time.Now
	}
	r := &Report{}
	add := func(f Finding) { r.Findings = append(r.Findings, f) }
	if f := checkDatabase(ctx, t); f.Status == Fail {
		add(f)
		r.OK = false
		return r // nothing else can be checked
	} else {
		add(f)
	}
	add(checkSchema(ctx, t))
	add(checkPrivileges(ctx, t))
	add(checkTimeouts(ctx, t))
	add(checkClock(ctx, "clock", t.DB, t))
	for _, f := range checkReplication(ctx, t) {
		add(f)
	}
	a, err := db.ArchiverStatus(ctx, t.DB)
	if err != nil {
		add(Finding{"wal archiving", Fail, "cannot read pg_stat_archiver: " + err.Error()})
	} else {
		add(CheckArchiver(a))
	}
	add(checkBackups(t))
	r.OK = len(r.Failed()) == 0
	return r
}

func checkDatabase(ctx context.Context, t Target) Finding {
	var user string
	var recovering bool
	var version string
	err := t.DB.QueryRowxContext(ctx, `SELECT current_user, pg_is_in_recovery(), current_setting('server_version')`).Scan(&user, &recovering, &version)
	switch {
	case err != nil:
		return Finding{"database", Fail, "database_url does not answer: " + err.Error()}
	case recovering:
		return Finding{"database", Fail, "database_url reaches a standby (in recovery), not the primary: writes would fail"}
	case t.AppRole != "" && user != t.AppRole:
		return Finding{"database", Warn, fmt.Sprintf("database_url signs in as %s, not database_app_role %s", user, t.AppRole)}
	}
	return Finding{"database", OK, fmt.Sprintf("the primary answers, PostgreSQL %s, signed in as %s", version, user)}
}

func checkSchema(ctx context.Context, t Target) Finding {
	current, err := db.Current(ctx, t.DB)
	switch {
	case err != nil:
		return Finding{"schema", Fail, "cannot read schema_migrations: " + err.Error()}
	case !current:
		return Finding{"schema", Fail, "migrations are pending: run meridian migrate up as the owner"}
	}
	return Finding{"schema", OK, "every migration of this release is applied"}
}

func checkPrivileges(ctx context.Context, t Target) Finding {
	problems, err := db.RuntimePrivilegeProblems(ctx, t.DB)
	switch {
	case err != nil:
		return Finding{"roles and grants", Fail, err.Error()}
	case len(problems) > 0:
		return Finding{"roles and grants", Fail, strings.Join(problems, "; ")}
	}
	return Finding{"roles and grants", OK, "the runtime role may read and write the bank, only insert into the ledger and the audit log, and owns nothing"}
}

// checkTimeouts: serve's connections must end a statement at
// request_timeout and a lock wait before it, on the primary and every
// replica (behind PgBouncer they come from the role's settings).
func checkTimeouts(ctx context.Context, t Target) Finding {
	pools := append([]Replica{{Name: "database_url", DB: t.DB}}, t.Replicas...)
	var bad []string
	for _, p := range pools {
		var stmt, lock int64
		err := p.DB.QueryRowxContext(ctx, `SELECT (SELECT setting::bigint FROM pg_settings WHERE name = 'statement_timeout'),
			(SELECT setting::bigint FROM pg_settings WHERE name = 'lock_timeout')`).Scan(&stmt, &lock)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", p.Name, err))
			continue
		}
		st, lt := time.Duration(stmt)*time.Millisecond, time.Duration(lock)*time.Millisecond
		switch {
		case st == 0:
			bad = append(bad, p.Name+": no statement_timeout (behind PgBouncer: ALTER ROLE ... SET statement_timeout)")
		case t.RequestTimeout > 0 && st > t.RequestTimeout:
			bad = append(bad, fmt.Sprintf("%s: statement_timeout %s is longer than request_timeout %s", p.Name, st, t.RequestTimeout))
		}
		switch {
		case lt == 0:
			bad = append(bad, p.Name+": no lock_timeout (ALTER ROLE ... SET lock_timeout)")
		case st > 0 && lt >= st:
			bad = append(bad, fmt.Sprintf("%s: lock_timeout %s is not shorter than statement_timeout %s", p.Name, lt, st))
		}
	}
	if len(bad) > 0 {
		return Finding{"timeouts", Fail, strings.Join(bad, "; ")}
	}
	return Finding{"timeouts", OK, fmt.Sprintf("every connection ends a statement by request_timeout (%s) and a lock wait before it", t.RequestTimeout)}
}

// checkClock compares this machine's clock with a database's: token
// lifetimes, scheduled runs and restore targets all read both.
func checkClock(ctx context.Context, name string, q *sqlx.DB, t Target) Finding {
	before := t.Now()
	var dbNow time.Time
	if err := q.GetContext(ctx, &dbNow, `SELECT clock_timestamp()`); err != nil {
		return Finding{name, Fail, "cannot read the database's clock: " + err.Error()}
	}
	after := t.Now()
	mid := before.Add(after.Sub(before) / 2)
	skew := dbNow.Sub(mid)
	if skew < 0 {
		skew = -skew
	}
	detail := fmt.Sprintf("this machine and the database differ by %s (round trip %s)", skew.Round(time.Millisecond), after.Sub(before).Round(time.Millisecond))
	switch {
	case skew > t.MaxClockSkew:
		return Finding{name, Fail, detail + fmt.Sprintf(", more than %s: run NTP on both", t.MaxClockSkew)}
	case skew > t.MaxClockSkew/4:
		return Finding{name, Warn, detail}
	}
	return Finding{name, OK, detail}
}

// checkReplication: each replica answers, is a standby, and is not far
// behind; the primary's synchronous replication, when asked for, has a
// standby to wait for (otherwise every commit hangs).
func checkReplication(ctx context.Context, t Target) []Finding {
	var out []Finding
	var syncCommit, syncNames string
	if err := t.DB.QueryRowxContext(ctx, `SELECT current_setting('synchronous_commit'), current_setting('synchronous_standby_names')`).Scan(&syncCommit, &syncNames); err != nil {
		return []Finding{{"replication", Fail, err.Error()}}
	}
	if syncNames != "" && syncCommit != "local" && syncCommit != "off" {
		var visible, sync int
		err := t.DB.QueryRowxContext(ctx, `SELECT count(*) FILTER (WHERE state IS NOT NULL), count(*) FILTER (WHERE sync_state IN ('sync', 'quorum')) FROM pg_stat_replication`).Scan(&visible, &sync)
		switch {
		case err != nil:
			out = append(out, Finding{"synchronous replication", Fail, err.Error()})
		case sync > 0:
			out = append(out, Finding{"synchronous replication", OK, fmt.Sprintf("synchronous_commit = %s with %d synchronous standby(s) streaming", syncCommit, sync)})
		case visible == 0:
			out = append(out, Finding{"synchronous replication", Warn, fmt.Sprintf("synchronous_standby_names = %q, but this role cannot see pg_stat_replication (GRANT pg_monitor to it to let doctor check)", syncNames)})
		default:
			out = append(out, Finding{"synchronous replication", Fail, fmt.Sprintf("synchronous_standby_names = %q but no synchronous standby streams: every commit waits", syncNames)})
		}
	} else if !t.Embedded {
		out = append(out, Finding{"synchronous replication", Warn, fmt.Sprintf("synchronous_commit = %s, synchronous_standby_names = %q: a failover may lose commits answered 201 (contract §7: remote_apply)", syncCommit, syncNames)})
	}
	if len(t.Replicas) == 0 {
		return append(out, Finding{"read replicas", Skip, "no database_read_urls"})
	}
	var primaryLSN string
	if err := t.DB.GetContext(ctx, &primaryLSN, `SELECT pg_current_wal_lsn()::text`); err != nil {
		return append(out, Finding{"read replicas", Fail, err.Error()})
	}
	for _, r := range t.Replicas {
		name := "replica " + r.Name
		var recovering bool
		var behind int64
		var replayAge *float64
		err := r.DB.QueryRowxContext(ctx, `SELECT pg_is_in_recovery(), COALESCE(pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn()), 0)::bigint,
			CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0 ELSE EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) END`,
			primaryLSN).Scan(&recovering, &behind, &replayAge)
		switch {
		case err != nil:
			out = append(out, Finding{name, Fail, "does not answer: " + err.Error()})
			continue
		case !recovering:
			out = append(out, Finding{name, Fail, "is not a standby (not in recovery): reads there may miss the primary's writes"})
			continue
		}
		lag := time.Duration(0)
		if replayAge != nil && behind > 0 {
			lag = time.Duration(*replayAge * float64(time.Second))
		}
		detail := fmt.Sprintf("a standby, %d bytes behind the primary", max(behind, 0))
		if lag > t.MaxReplicaLag {
			out = append(out, Finding{name, Fail, fmt.Sprintf("%s, its last replayed commit %s old (more than %s)", detail, lag.Round(time.Second), t.MaxReplicaLag)})
			continue
		}
		out = append(out, Finding{name, OK, detail})
		out = append(out, checkClock(ctx, name+" clock", r.DB, t))
	}
	return out
}

// CheckArchiver judges PostgreSQL's WAL archiving.
func CheckArchiver(a db.Archiver) Finding {
	switch {
	case a.Mode == "off":
		return Finding{"wal archiving", Fail, "archive_mode is off: no point-in-time recovery (embedded: backup_dir; external: pgBackRest's archive_command)"}
	case a.Failing():
		return Finding{"wal archiving", Fail, fmt.Sprintf("archive_command fails: %s could not be archived at %s (%d failures since the statistics were reset); PostgreSQL's log says why",
			a.LastFailedWAL, a.LastFailed.UTC().Format(time.RFC3339), a.Failed)}
	case a.Archived == 0:
		return Finding{"wal archiving", OK, "archive_mode on; nothing archived yet"}
	}
	return Finding{"wal archiving", OK, fmt.Sprintf("archive_mode on; %s archived at %s", a.LastArchivedWAL, a.LastArchived.UTC().Format(time.RFC3339))}
}

// checkBackups: on the embedded database, a base backup no older than
// backup_interval and a quarter, and a WAL archive with no gap after the
// oldest (file sizes only; meridian backup check reads them whole).
func checkBackups(t Target) Finding {
	if !t.Embedded {
		return Finding{"backups", Skip, "an external database is backed up by pgBackRest: pgbackrest --stanza=meridian info"}
	}
	var maxAge time.Duration
	if t.BackupInterval > 0 {
		maxAge = t.BackupInterval + t.BackupInterval/4
	}
	inv, err := backup.List(t.BackupDir)
	if err != nil {
		return Finding{"backups", Fail, err.Error()}
	}
	newest := inv.Newest()
	if newest == nil {
		return Finding{"backups", Fail, fmt.Sprintf("%s holds no base backup: serve takes one at start, or run meridian backup now", t.BackupDir)}
	}
	age := t.Now().Sub(newest.Started)
	if maxAge > 0 && age > maxAge {
		return Finding{"backups", Fail, fmt.Sprintf("the newest base backup, %s, is %s old (more than %s)", newest.Name, age.Round(time.Minute), maxAge)}
	}
	if missing := backup.Gaps(t.BackupDir, inv); len(missing) > 0 {
		return Finding{"backups", Fail, fmt.Sprintf("the WAL archive misses %d segment(s) (first: %s): a restore cannot pass that point", len(missing), missing[0])}
	}
	return Finding{"backups", OK, fmt.Sprintf("%d base backup(s), the newest %s old; %d archived WAL segments without a gap", len(inv.Backups), age.Round(time.Minute), inv.WAL.Segments)}
}
