package cli

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"go.opentelemetry.io/otel/trace"

	"meridian/pkg/auth"
	"meridian/pkg/backup"
	"meridian/pkg/bank"
	"meridian/pkg/config"
	"meridian/pkg/db"
	"meridian/pkg/pgembed"
)

// env is an open database with the bank service on it.
type env struct {
	cfg      config.Config
	db       *sqlx.DB // the runtime role: serve and every command run their queries here
	dsn      string
	ownerDSN string // the schema's owner: migrations, grants, maintenance
	// listenDSN is where the one session that LISTENs connects:
	// database_listen_url (default database_url), never a transaction pooler.
	listenDSN string
	reads     *db.Router       // serve's read replicas (database_read_urls); nil for other commands
	cluster   *pgembed.Cluster // nil with database_url
	svc       *bank.Service
	log       *slog.Logger
	// owner is a pool on ownerDSN, opened the first time the service asks
	// (bank.Settings.Owner: a role given at the command line).
	ownerOnce sync.Once
	owner     *sqlx.DB
	ownerErr  error
}

// ownerDB opens (once) a pool of at most one connection as the schema's
// owner, kept open no longer than the transaction that needs it: serve's
// sessions stay the runtime role's after its demo seed gave roles.
func (e *env) ownerDB(ctx context.Context) (*sqlx.DB, error) {
	e.ownerOnce.Do(func() {
		e.owner, e.ownerErr = db.Open(ctx, e.ownerDSN)
		if e.ownerErr == nil {
			e.owner.SetMaxOpenConns(1)
			e.owner.SetMaxIdleConns(0)
		}
	})
	return e.owner, e.ownerErr
}

// ownerRole owns the embedded database's schema and runs its migrations;
// the runtime role (database_app_role) may read and write but not change
// ledger or audit rows (pkg/db GrantRuntime). The cluster's superuser is
// kept for initdb and maintenance only.
const ownerRole = "meridian_owner"

// open connects to the configured database: database_url, or the embedded
// cluster in <data_dir>/postgres (attaching to the one a running serve
// started, or starting one). With migrate set it brings the schema up to
// date as the owner. Queries then run as the runtime role.
//
// A command that only works against the database refuses --server and
// MERIDIAN_SERVER (usage, exit 2) rather than act on a database of this
// machine the operator did not mean.
func (a *app) open(ctx context.Context, migrate bool) (*env, error) {
	if server := cmp.Or(a.server, os.Getenv("MERIDIAN_SERVER")); server != "" {
		return nil, usageError{fmt.Errorf("this command runs against the database, on the server's own machine: it cannot go through %s (--server or MERIDIAN_SERVER)", server)}
	}
	return a.openEnv(ctx, migrate, false)
}

// openServe opens serve's env: every connection of its pool carries
// request_timeout as PostgreSQL's statement_timeout (and lock_timeout
// just under it), so no query outlives the request it serves. Other
// commands (a bulk seed, say) are not capped.
//
// With a tracer, its pools record a span for every statement (db.Traced).
func (a *app) openServe(ctx context.Context, tracer trace.Tracer) (*env, error) {
	return a.openEnv(ctx, true, true, db.Traced(tracer))
}

func (a *app) openEnv(ctx context.Context, migrate, serve bool, serveOpts ...db.Option) (*env, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	e := &env{cfg: cfg, log: a.logger(cfg)}
	e.dsn, e.ownerDSN = cfg.DatabaseURL, cfg.DatabaseOwnerURL
	if e.ownerDSN == "" {
		e.ownerDSN = e.dsn
	}
	if e.dsn == "" {
		dir, err := filepath.Abs(cfg.DataDir)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cannot create data_dir %s: %w", dir, err)
		}
		// Whoever starts the cluster starts it archiving its WAL into
		// backup_dir, so the archive has no gap whatever command runs.
		e.cluster, err = pgembed.Start(ctx, pgembed.Options{DataDir: dir, Database: "meridian", Logger: e.log,
			OwnerRole: ownerRole, AppRole: cfg.DatabaseAppRole,
			ArchiveDir: backup.WALDir(cfg.BackupDir), ArchiveTimeout: cfg.ArchiveTimeout})
		if err != nil {
			return nil, err
		}
		e.dsn, e.ownerDSN = e.cluster.AppURL(), e.cluster.OwnerURL()
	}
	e.listenDSN = cfg.DatabaseListenURL
	if e.listenDSN == "" {
		e.listenDSN = e.dsn
	}
	if migrate {
		if _, err := e.migrateUp(ctx, 0); err != nil {
			e.close()
			return nil, err
		}
	}
	var opts []db.Option
	if serve {
		opts = append(append(opts, db.Timeouts(cfg.RequestTimeout)), serveOpts...)
	}
	e.db, err = db.Open(ctx, e.dsn, opts...)
	if err != nil {
		e.close()
		return nil, err
	}
	e.db.SetMaxOpenConns(cfg.DatabasePoolSize)
	e.db.SetMaxIdleConns(cfg.DatabasePoolSize)
	if serve {
		// Behind PgBouncer the timeouts may not have reached PostgreSQL as
		// startup parameters (db.Open): then the role's settings apply.
		if got, err := db.StatementTimeout(ctx, e.db); err == nil && got == 0 {
			e.log.Warn("statement_timeout is not set on database_url's connections (a pooler that drops startup parameters?); set it for the role: ALTER ROLE ... SET statement_timeout, lock_timeout (README: Read replicas and poolers)", "request_timeout", cfg.RequestTimeout)
		}
	}
	// Only serve reads from replicas: a command's reads come after its
	// own writes in another process, which no replica position tracks.
	var readers []*sqlx.DB
	if serve && len(cfg.DatabaseReadURLs) > 0 {
		if readers, err = db.OpenReplicas(cfg.DatabaseReadURLs, opts...); err != nil {
			e.close()
			return nil, err
		}
		// The same check for each replica, briefly: one that does not
		// answer yet is skipped by the router until it does.
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		for i, r := range readers {
			r.SetMaxOpenConns(cfg.DatabasePoolSize)
			r.SetMaxIdleConns(cfg.DatabasePoolSize)
			if got, err := db.StatementTimeout(cctx, r); err == nil && got == 0 {
				e.log.Warn("statement_timeout is not set on a database_read_urls replica's connections (a pooler that drops startup parameters?); set it for the role: ALTER ROLE ... SET statement_timeout, lock_timeout (README: Read replicas and poolers)", "replica", fmt.Sprintf("replica%d", i+1), "request_timeout", cfg.RequestTimeout)
			}
		}
		cancel()
	}
	e.reads = db.NewRouter(e.db, readers, cfg.ReplicaWait)
	var user string
	if err := e.db.GetContext(ctx, &user, `SELECT current_user`); err == nil && user != cfg.DatabaseAppRole {
		e.log.Warn("database_url signs in as another role than database_app_role, so the ledger and the audit log are only as safe as that role's privileges", "user", user, "database_app_role", cfg.DatabaseAppRole)
	}
	secret := []byte(cfg.JWTSecret)
	if len(secret) == 0 {
		if secret, err = auth.LoadOrCreateSecret(cfg.DataDir); err != nil {
			e.close()
			return nil, fmt.Errorf("jwt secret: %w", err)
		}
	}
	tokens, err := auth.NewTokens(secret, cfg.TokenTTL)
	if err != nil {
		e.close()
		return nil, err
	}
	roots, err := webhookRoots(cfg.WebhookCAFile)
	if err != nil {
		e.close()
		return nil, err
	}
	e.svc = bank.New(e.db, tokens, bank.Settings{RequestsTTL: cfg.RequestsTTL, MaxAmount: cfg.MaxAmount, LookupPerMinute: cfg.LookupPerMinute,
		MaxPasswordChecks: cfg.MaxPasswordChecks, DisableCustomerFunding: !cfg.CustomerFunding, RequireTwoFactorForAdmins: cfg.RequireTwoFactorForAdmins,
		DailyTransferLimit: cfg.DailyTransferLimit, TransferBatch: cfg.TransferBatch, TransferBatchWorkers: cfg.TransferBatchWorkers,
		Logger: e.log, AnchorKey: cfg.AnchorKey, LockAfter: cfg.LockAfter, ScheduledMaxActive: cfg.ScheduledMaxActive,
		ApprovalThreshold: cfg.ApprovalThreshold, FXSpreadBps: cfg.FXSpreadBps, Owner: e.ownerDB,
		WebhookAllowPrivate: cfg.WebhookAllowPrivate, WebhookRootCAs: roots, WebhookRetryBase: cfg.WebhookRetryBase})
	e.svc.SetReadRouter(e.reads)
	return e, nil
}

// webhookRoots is the system's certificate authorities plus those of
// webhook_ca_file (nil, the system's alone, when it is empty).
func webhookRoots(file string) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("webhook_ca_file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("webhook_ca_file %s holds no PEM certificate", file)
	}
	return pool, nil
}

// withOwner runs fn on a pool signed in as the schema's owner.
func (e *env) withOwner(ctx context.Context, fn func(owner *sqlx.DB) error) error {
	owner, err := db.Open(ctx, e.ownerDSN)
	if err != nil {
		return err
	}
	defer owner.Close()
	return fn(owner)
}

// migrateUp applies pending migrations (all, or the next n) as the owner,
// then grants the runtime role its privileges on the schema as it now is.
func (e *env) migrateUp(ctx context.Context, n int) ([]int, error) {
	var done []int
	err := e.withOwner(ctx, func(owner *sqlx.DB) error {
		var err error
		done, err = db.Up(ctx, owner, n)
		if err != nil {
			var pe *pq.Error
			if errors.As(err, &pe) && pe.Code == "42501" && e.cluster == nil && e.cfg.DatabaseOwnerURL == "" {
				return fmt.Errorf("migrating the database: database_url's role may not change the schema (%s); run `meridian migrate up` with database_owner_url set to the owner's URL", pe.Message)
			}
			return fmt.Errorf("migrating the database: %w", err)
		}
		return e.grantRuntime(ctx, owner)
	})
	return done, err
}

// grantRuntime gives database_app_role the runtime privileges. With
// database_url, a missing role is a warning (the operator has not created
// it yet) and a connection that does not own the schema skips it (serve
// running as the runtime role itself).
func (e *env) grantRuntime(ctx context.Context, owner *sqlx.DB) error {
	role := e.cfg.DatabaseAppRole
	err := db.GrantRuntime(ctx, owner, role)
	switch {
	case err == nil:
		return nil
	case e.cluster == nil && errors.Is(err, db.ErrNoRole):
		e.log.Warn("the runtime role does not exist, so nothing keeps database_url's role from changing ledger and audit rows; create it (README: An external database) and run meridian migrate up", "database_app_role", role)
		return nil
	case e.cluster == nil && errors.Is(err, db.ErrNotOwner):
		e.log.Debug("not the schema's owner; runtime privileges left as they are", "database_app_role", role)
		return nil
	}
	return fmt.Errorf("granting privileges to %s: %w", role, err)
}

// close releases the pool and this command's use of the embedded cluster,
// which stops when no other command uses it. What the command wrote is
// sealed first, so live followers see it at once.
func (e *env) close() {
	if e.svc != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := e.svc.SealPending(ctx); err != nil {
			e.log.Debug("sealing events", "err", err)
		}
		cancel()
	}
	if e.reads != nil {
		for _, r := range e.reads.Replicas() {
			r.DB.Close()
		}
	}
	if e.db != nil {
		e.db.Close()
	}
	if e.owner != nil {
		e.owner.Close()
	}
	if e.cluster != nil {
		if err := e.cluster.Stop(); err != nil {
			e.log.Warn("stopping PostgreSQL", "err", err)
		}
	}
}

func (a *app) logger(cfg config.Config) *slog.Logger {
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[cfg.LogLevel]
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(a.stderr, opts))
	}
	return slog.New(slog.NewTextHandler(a.stderr, opts))
}
