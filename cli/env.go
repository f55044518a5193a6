package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
	"meridian/pkg/config"
	"meridian/pkg/db"
	"meridian/pkg/pgembed"
)

// env is an open database with the bank service on it.
type env struct {
	cfg     config.Config
	db      *sqlx.DB
	dsn     string
	cluster *pgembed.Cluster // nil with database_url
	svc     *bank.Service
	log     *slog.Logger
}

// open connects to the configured database: database_url, or the embedded
// cluster in <data_dir>/postgres (attaching to the one a running serve
// started, or starting one). With migrate set it brings the schema up to date.
func (a *app) open(ctx context.Context, migrate bool) (*env, error) {
	return a.openEnv(ctx, migrate, false)
}

// openServe opens serve's env: every connection of its pool carries
// request_timeout as PostgreSQL's statement_timeout (and lock_timeout
// just under it), so no query outlives the request it serves. Other
// commands (a bulk seed, say) are not capped.
func (a *app) openServe(ctx context.Context) (*env, error) {
	return a.openEnv(ctx, true, true)
}

func (a *app) openEnv(ctx context.Context, migrate, serve bool) (*env, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	e := &env{cfg: cfg, log: a.logger(cfg)}
	e.dsn = cfg.DatabaseURL
	if e.dsn == "" {
		dir, err := filepath.Abs(cfg.DataDir)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cannot create data_dir %s: %w", dir, err)
		}
		e.cluster, err = pgembed.Start(ctx, pgembed.Options{DataDir: dir, Database: "meridian", Logger: e.log})
		if err != nil {
			return nil, err
		}
		e.dsn = e.cluster.URL()
	}
	var opts []db.Option
	if serve {
		opts = append(opts, db.Timeouts(cfg.RequestTimeout))
	}
	e.db, err = db.Open(ctx, e.dsn, opts...)
	if err != nil {
		e.close()
		return nil, err
	}
	if migrate {
		if _, err := db.Up(ctx, e.db, 0); err != nil {
			e.close()
			return nil, fmt.Errorf("migrating the database: %w", err)
		}
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
	e.svc = bank.New(e.db, tokens, bank.Settings{RequestsTTL: cfg.RequestsTTL, MaxAmount: cfg.MaxAmount, LookupPerMinute: cfg.LookupPerMinute})
	return e, nil
}

// close releases the pool and stops the cluster if this process started it.
func (e *env) close() {
	if e.db != nil {
		e.db.Close()
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
