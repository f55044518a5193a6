package pgembed

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runUser is the unprivileged user initdb and postgres run as when Meridian
// runs as root (both refuse to run as root).
type runUser struct {
	name string
	uid  uint32
	gid  uint32
}

// serverUser returns the user to run PostgreSQL as: nil (the current user)
// unless we are root, then "postgres" or else "nobody".
func serverUser() (*runUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		return &runUser{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
	}
	return nil, errors.New("pgembed: PostgreSQL refuses to run as root and neither a \"postgres\" nor a \"nobody\" user exists to run it as; create a postgres user or run Meridian as a normal user")
}

// canEnter reports whether u may traverse the directory described by fi.
// Only the primary group counts: the server runs without supplementary groups.
func canEnter(fi fs.FileInfo, u *runUser) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true // cannot tell; let PostgreSQL report it
	}
	perm := fi.Mode().Perm()
	switch {
	case st.Uid == u.uid:
		return perm&0o100 != 0
	case st.Gid == u.gid:
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// checkParentsTraversable returns an error naming the first parent directory
// of dataDir that u cannot traverse. We do not change the user's directories.
func checkParentsTraversable(dataDir string, u *runUser) error {
	real, err := filepath.EvalSymlinks(dataDir)
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	var parents []string
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		parents = append(parents, dir)
		if dir == filepath.Dir(dir) {
			break
		}
	}
	// Report the outermost blocking directory first: that is the one to fix.
	for i := len(parents) - 1; i >= 0; i-- {
		fi, err := os.Stat(parents[i])
		if err != nil {
			return fmt.Errorf("pgembed: %w", err)
		}
		if !canEnter(fi, u) {
			return fmt.Errorf("pgembed: PostgreSQL runs as user %q, which cannot enter %s (a parent of the data dir %s); make it traversable (e.g. chmod o+x %s) or choose another data_dir",
				u.name, parents[i], dataDir, parents[i])
		}
	}
	return nil
}

// allowTraverse lets u traverse the data dir itself (execute permission only,
// no listing) so the server can reach DataDir/postgres and DataDir/run.
func allowTraverse(dataDir string, u *runUser, logger *slog.Logger) error {
	fi, err := os.Stat(dataDir)
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	if canEnter(fi, u) {
		return nil
	}
	st := fi.Sys().(*syscall.Stat_t)
	bit := fs.FileMode(0o001)
	if st.Gid == u.gid {
		bit = 0o010
	}
	logger.Info("Allowing the PostgreSQL user to traverse the data dir", slog.String("dir", dataDir), slog.String("user", u.name))
	if err := os.Chmod(dataDir, fi.Mode().Perm()|bit); err != nil {
		return fmt.Errorf("pgembed: cannot let user %q traverse %s: %w", u.name, dataDir, err)
	}
	return nil
}

// chownTree gives dir and everything in it to u (chown -R), and makes dir 0700.
// Entries that already belong to u are left alone.
func chownTree(dir string, u *runUser) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walk (e.g. a temp file of a running server)
			}
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid == u.uid && st.Gid == u.gid {
			return nil
		}
		return os.Lchown(path, int(u.uid), int(u.gid))
	})
	if err == nil {
		err = os.Chmod(dir, 0o700)
	}
	if err != nil {
		return fmt.Errorf("pgembed: cannot give %s to user %q: %w", dir, u.name, err)
	}
	return nil
}

// LockFile takes an exclusive flock on path, waiting up to timeout (or until
// ctx ends), and returns the function that releases it. The kernel releases
// the lock if the process dies.
func LockFile(ctx context.Context, path string, timeout time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("pgembed: cannot open lock file: %w", err)
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("pgembed: cannot lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("pgembed: another process has held %s for over %s while starting PostgreSQL", path, timeout)
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			f.Close()
			return nil, fmt.Errorf("pgembed: waiting for %s: %w", path, err)
		}
	}
}

// runningPostmaster returns the pid of the postmaster running for PGDATA, or
// 0 if there is none. A stale postmaster.pid (its process is gone, or the pid
// now belongs to something else) is removed.
func (c *Cluster) runningPostmaster() (int, error) {
	pidFile := filepath.Join(c.pgData, "postmaster.pid")
	f, err := os.Open(pidFile)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("pgembed: %w", err)
	}
	var firstLine string
	sc := bufio.NewScanner(f)
	if sc.Scan() {
		firstLine = strings.TrimSpace(sc.Text())
	}
	f.Close()

	pid, err := strconv.Atoi(firstLine)
	if err == nil && pid > 0 && processAlive(pid) && isPostmasterFor(pid, c.pgData) {
		return pid, nil
	}

	c.logger.Info("Removing stale postmaster.pid", slog.String("pid", firstLine), slog.String("pgdata", c.pgData))
	if err := os.Remove(pidFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("pgembed: cannot remove stale %s: %w", pidFile, err)
	}
	return 0, nil
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// isPostmasterFor reports whether pid is a postgres process serving pgData.
// On Linux, /proc tells the command name and the working directory (the
// postmaster changes into its data directory). Elsewhere we ask ps for the
// command name only.
func isPostmasterFor(pid int, pgData string) bool {
	procDir := fmt.Sprintf("/proc/%d", pid)
	if comm, err := os.ReadFile(procDir + "/comm"); err == nil {
		if !isPostgresCommand(strings.TrimSpace(string(comm))) {
			return false
		}
		cwd, err := os.Readlink(procDir + "/cwd")
		if err != nil {
			// Not allowed to look: the process belongs to another user,
			// so it is not a server we could have started.
			return false
		}
		want, err := filepath.EvalSymlinks(pgData)
		if err != nil {
			want = pgData
		}
		return cwd == want
	}

	out, err := exec.Command("ps", "-o", "comm=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return false
	}
	return isPostgresCommand(filepath.Base(strings.TrimSpace(string(out))))
}

func isPostgresCommand(name string) bool {
	return name == "postgres" || name == "postmaster"
}
