package bank

import (
	"context"
	"time"

	"meridian/pkg/errs"
)

// SchedulerLag is how late the most overdue scheduled transfer is: how long
// ago the earliest due occurrence that has not run was due (0 when none is
// due). Each occurrence runs within scheduler_interval of its time while a
// scheduler runs anywhere, so a lag well past that means no instance's
// scheduler is keeping up (the alert MeridianSchedulerLagging).
func (s *Service) SchedulerLag(ctx context.Context) (time.Duration, error) {
	var seconds float64
	err := s.db.GetContext(ctx, &seconds, `
		SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(next_run_at)), 0)::float8
		FROM scheduled_transfers WHERE status = 'active' AND next_run_at <= now()`)
	if err != nil {
		return 0, errs.Wrap(err, "scheduler lag")
	}
	return time.Duration(seconds * float64(time.Second)), nil
}
