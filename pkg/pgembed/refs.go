package pgembed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// stopLockTimeout bounds how long Stop waits for a Start of another process
// (which may be running initdb) to finish before it gives up and leaves the
// server running.
const stopLockTimeout = 3 * time.Minute

func (c *Cluster) lockPath() string   { return filepath.Join(c.dataDir, "pgembed.lock") }
func (c *Cluster) clientsDir() string { return filepath.Join(c.dataDir, "clients") }

// takeRef records that this Cluster uses the server: a new file in
// DataDir/clients, locked for as long as the Cluster runs. The caller holds
// pgembed.lock, so no Stop counts references meanwhile.
func (c *Cluster) takeRef() error {
	dir := c.clientsDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("pgembed: cannot create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf("%d-*.lock", os.Getpid()))
	if err != nil {
		return fmt.Errorf("pgembed: cannot record this process as a user of the server: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("pgembed: cannot lock %s: %w", f.Name(), err)
	}
	c.ref = f
	return nil
}

// dropRef removes this Cluster's reference.
func (c *Cluster) dropRef() {
	if c.ref == nil {
		return
	}
	os.Remove(c.ref.Name())
	c.ref.Close()
	c.ref = nil
}

// liveRefs counts the references other Clusters hold, in this process or
// others, and removes the files of processes that died (their lock is gone).
// The caller holds pgembed.lock.
func (c *Cluster) liveRefs() (int, error) {
	entries, err := os.ReadDir(c.clientsDir())
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("pgembed: %w", err)
	}
	live := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".lock") {
			continue
		}
		path := filepath.Join(c.clientsDir(), e.Name())
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("pgembed: %w", err)
		}
		// flock locks belong to an open file, so probing with our own open
		// (and closing it) leaves the holder's lock alone.
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			os.Remove(path) // its process died without stopping
		case errors.Is(err, syscall.EWOULDBLOCK):
			live++
		default:
			f.Close()
			return 0, fmt.Errorf("pgembed: cannot probe %s: %w", path, err)
		}
		f.Close()
	}
	return live, nil
}

// release drops this Cluster's reference and, when no other is left, stops
// the server.
func (c *Cluster) release() error {
	unlock, err := LockFile(context.Background(), c.lockPath(), stopLockTimeout)
	if err != nil {
		// Without the lock we cannot tell who else uses the server: leave it
		// running, which is always safe for the others.
		c.dropRef()
		return err
	}
	defer unlock()
	return c.releaseLocked()
}

// releaseLocked is release with pgembed.lock already held.
func (c *Cluster) releaseLocked() error {
	c.dropRef()
	n, err := c.liveRefs()
	if err != nil {
		return err
	}
	if n > 0 {
		c.logger.Info("PostgreSQL keeps running for other Meridian commands", slog.Int("users", n), slog.Int("pid", c.pid))
		return nil
	}
	c.finishSegment()
	return c.stopServer()
}

// stopServer stops the postmaster running for PGDATA, whoever started it.
func (c *Cluster) stopServer() error {
	pid, err := c.runningPostmaster()
	if err != nil {
		return err
	}
	if c.owned && (pid == 0 || pid == c.pid) {
		return c.stop() // our child: wait for it with cmd.Wait
	}
	if pid == 0 {
		return nil
	}
	return c.stopPID(pid)
}

// stopPID stops a postmaster this process did not start (another process
// started it and exited, or pg_ctl restarted it): SIGINT, then SIGQUIT.
func (c *Cluster) stopPID(pid int) error {
	running := func() bool { return processAlive(pid) && isPostmasterFor(pid, c.pgData) }
	waitGone := func(d time.Duration) bool {
		for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(pollInterval) {
			if !running() {
				return true
			}
		}
		return !running()
	}
	c.logger.Info("Stopping PostgreSQL", slog.Int("pid", pid))
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("pgembed: cannot stop PostgreSQL (pid %d): %w", pid, err)
	}
	if waitGone(stopTimeout) {
		c.logger.Info("PostgreSQL stopped", slog.Int("pid", pid))
		return nil
	}
	c.logger.Warn("PostgreSQL did not stop in time, sending SIGQUIT", slog.Int("pid", pid))
	_ = syscall.Kill(pid, syscall.SIGQUIT)
	if !waitGone(10 * time.Second) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return fmt.Errorf("pgembed: PostgreSQL (pid %d) did not shut down within %s and was stopped with SIGQUIT", pid, stopTimeout)
}
