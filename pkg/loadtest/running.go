package loadtest

import "context"

// Running is a transfer run started in the background by Start.
type Running struct {
	d    *Driver
	done chan struct{}
	rep  *Report
	err  error
}

// Start runs RunTransfers(ctx) in a goroutine and returns at once; the run
// ends when Stop is called (or at opts.Duration or opts.Count, or when ctx
// ends). Meanwhile Succeeded tells how it progresses.
func (d *Driver) Start(ctx context.Context) *Running {
	r := &Running{d: d, done: make(chan struct{})}
	go func() {
		r.rep, r.err = d.RunTransfers(ctx)
		close(r.done)
	}()
	return r
}

// Stop asks the run to end (Driver.Stop: the requests in flight finish),
// waits for it, and returns RunTransfers' report and error. It may be
// called again, also from several goroutines (e.g. deferred as well as at
// the end of a test): every call returns the same report and error.
func (r *Running) Stop() (*Report, error) {
	r.d.Stop()
	<-r.done
	return r.rep, r.err
}
