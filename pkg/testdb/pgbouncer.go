package testdb

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lib/pq"
)

// PgBouncerPoolSize is how many server connections the test PgBouncer
// keeps per database and user: few, so that statements of different
// clients share them, as in production, and session state left behind by
// one client would show in another's.
const PgBouncerPoolSize = 3

// PgBouncer starts PgBouncer in transaction mode in front of the database
// of dsn (a URL from URL or AppURL), for this test, and returns the same
// address through it (TCP on 127.0.0.1). It runs as the PostgreSQL
// server's user when the test runs as root (PgBouncer refuses root). The
// binary comes from PATH or /usr/sbin (make deps-pgbouncer).
//
// Its settings are those README's "Read replicas and poolers" asks for:
// pool_mode = transaction, and statement_timeout and lock_timeout NOT in
// ignore_startup_parameters (pkg/db Open then connects without them).
func PgBouncer(t testing.TB, dsn string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		if _, e := os.Stat("/usr/sbin/pgbouncer"); e != nil {
			t.Fatal("pgbouncer is not installed: run make deps-pgbouncer (apt-get install pgbouncer)")
		}
		bin = "/usr/sbin/pgbouncer"
	}
	kv := dsn
	if strings.Contains(dsn, "://") {
		if kv, err = pq.ParseURL(dsn); err != nil {
			t.Fatal(err)
		}
	}
	params := map[string]string{}
	for _, f := range strings.Fields(kv) {
		k, v, _ := strings.Cut(f, "=")
		params[k] = strings.Trim(v, "'")
	}
	host, port := params["host"], params["port"]
	if host == "" {
		host = "localhost"
	}
	if port == "" {
		port = "5432"
	}
	dir, err := os.MkdirTemp("/tmp", "mtpgb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
default_pool_size = %d
max_client_conn = 500
server_reset_query =
ignore_startup_parameters = extra_float_digits
logfile = %s
pidfile = %s
`, host, port, listen, filepath.Join(dir, "users.txt"), PgBouncerPoolSize, filepath.Join(dir, "pgbouncer.log"), filepath.Join(dir, "pgbouncer.pid"))
	users := fmt.Sprintf("%q \"\"\n%q \"\"\n", params["user"], AppRole)
	if err := os.WriteFile(filepath.Join(dir, "pgbouncer.ini"), []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "users.txt"), []byte(users), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, filepath.Join(dir, "pgbouncer.ini"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if os.Geteuid() == 0 {
		// The user that owns the server's socket directory (pkg/pgembed's
		// server user) may reach the socket; else "postgres".
		var uid, gid int
		if fi, err := os.Stat(host); err == nil && fi.IsDir() {
			st := fi.Sys().(*syscall.Stat_t)
			uid, gid = int(st.Uid), int(st.Gid)
		}
		if uid == 0 {
			u, err := user.Lookup("postgres")
			if err != nil {
				t.Fatalf("pgbouncer refuses root and there is no postgres user: %v", err)
			}
			uid, _ = strconv.Atoi(u.Uid)
			gid, _ = strconv.Atoi(u.Gid)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	out, err := os.Create(filepath.Join(dir, "pgbouncer.out"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGINT); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", listen), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			o, _ := os.ReadFile(out.Name())
			t.Fatalf("pgbouncer did not listen: %v\n%s%s", err, b, o)
		}
	}
	pass := ""
	if params["password"] != "" {
		pass = " password=" + params["password"]
	}
	return fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s sslmode=disable%s", listen, params["user"], params["dbname"], pass)
}
