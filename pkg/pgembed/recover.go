package pgembed

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// RecoverOptions configures Recover.
type RecoverOptions struct {
	// DataDir is the Meridian data dir whose postgres/ holds a base backup
	// (unpacked, its WAL in pg_wal) and nothing is running on it.
	DataDir string
	// BinDir: as Options.BinDir.
	BinDir string
	// RestoreCommand fetches archived WAL (RestoreCommand(dir) for an archive
	// made by ArchiveCommand).
	RestoreCommand string
	// Target is the time to recover to: every transaction committed at or
	// before it is replayed, none after. Zero: the end of the archive.
	Target time.Time
	// Logger receives progress messages. Default slog.Default().
	Logger *slog.Logger
	// Timeout bounds the whole replay. Default 6 hours.
	Timeout time.Duration
}

// Recovered tells where a recovery ended.
type Recovered struct {
	// LastCommit is the commit time of the last transaction replayed (zero
	// when the archive held none after the base backup).
	LastCommit time.Time
	// Timeline is the timeline the cluster continues on after the recovery.
	Timeline int
	// Took is how long the replay ran.
	Took time.Duration
}

// ErrTargetNotReached is Recover's error when the archive ends before the
// target time: the WAL of that moment was never archived.
var ErrTargetNotReached = errors.New("the WAL archive ends before the recovery target")

// Recover replays archived WAL on a restored base backup in DataDir/postgres
// up to o.Target (or the end of the archive), ends recovery there (the
// cluster continues on a new timeline, as a primary) and shuts the server
// down cleanly, so that the next Start runs the recovered cluster. The
// server runs only for the replay, on DataDir/run, archiving nothing.
func Recover(ctx context.Context, o RecoverOptions) (*Recovered, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Timeout <= 0 {
		o.Timeout = 6 * time.Hour
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("pgembed: %w", err)
	}
	c := &Cluster{
		dataDir:   dataDir,
		pgData:    filepath.Join(dataDir, "postgres"),
		socketDir: filepath.Join(dataDir, "run"),
		logPath:   filepath.Join(dataDir, "postgres.log"),
		database:  maintenanceDB,
		logger:    o.Logger,
	}
	version := readPGVersion(c.pgData)
	if version == "" {
		return nil, fmt.Errorf("pgembed: %s holds no PostgreSQL cluster to recover", c.pgData)
	}
	if pid, err := c.runningPostmaster(); err != nil || pid != 0 {
		return nil, fmt.Errorf("pgembed: a server is running on %s (pid %d); stop it first (%v)", c.pgData, pid, err)
	}
	owner, err := serverUser()
	if err != nil {
		return nil, err
	}
	if c.binDir, err = resolveBinDir(o.BinDir, version); err != nil {
		return nil, err
	}
	env := serverEnv(c.binDir)
	if err := checkVersion(c.binDir, env, c.pgData, version); err != nil {
		return nil, err
	}
	if err := c.prepareDirs(owner); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(c.pgData, "recovery.signal"), nil, 0o600); err != nil {
		return nil, fmt.Errorf("pgembed: %w", err)
	}
	if owner != nil {
		if err := chownTree(c.pgData, owner); err != nil {
			return nil, err
		}
	}
	c.settings = []string{"archive_mode=off", "restore_command=" + o.RestoreCommand, "recovery_target_action=promote",
		"recovery_target_timeline=latest"}
	if !o.Target.IsZero() {
		c.settings = append(c.settings, "recovery_target_time="+o.Target.UTC().Format("2006-01-02 15:04:05.999999")+"+00",
			"recovery_target_inclusive=on")
	}

	logFile, err := os.OpenFile(c.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("pgembed: cannot open %s: %w", c.logPath, err)
	}
	defer logFile.Close()
	offset := fileSize(logFile)

	start := time.Now()
	deadline := start.Add(o.Timeout)
	o.Logger.Info("Replaying archived WAL", slog.String("pgdata", c.pgData), slog.Time("target", o.Target))
	// The server must not outlive us: it replays for this command only.
	if err := c.startServer(ctx, c.binDir, env, owner, logFile, false, true, deadline); err != nil {
		if tail := logTail(c.logPath, offset); isTargetNotReached(tail) {
			return nil, fmt.Errorf("%w (%s); last lines of %s:\n%s", ErrTargetNotReached, o.Target.UTC().Format(time.RFC3339), c.logPath, tail)
		}
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			c.stop()
		}
	}()

	db, err := sql.Open("postgres", c.URLFor(maintenanceDB))
	if err != nil {
		return nil, fmt.Errorf("pgembed: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var res Recovered
	for {
		var inRecovery bool
		var last sql.NullTime
		err := db.QueryRowContext(ctx, `SELECT pg_is_in_recovery(), pg_last_xact_replay_timestamp()`).Scan(&inRecovery, &last)
		if err == nil && !inRecovery {
			if last.Valid {
				res.LastCommit = last.Time.UTC()
			}
			break
		}
		select {
		case <-c.exited:
			tail := logTail(c.logPath, offset)
			if isTargetNotReached(tail) {
				return nil, fmt.Errorf("%w (%s); last lines of %s:\n%s", ErrTargetNotReached, o.Target.UTC().Format(time.RFC3339), c.logPath, tail)
			}
			return nil, fmt.Errorf("pgembed: PostgreSQL stopped during recovery (%v); last lines of %s:\n%s", c.waitErr, c.logPath, tail)
		case <-ctx.Done():
			return nil, fmt.Errorf("pgembed: recovery interrupted: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("pgembed: recovery did not end within %s; see %s", o.Timeout, c.logPath)
		}
	}
	// The timeline is the first 8 hex digits of the current WAL file's name.
	var walFile string
	if err := db.QueryRowContext(ctx, `SELECT pg_walfile_name(pg_current_wal_lsn())`).Scan(&walFile); err != nil {
		return nil, fmt.Errorf("pgembed: reading the timeline: %w", err)
	}
	if tl, err := strconv.ParseInt(walFile[:min(8, len(walFile))], 16, 32); err == nil {
		res.Timeline = int(tl)
	}
	db.Close()
	res.Took = time.Since(start)
	stopped = true
	if err := c.stop(); err != nil {
		return nil, err
	}
	// The new timeline's history file was written while archiving was off:
	// mark it ready, so the first server that archives sends it along.
	if err := markHistoryReady(c.pgData, owner); err != nil {
		return nil, err
	}
	o.Logger.Info("Recovery done", slog.Time("last_commit", res.LastCommit), slog.Int("timeline", res.Timeline), slog.Duration("took", res.Took))
	return &res, nil
}

// isTargetNotReached reports PostgreSQL's refusal to end a recovery whose
// target lies past the last archived WAL.
func isTargetNotReached(logTail string) bool {
	return strings.Contains(logTail, "recovery ended before configured recovery target was reached")
}

// markHistoryReady queues every timeline history file in pg_wal that was
// never archived (no .ready, no .done in archive_status) for archiving.
func markHistoryReady(pgData string, owner *runUser) error {
	walDir := filepath.Join(pgData, "pg_wal")
	files, err := filepath.Glob(filepath.Join(walDir, "*.history"))
	if err != nil {
		return err
	}
	for _, f := range files {
		status := filepath.Join(walDir, "archive_status", filepath.Base(f))
		if _, err := os.Stat(status + ".done"); err == nil {
			continue
		}
		if err := os.WriteFile(status+".ready", nil, 0o600); err != nil {
			return fmt.Errorf("pgembed: %w", err)
		}
		if owner != nil {
			if err := os.Chown(status+".ready", int(owner.uid), int(owner.gid)); err != nil {
				return fmt.Errorf("pgembed: %w", err)
			}
		}
	}
	return nil
}
