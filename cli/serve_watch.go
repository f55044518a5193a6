package cli

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"meridian/pkg/backup"
	"meridian/pkg/db"
	"meridian/server"
)

// pollEvery is how often serve reads the database's figures for /metrics.
const pollEvery = 15 * time.Second

// watch starts serve's background watch on bg: on the embedded database, a
// base backup every backup_interval (at once when backup_dir has none); on
// any database, every 15 s, the WAL archiver's state and the scheduler's
// lag. They feed /metrics, which the alert rules in deploy/ read.
func watch(ctx context.Context, e *env, m *server.Metrics, bg *sync.WaitGroup) error {
	var errs []error
	if e.cluster != nil {
		src, err := e.backupSource()
		if err != nil {
			return err
		}
		sched := backup.NewScheduler(backup.Options{Dir: e.cfg.BackupDir, Source: src, Keep: e.cfg.BackupKeep,
			Checkpoint: e.checkpoint}, e.cfg.BackupInterval)
		if e.cfg.BackupInterval > 0 {
			bg.Add(1)
			go func() { defer bg.Done(); sched.Run(ctx, e.log) }()
		}
		seconds := func(t time.Time) float64 {
			if t.IsZero() {
				return 0
			}
			return float64(t.UnixNano()) / 1e9
		}
		errs = append(errs,
			m.RegisterGaugeFunc("meridian_backup_newest_timestamp_seconds", "Start of the newest base backup in backup_dir (Unix time; 0: none).",
				func() float64 { return seconds(sched.Status().Newest) }),
			m.RegisterGaugeFunc("meridian_backup_newest_bytes", "Size on disk of the newest base backup.",
				func() float64 { return float64(sched.Status().NewestBytes) }),
			m.RegisterCounterFunc("meridian_backups_taken_total", "Scheduled base backups this instance took.",
				func() float64 { return float64(sched.Status().Taken) }),
			m.RegisterCounterFunc("meridian_backup_failures_total", "Scheduled base backups of this instance that failed.",
				func() float64 { return float64(sched.Status().Failed) }),
			m.RegisterGaugeFunc("meridian_wal_archive_bytes", "Size of the WAL archive in backup_dir.",
				func() float64 { return float64(sched.Status().WALBytes) }))
	}
	var st atomic.Pointer[db.Archiver]
	var lag atomic.Int64 // nanoseconds
	poll := func() {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if a, err := db.ArchiverStatus(pctx, e.db); err == nil {
			st.Store(&a)
		} else if ctx.Err() == nil {
			e.log.Debug("reading pg_stat_archiver", "err", err)
		}
		if l, err := e.svc.SchedulerLag(pctx); err == nil {
			lag.Store(int64(l))
		} else if ctx.Err() == nil {
			e.log.Debug("reading the scheduler's lag", "err", err)
		}
	}
	poll()
	bg.Add(1)
	go func() {
		defer bg.Done()
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				poll()
			}
		}
	}()
	read := func(f func(a *db.Archiver) float64) func() float64 {
		return func() float64 {
			if a := st.Load(); a != nil {
				return f(a)
			}
			return 0
		}
	}
	errs = append(errs,
		m.RegisterGaugeFunc("meridian_wal_archive_enabled", "1 when the primary archives its WAL (archive_mode on).",
			read(func(a *db.Archiver) float64 { return map[bool]float64{true: 1}[a.Mode != "off"] })),
		m.RegisterGaugeFunc("meridian_wal_archive_last_success_timestamp_seconds", "When the primary last archived a WAL segment (pg_stat_archiver; 0: never).",
			read(func(a *db.Archiver) float64 {
				if a.LastArchived.IsZero() {
					return 0
				}
				return float64(a.LastArchived.UnixNano()) / 1e9
			})),
		m.RegisterCounterFunc("meridian_wal_archive_failures_total", "Failed attempts of the primary's archive_command (pg_stat_archiver).",
			read(func(a *db.Archiver) float64 { return float64(a.Failed) })),
		m.RegisterGaugeFunc("meridian_wal_archive_failing", "1 when the primary's latest attempt to archive a WAL segment failed.",
			read(func(a *db.Archiver) float64 { return map[bool]float64{true: 1}[a.Failing()] })),
		m.RegisterGaugeFunc("meridian_scheduler_lag_seconds", "How late the most overdue scheduled transfer is (0: none is due), read every 15 s.",
			func() float64 { return time.Duration(lag.Load()).Seconds() }))
	return errors.Join(errs...)
}
