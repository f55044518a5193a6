// Package pgembed runs a PostgreSQL cluster inside Meridian's data dir.
//
// When no database URL is configured, Meridian keeps its own cluster in
// DataDir/postgres and talks to it over a Unix socket in DataDir/run; no TCP
// port is opened. Start initializes the cluster on first use, starts the
// server, or attaches to a server that another Meridian process (usually
// `meridian serve`) already runs for the same data dir.
//
// Besides DataDir/postgres and DataDir/run, the package keeps the server's
// output in DataDir/postgres.log and serializes concurrent Starts and Stops
// with a lock on DataDir/pgembed.lock.
//
// Every Cluster a Start returns, owned or attached, holds a reference: a
// file in DataDir/clients locked with flock for as long as the Cluster is in
// use. Stop releases it, and the last Cluster to stop, in whichever process,
// stops the server. So no command's exit takes the server away from another
// command that still uses it; a process that dies without stopping leaves
// no reference behind (the kernel drops its locks), and the next command to
// attach and stop then stops the server.
//
// initdb and postgres refuse to run as root. When Meridian runs as root, they
// run as the user "postgres" (or "nobody"), which then owns DataDir/postgres
// and DataDir/run.
package pgembed

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
)

const (
	// superuser is the role initdb creates and Meridian connects as.
	superuser = "meridian"

	// port only names the socket file (.s.PGSQL.5432); nothing listens on TCP.
	port = 5432

	// socketName is the file name of the server's Unix socket in the socket dir.
	socketName = ".s.PGSQL.5432"

	// maxSocketPath is the longest socket path PostgreSQL accepts: sun_path
	// holds 108 bytes on Linux and 104 on macOS, including the final NUL.
	maxSocketPath = 103

	// maintenanceDB is the database used to check the server and create others.
	maintenanceDB = "postgres"

	defaultDatabase     = "meridian"
	defaultStartTimeout = 60 * time.Second

	// stopTimeout is how long Stop waits for a fast shutdown before it falls
	// back to an immediate shutdown (SIGQUIT).
	stopTimeout = 30 * time.Second

	// pollInterval is how often Start checks whether the server is ready.
	pollInterval = 50 * time.Millisecond
)

// Options configures Start.
type Options struct {
	// DataDir is Meridian's data dir. The cluster lives in DataDir/postgres
	// (PGDATA) and the Unix socket in DataDir/run.
	DataDir string

	// BinDir is the directory holding initdb, postgres and pg_ctl. Empty
	// means FindBinDir(), preferring binaries of the cluster's major version.
	BinDir string

	// Database is the database Start makes sure exists. Default "meridian".
	Database string

	// Fast trades durability for speed; for tests only. initdb runs with
	// --no-sync and the server with fsync, synchronous_commit and
	// full_page_writes off.
	Fast bool

	// Logger receives progress messages. Default slog.Default().
	Logger *slog.Logger

	// StartTimeout bounds the wait for the server to accept connections.
	// Default 60s.
	StartTimeout time.Duration

	// DieWithProcess makes a server this process starts get SIGINT from the
	// kernel when the process dies (Linux). Only for a cluster no other
	// process attaches to, as the tests' (pkg/testdb): a shared server must
	// outlive the process that happened to start it.
	DieWithProcess bool

	// OwnerRole and AppRole, when set, are created (LOGIN, no superuser,
	// connecting over the socket like the superuser) and kept plain: OwnerRole
	// owns Database and every object in its public schema (objects another
	// role owns, as in clusters made before the roles existed, are given to
	// it); AppRole is the runtime role, which owns nothing. OwnerURL and
	// AppURL connect as them.
	OwnerRole, AppRole string

	// ArchiveDir, when set, turns on continuous archiving of the WAL into
	// it (archive_mode, and an archive_command that copies each finished
	// segment there durably: see ArchiveCommand). It is created if missing
	// and, when PostgreSQL runs as another user, given to that user. Only a
	// server this process starts gets the setting; the last Stop switches
	// to a new WAL segment first, so the archive holds everything up to the
	// shutdown.
	ArchiveDir string

	// ArchiveTimeout is PostgreSQL's archive_timeout: a segment with any
	// WAL in it is finished, and so archived, at least this often, which
	// bounds what a lost disk costs. 0: PostgreSQL's default (never).
	ArchiveTimeout time.Duration
}

// Cluster is a running PostgreSQL server for one data dir, either started by
// this process (Owned) or attached to.
type Cluster struct {
	dataDir   string
	pgData    string
	socketDir string
	logPath   string
	database  string
	logger    *slog.Logger

	pid   int
	owned bool

	ownerRole, appRole string

	binDir     string
	archiveDir string   // Options.ArchiveDir, absolute; "" when not archiving
	settings   []string // extra -c name=value for a server this process starts

	ref *os.File // our reference in DataDir/clients, locked; nil once stopped

	// Set only when owned.
	proc    *os.Process
	exited  chan struct{} // closed when the server process has exited
	waitErr error         // result of cmd.Wait, valid once exited is closed

	stopOnce sync.Once
	stopErr  error
}

// Start makes sure a PostgreSQL server is running for o.DataDir and returns
// it. It runs initdb when the cluster does not exist yet, attaches to a server
// that is already running for the same data dir, and otherwise starts one.
// Finally it creates o.Database if it does not exist.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if o.DataDir == "" {
		return nil, errors.New("pgembed: no data dir given")
	}
	if o.Database == "" {
		o.Database = defaultDatabase
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}

	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("pgembed: cannot resolve data dir %q: %w", o.DataDir, err)
	}
	c := &Cluster{
		dataDir:   dataDir,
		pgData:    filepath.Join(dataDir, "postgres"),
		socketDir: filepath.Join(dataDir, "run"),
		logPath:   filepath.Join(dataDir, "postgres.log"),
		database:  o.Database,
		logger:    o.Logger,
		ownerRole: o.OwnerRole,
		appRole:   o.AppRole,
	}
	if o.ArchiveDir != "" {
		if c.archiveDir, err = filepath.Abs(o.ArchiveDir); err != nil {
			return nil, fmt.Errorf("pgembed: cannot resolve archive dir %q: %w", o.ArchiveDir, err)
		}
		c.settings = archiveSettings(c.archiveDir, o.ArchiveTimeout)
	}

	// Check everything that needs no side effects first.
	if sock := filepath.Join(c.socketDir, socketName); len(sock) > maxSocketPath {
		return nil, fmt.Errorf("pgembed: the data_dir path %s is too long for a Unix socket: %s is %d bytes, the limit is %d; choose a shorter data_dir",
			dataDir, sock, len(sock), maxSocketPath)
	}
	owner, err := serverUser()
	if err != nil {
		return nil, err
	}
	clusterVersion := readPGVersion(c.pgData)
	binDir, err := resolveBinDir(o.BinDir, clusterVersion)
	if err != nil {
		return nil, err
	}
	c.binDir = binDir
	env := serverEnv(binDir)

	if err := c.prepareDirs(owner); err != nil {
		return nil, err
	}
	if err := c.prepareArchiveDir(owner); err != nil {
		return nil, err
	}

	// Only one process at a time may initialize, start or attach; a second
	// caller waits here and then finds the running server.
	unlock, err := LockFile(ctx, filepath.Join(dataDir, "pgembed.lock"), o.StartTimeout+2*time.Minute)
	if err != nil {
		return nil, err
	}
	defer unlock()

	logFile, err := os.OpenFile(c.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("pgembed: cannot open %s: %w", c.logPath, err)
	}
	// An owned server keeps its own handle on the file, so closing ours is fine.
	defer logFile.Close()

	if readPGVersion(c.pgData) == "" {
		if err := c.initdb(ctx, binDir, env, owner, logFile, o.Fast); err != nil {
			return nil, err
		}
	}
	if err := checkVersion(binDir, env, c.pgData, readPGVersion(c.pgData)); err != nil {
		return nil, err
	}
	if owner != nil {
		if err := chownTree(c.pgData, owner); err != nil {
			return nil, err
		}
	}

	if err := c.attachOrStart(ctx, binDir, env, owner, logFile, o); err != nil {
		return nil, err
	}
	// From here on a failure must not stop a server other processes use.
	fail := func(err error) (*Cluster, error) {
		c.releaseLocked()
		return nil, err
	}
	if err := c.takeRef(); err != nil {
		return fail(err)
	}
	if !c.owned && c.archiveDir != "" {
		c.warnIfNotArchiving(ctx)
	}
	if err := c.ensureDatabase(ctx, o.Database); err != nil {
		return fail(err)
	}
	if o.OwnerRole != "" || o.AppRole != "" {
		if err := c.ensureRoles(ctx); err != nil {
			return fail(err)
		}
	}
	return c, nil
}

// URL returns the lib/pq connection string for Options.Database.
func (c *Cluster) URL() string {
	return c.URLFor(c.database)
}

// URLFor returns the lib/pq connection string for the given database.
func (c *Cluster) URLFor(database string) string {
	return c.urlAs(superuser, database)
}

// OwnerURL connects to Options.Database as Options.OwnerRole, the owner of
// the schema: for migrations.
func (c *Cluster) OwnerURL() string { return c.urlAs(c.ownerRole, c.database) }

// AppURL connects to Options.Database as Options.AppRole, the runtime role.
func (c *Cluster) AppURL() string { return c.urlAs(c.appRole, c.database) }

func (c *Cluster) urlAs(role, database string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable",
		quoteConnValue(c.socketDir), port, quoteConnValue(role), quoteConnValue(database))
}

// Owned reports whether this process started the server.
func (c *Cluster) Owned() bool {
	return c.owned
}

// PID returns the process id of the postmaster.
func (c *Cluster) PID() int {
	return c.pid
}

// PGData returns the cluster's data directory (DataDir/postgres).
func (c *Cluster) PGData() string {
	return c.pgData
}

// SocketDir returns the directory holding the server's Unix socket (DataDir/run).
func (c *Cluster) SocketDir() string {
	return c.socketDir
}

// BinDir returns the directory of the PostgreSQL binaries that run the
// cluster (pg_basebackup of the same version is beside them).
func (c *Cluster) BinDir() string {
	return c.binDir
}

// Port is the port number in the name of the server's socket file (no TCP
// port is open).
func (c *Cluster) Port() int {
	return port
}

// Superuser is the role initdb created, which connects over the socket
// without a password (maintenance, pg_basebackup).
func (c *Cluster) Superuser() string {
	return superuser
}

// Stop releases this Cluster's reference. When it was the last one (no other
// Cluster, in this process or another, still uses the server), it shuts the
// server down, whoever started it: a fast shutdown (SIGINT), then an
// immediate one (SIGQUIT) if the server has not exited after 30 seconds.
// Stop is idempotent.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		c.stopErr = c.release()
	})
	return c.stopErr
}

// stop stops the server this process started (c.proc).
func (c *Cluster) stop() error {
	select {
	case <-c.exited:
		c.logger.Warn("PostgreSQL had already exited", slog.Int("pid", c.pid), slog.Any("error", c.waitErr))
		return nil
	default:
	}

	c.logger.Info("Stopping PostgreSQL", slog.Int("pid", c.pid))
	_ = c.proc.Signal(syscall.SIGINT)
	select {
	case <-c.exited:
		c.logger.Info("PostgreSQL stopped", slog.Int("pid", c.pid))
		return nil
	case <-time.After(stopTimeout):
	}

	c.logger.Warn("PostgreSQL did not stop in time, sending SIGQUIT", slog.Int("pid", c.pid))
	_ = c.proc.Signal(syscall.SIGQUIT)
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		_ = c.proc.Kill()
		<-c.exited
	}
	return fmt.Errorf("pgembed: PostgreSQL (pid %d) did not shut down within %s and was stopped with SIGQUIT", c.pid, stopTimeout)
}

// prepareDirs creates DataDir and DataDir/run and, when PostgreSQL runs as
// another user, makes sure that user can reach them.
func (c *Cluster) prepareDirs(owner *runUser) error {
	if err := os.MkdirAll(c.dataDir, 0o700); err != nil {
		return fmt.Errorf("pgembed: cannot create data dir: %w", err)
	}
	if err := os.MkdirAll(c.socketDir, 0o700); err != nil {
		return fmt.Errorf("pgembed: cannot create socket dir: %w", err)
	}
	if err := os.Chmod(c.socketDir, 0o700); err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	if owner == nil {
		return nil
	}
	if err := checkParentsTraversable(c.dataDir, owner); err != nil {
		return err
	}
	if err := allowTraverse(c.dataDir, owner, c.logger); err != nil {
		return err
	}
	return chownTree(c.socketDir, owner)
}

// initdb creates the cluster. It runs initdb in DataDir/postgres.initdb and
// renames that to DataDir/postgres when done, so an interrupted initdb never
// leaves a half-made cluster behind.
func (c *Cluster) initdb(ctx context.Context, binDir string, env []string, owner *runUser, logFile *os.File, fast bool) error {
	if entries, err := os.ReadDir(c.pgData); err == nil && len(entries) > 0 {
		return fmt.Errorf("pgembed: %s is not empty but holds no PostgreSQL cluster (no PG_VERSION file); move it away so a new cluster can be created", c.pgData)
	}

	tmp := c.pgData + ".initdb"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("pgembed: cannot remove leftover %s: %w", tmp, err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	if owner != nil {
		if err := os.Chown(tmp, int(owner.uid), int(owner.gid)); err != nil {
			return fmt.Errorf("pgembed: %w", err)
		}
	}

	c.logger.Info("Initializing PostgreSQL cluster", slog.String("pgdata", c.pgData), slog.String("bin_dir", binDir))
	args := []string{
		"-D", tmp,
		"-U", superuser,
		"--auth=trust",
		"--encoding=UTF8",
		"--locale=C",
	}
	if fast {
		args = append(args, "--no-sync")
	}
	offset := fileSize(logFile)
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"), args...)
	cmd.Dir = tmp
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = sysProcAttr(owner, true)
	if err := cmd.Run(); err != nil {
		os.RemoveAll(tmp)
		if ctx.Err() != nil {
			return fmt.Errorf("pgembed: initdb interrupted: %w", ctx.Err())
		}
		return fmt.Errorf("pgembed: initdb failed (%v); last lines of %s:\n%s", err, c.logPath, logTail(c.logPath, offset))
	}

	// An empty DataDir/postgres (made by hand, say) is replaced by rename.
	if err := os.Rename(tmp, c.pgData); err != nil {
		return fmt.Errorf("pgembed: cannot move the new cluster into place: %w", err)
	}
	return nil
}

// attachOrStart attaches to a running server for PGDATA, or starts one, and
// waits until it accepts connections.
func (c *Cluster) attachOrStart(ctx context.Context, binDir string, env []string, owner *runUser, logFile *os.File, o Options) error {
	deadline := time.Now().Add(o.StartTimeout)
	for {
		pid, err := c.runningPostmaster()
		if err != nil {
			return err
		}

		if pid != 0 {
			// A server for this PGDATA is running; it may still be starting
			// up (crash recovery) or shutting down, so keep asking.
			if c.ping(ctx) == nil {
				c.pid = pid
				c.owned = false
				c.logger.Info("Attached to running PostgreSQL", slog.Int("pid", pid), slog.String("pgdata", c.pgData))
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("pgembed: PostgreSQL (pid %d) is running for %s but did not accept connections within %s; see %s",
					pid, c.pgData, o.StartTimeout, c.logPath)
			}
			if err := sleep(ctx, pollInterval); err != nil {
				return fmt.Errorf("pgembed: waiting for PostgreSQL: %w", err)
			}
			continue
		}

		err = c.startServer(ctx, binDir, env, owner, logFile, o.Fast, o.DieWithProcess, deadline)
		if !errors.Is(err, errRetry) {
			return err
		}
		// The server refused to start because an earlier server's processes
		// are still around (they exit shortly after their postmaster dies)
		// or another postmaster just appeared. Look again.
		c.logger.Debug("PostgreSQL could not start yet, retrying", slog.String("pgdata", c.pgData))
		if time.Now().After(deadline) {
			return fmt.Errorf("pgembed: PostgreSQL did not start within %s; last lines of %s:\n%s", o.StartTimeout, c.logPath, logTail(c.logPath, 0))
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return fmt.Errorf("pgembed: waiting for PostgreSQL: %w", err)
		}
	}
}

// errRetry tells attachOrStart that starting failed in a way worth retrying.
var errRetry = errors.New("retry")

// startServer starts postgres and waits until it accepts connections.
func (c *Cluster) startServer(ctx context.Context, binDir string, env []string, owner *runUser, logFile *os.File, fast, dieWithParent bool, deadline time.Time) error {
	args := []string{
		"-D", c.pgData,
		"-k", c.socketDir,
		"-p", fmt.Sprint(port),
		"-c", "listen_addresses=",
		"-c", "unix_socket_permissions=0700",
		"-c", "max_connections=200",
	}
	for _, kv := range c.settings {
		args = append(args, "-c", kv)
	}
	if fast {
		args = append(args,
			"-c", "fsync=off",
			"-c", "synchronous_commit=off",
			"-c", "full_page_writes=off",
		)
	}

	offset := fileSize(logFile)
	// Not CommandContext: the server must outlive ctx.
	cmd := exec.Command(filepath.Join(binDir, "postgres"), args...)
	cmd.Dir = c.pgData
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = sysProcAttr(owner, dieWithParent)

	c.logger.Info("Starting PostgreSQL", slog.String("pgdata", c.pgData), slog.String("socket_dir", c.socketDir))
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgembed: cannot start %s: %w", cmd.Path, err)
	}
	c.pid = cmd.Process.Pid
	c.proc = cmd.Process
	c.owned = true
	c.exited = make(chan struct{})
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()

	for {
		if c.ping(ctx) == nil {
			c.logger.Info("PostgreSQL is ready", slog.Int("pid", c.pid))
			return nil
		}

		select {
		case <-c.exited:
			c.owned = false
			tail := logTail(c.logPath, offset)
			if strings.Contains(tail, "is still in use") || strings.Contains(tail, `lock file "postmaster.pid" already exists`) {
				return errRetry
			}
			return fmt.Errorf("pgembed: PostgreSQL exited during startup (%v); last lines of %s:\n%s", c.waitErr, c.logPath, tail)
		case <-ctx.Done():
			c.stop()
			c.owned = false
			return fmt.Errorf("pgembed: waiting for PostgreSQL to start: %w", ctx.Err())
		case <-time.After(time.Until(deadline)):
			c.stop()
			c.owned = false
			return fmt.Errorf("pgembed: PostgreSQL did not accept connections within the start timeout; last lines of %s:\n%s", c.logPath, logTail(c.logPath, offset))
		case <-time.After(pollInterval):
		}
	}
}

// ping checks that the server accepts connections on the socket.
func (c *Cluster) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	db, err := sql.Open("postgres", c.URLFor(maintenanceDB))
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

// ensureDatabase creates the database if it does not exist.
func (c *Cluster) ensureDatabase(ctx context.Context, name string) error {
	db, err := sql.Open("postgres", c.URLFor(maintenanceDB))
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	defer db.Close()

	var exists bool
	err = db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		return fmt.Errorf("pgembed: cannot check for database %q: %w", name, err)
	}
	if exists {
		return nil
	}
	c.logger.Info("Creating database", slog.String("database", name))
	_, err = db.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name))
	if err != nil && pq.As(err, pqerror.DuplicateDatabase) == nil {
		return fmt.Errorf("pgembed: cannot create database %q: %w", name, err)
	}
	return nil
}

// quoteConnValue quotes a value for a key=value connection string when needed.
func quoteConnValue(v string) string {
	if v != "" && !strings.ContainsAny(v, ` '\`+"\t\n") {
		return v
	}
	v = strings.ReplaceAll(v, `\`, `\\`)
	v = strings.ReplaceAll(v, `'`, `\'`)
	return "'" + v + "'"
}

// readPGVersion returns the major version in PGDATA/PG_VERSION, or "" when
// there is no cluster.
func readPGVersion(pgData string) string {
	b, err := os.ReadFile(filepath.Join(pgData, "PG_VERSION"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// serverEnv returns the environment for initdb and postgres. The npm package
// binaries find their shared libraries through LD_LIBRARY_PATH=<bindir>/../lib.
func serverEnv(binDir string) []string {
	env := os.Environ()
	libDir := filepath.Join(filepath.Dir(binDir), "lib")
	if fi, err := os.Stat(libDir); err == nil && fi.IsDir() {
		value := libDir
		if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
			value += string(os.PathListSeparator) + old
		}
		env = append(env, "LD_LIBRARY_PATH="+value)
	}
	return env
}

// fileSize returns the current size of f, or 0.
func fileSize(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

// logTail returns the last lines of the log written after offset, or of the
// whole log if nothing was written after offset.
func logTail(path string, offset int64) string {
	const maxBytes = 4096
	const maxLines = 20

	f, err := os.Open(path)
	if err != nil {
		return "(no log)"
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "(no log)"
	}
	if offset >= fi.Size() {
		offset = 0
	}
	start := max(offset, fi.Size()-maxBytes)
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return "(no log)"
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if start > offset && len(lines) > 1 {
		lines = lines[1:] // the first line is probably cut
	}
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return strings.Join(lines, "\n")
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
