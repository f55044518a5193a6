package backup

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Status is what the scheduler last saw, for /metrics.
type Status struct {
	// Newest is the newest base backup's start (zero: none yet); NewestBytes its size.
	Newest      time.Time
	NewestBytes int64
	// Taken and Failed count this process's scheduled backups.
	Taken  uint64
	Failed uint64
	// WALNewestAt is when the newest segment reached the archive.
	WALNewestAt time.Time
	WALBytes    int64
}

// Scheduler takes a base backup whenever the newest in backup_dir is
// Interval old, and at once when there is none (a WAL archive without a
// base backup restores nothing). A backup taken meanwhile by `meridian
// backup now` counts: the scheduler looks at backup_dir, not at its own
// history.
type Scheduler struct {
	o        Options
	interval time.Duration
	mu       sync.Mutex
	st       Status
}

// NewScheduler returns a scheduler for o, every interval.
func NewScheduler(o Options, interval time.Duration) *Scheduler {
	return &Scheduler{o: o, interval: interval}
}

// Status returns the last figures.
func (s *Scheduler) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// recheck is how often the scheduler looks at backup_dir between backups.
const recheck = time.Minute

// Run takes backups until ctx ends. A failure is logged and retried after
// a minute, doubling up to an hour (or Interval, if shorter).
func (s *Scheduler) Run(ctx context.Context, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	s.o.Logger = log
	backoff := time.Minute
	for {
		wait := recheck
		newest := s.refresh(log)
		if due := newest.IsZero() || time.Since(newest) >= s.interval; due {
			if _, err := Take(ctx, s.o); err != nil {
				if ctx.Err() != nil {
					return
				}
				s.mu.Lock()
				s.st.Failed++
				s.mu.Unlock()
				log.Error("scheduled base backup failed; retrying", "err", err, "in", backoff)
				wait = backoff
				backoff = min(2*backoff, time.Hour, max(s.interval, time.Minute))
			} else {
				s.mu.Lock()
				s.st.Taken++
				s.mu.Unlock()
				backoff = time.Minute
				s.refresh(log)
			}
		} else if left := time.Until(newest.Add(s.interval)); left < wait {
			wait = left
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// refresh reads backup_dir into the status and returns the newest
// backup's start.
func (s *Scheduler) refresh(log *slog.Logger) time.Time {
	inv, err := List(s.o.Dir)
	if err != nil {
		log.Warn("reading backup_dir", "err", err)
		return s.Status().Newest
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := inv.Newest(); b != nil {
		s.st.Newest, s.st.NewestBytes = b.Started, b.Bytes
	}
	s.st.WALNewestAt, s.st.WALBytes = inv.WAL.NewestAt, inv.WAL.Bytes
	return s.st.Newest
}
