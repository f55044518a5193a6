//go:build cluster

package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"meridian/pkg/money"
)

// cluster is one run of scripts/cluster/cluster.sh.
type cluster struct {
	root, dir, bin string
	env            map[string]string
}

func up(t *testing.T, bin string, env ...string) *cluster {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/tmp", "mclt")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{root: root, dir: dir, bin: bin}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs:\n%s", c.logs())
		}
		cmd := c.cmd("stop")
		if t.Failed() && os.Getenv("CLUSTER_KEEP_ON_FAILURE") == "1" {
			cmd.Env = append(cmd.Env, "CLUSTER_KEEP=1")
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("cluster.sh stop: %v\n%s", err, out)
		}
	})
	start := time.Now()
	var out []byte
	for attempt := 0; ; attempt++ {
		cmd := c.cmd("up")
		// The load sends each customer's money over and over: a limit it never
		// reaches keeps every run measuring payments (each still checked
		// against the limit), not daily_limit_exceeded refusals.
		cmd.Env = append(cmd.Env, "CLUSTER_BASE_PORT="+strconv.Itoa(freeBase(t)), "CLUSTER_DEMO=0",
			"CLUSTER_DAILY_TRANSFER_LIMIT=1000000000.00")
		cmd.Env = append(cmd.Env, env...)
		out, err = cmd.CombinedOutput()
		if err == nil {
			break
		}
		if attempt < 2 && bytes.Contains(out, []byte("is in use")) {
			continue // another process took a port of the range first: another range
		}
		t.Fatalf("cluster.sh up: %v\n%s", err, out)
	}
	t.Logf("cluster up in %s:\n%s", time.Since(start).Round(time.Millisecond), out)
	c.env = readEnv(t, filepath.Join(dir, "cluster.env"))
	for _, k := range []string{"URL", "SERVE_A_URL", "SERVE_B_URL", "APP_PRIMARY_URL", "OWNER_PRIMARY_URL", "OWNER_REPLICA_URL",
		"OWNER_NODE1_URL", "OWNER_NODE2_URL", "NODE1_REST", "NODE2_REST", "NODE1_DIR", "NODE2_DIR", "HAPROXY_SOCKET", "PGBACKREST_CONF"} {
		if c.env[k] == "" {
			t.Fatalf("cluster.env has no %s", k)
		}
	}
	return c
}

func (c *cluster) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command("bash", append([]string{filepath.Join(c.root, "scripts/cluster/cluster.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "CLUSTER_DIR="+c.dir, "MERIDIAN_BIN="+c.bin)
	return cmd
}

func (c *cluster) script(t *testing.T, args ...string) {
	t.Helper()
	out, err := c.cmd(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("cluster.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if len(out) > 0 {
		t.Logf("cluster.sh %s:\n%s", strings.Join(args, " "), strings.TrimSpace(string(out)))
	}
}

// meridian runs a command of the binary against dsn (as meridian_app, with
// the owner's URL for what only the owner may do).
func (c *cluster) meridian(t *testing.T, dsn string, args ...string) {
	t.Helper()
	cmd := exec.Command(c.bin, append(args, "--data-dir", filepath.Join(c.dir, "cli"), "--log-level", "warn")...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MERIDIAN_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// As an operator runs them: the owner's URL beside the runtime role's
	// (the bulk seed writes what only the owner may: roles, dates).
	cmd.Env = append(cmd.Env, "MERIDIAN_DATABASE_URL="+dsn, "MERIDIAN_DATABASE_OWNER_URL="+c.env["OWNER_PRIMARY_URL"])
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("meridian %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// haproxy sends one command to HAProxy's runtime API.
func (c *cluster) haproxy(t *testing.T, command string) string {
	t.Helper()
	conn, err := net.DialTimeout("unix", c.env["HAPROXY_SOCKET"], 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(command + "\n")); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	_, _ = b.ReadFrom(conn)
	return b.String()
}

// waitServersUp waits until n servers of the backend are UP.
func (c *cluster) waitServersUp(ctx context.Context, t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		up := 0
		sc := bufio.NewScanner(strings.NewReader(c.haproxy(t, "show stat")))
		for sc.Scan() {
			f := strings.Split(sc.Text(), ",")
			if len(f) > 17 && f[0] == "meridian" && f[1] != "BACKEND" && f[1] != "FRONTEND" && f[17] == "UP" {
				up++
			}
		}
		if up >= n {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("HAProxy: %d servers UP after 30 s, want %d", up, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *cluster) logs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(c.dir, "log", "*.log"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "== %s\n%s\n", filepath.Base(f), strings.Join(lines, "\n"))
	}
	return b.String()
}

// transfer makes one transfer and returns its id; anything but 201 fails the test.
func transfer(ctx context.Context, t *testing.T, client *http.Client, base, token, from, to string, amount money.Amount) int64 {
	id, _ := transferLSN(ctx, t, client, base, token, from, to, amount)
	return id
}

// transferLSN makes one transfer and returns its id and the commit position
// the answer tells (X-Meridian-Commit-LSN).
func transferLSN(ctx context.Context, t *testing.T, client *http.Client, base, token, from, to string, amount money.Amount) (int64, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"account_id": from, "to_account_id": to, "amount": amount, "description": "Cluster test"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/user/money-transfer", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", uuid.NewString())
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("transfer through %s: HTTP %d: %s", base, resp.StatusCode, b.String())
	}
	var out struct {
		Transaction struct {
			ID int64 `json:"id"`
		} `json:"transaction"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil || out.Transaction.ID == 0 {
		t.Fatalf("transfer: no transaction id in %s", b.String())
	}
	return out.Transaction.ID, resp.Header.Get(headerCommitLSN)
}

// metric reads one unlabelled figure from an instance's /metrics.
func metric(ctx context.Context, t *testing.T, client *http.Client, base, name string) float64 {
	t.Helper()
	status, body := get(ctx, t, client, base+"/metrics", "", "")
	if status != http.StatusOK {
		t.Fatalf("%s/metrics: HTTP %d", base, status)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s/metrics: %q", base, line)
			}
			return f
		}
	}
	t.Fatalf("%s/metrics has no %s", base, name)
	return 0
}

func get(ctx context.Context, t *testing.T, client *http.Client, u, token, lsn string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if lsn != "" {
		req.Header.Set(headerCommitLSN, lsn)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.Bytes()
}

// prerequisites fails (never skips) when something the cluster needs is missing.
func prerequisites(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("MERIDIAN_BIN")
	if bin == "" {
		bin = "../../bin/meridian"
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("%s: %v (make cluster-test builds it; or go build -o bin/meridian ./cmd/meridian)", abs, err)
	}
	var missing []string
	tools := []string{"pgbouncer", "haproxy", "curl", "patroni", "patronictl", "etcd", "pgbackrest"}
	if os.Geteuid() == 0 {
		tools = append(tools, "runuser") // PostgreSQL and PgBouncer refuse root
	}
	for _, p := range tools {
		if _, err := exec.LookPath(p); err != nil {
			if _, err := os.Stat("/usr/sbin/" + p); err != nil {
				missing = append(missing, p)
			}
		}
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_rewind"); len(m) == 0 {
		missing = append(missing, "PostgreSQL server binaries in /usr/lib/postgresql/*/bin")
	}
	if len(missing) > 0 {
		t.Fatalf("missing: %s (make deps-cluster installs them)", strings.Join(missing, ", "))
	}
	return abs
}

// freeBase picks a base port with the cluster's ports free.
func freeBase(t *testing.T) int {
	t.Helper()
	for i := 0; i < 50; i++ {
		base := 20000 + rand.IntN(400)*100
		free := true
		for _, off := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 20} {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+off))
			if err != nil {
				free = false
				break
			}
			l.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free range of ports")
	return 0
}

func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q is not a positive number", name, v)
	}
	return n
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
}

// member is one node as Patroni's REST API tells (GET /cluster).
type member struct {
	Name     string `json:"name"`
	Role     string `json:"role"`  // leader, sync_standby, replica
	State    string `json:"state"` // running, starting, stopped, ...
	Timeline int    `json:"timeline"`
	Lag      any    `json:"lag"`
}

// members asks any node's Patroni for the cluster's members.
func (c *cluster) members(ctx context.Context) ([]member, error) {
	client := &http.Client{Timeout: 2 * time.Second}
	var lastErr error
	for _, rest := range []string{c.env["NODE1_REST"], c.env["NODE2_REST"]} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rest+"/cluster", nil)
		res, err := client.Do(req)
		if err != nil {
			lastErr = err
			continue
		}
		var out struct {
			Members []member `json:"members"`
		}
		err = json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		if err != nil {
			lastErr = err
			continue
		}
		return out.Members, nil
	}
	return nil, lastErr
}

// primaryNode is the node whose Patroni answers GET /primary 200 ("" if none).
func (c *cluster) primaryNode(ctx context.Context) string {
	client := &http.Client{Timeout: 2 * time.Second}
	for _, n := range []string{"node1", "node2"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.env[strings.ToUpper(n)+"_REST"]+"/primary", nil)
		if res, err := client.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return n
			}
		}
	}
	return ""
}

// killPostmaster sends SIGKILL to a node's postmaster and returns its pid.
func (c *cluster) killPostmaster(t *testing.T, node string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.env[strings.ToUpper(node)+"_DIR"], "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		t.Fatalf("%s's postmaster.pid: %q", node, line)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	return pid
}

// patroniLog is a node's Patroni log.
func (c *cluster) patroniLog(node string) string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "log", "patroni-"+node+".log"))
	return string(b)
}

// pgBin is the newest /usr/lib/postgresql/*/bin (the cluster's, cluster.sh).
func pgBin(t *testing.T) string {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	best, bestV := "", -1
	for _, d := range dirs {
		v, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil && v > bestV {
			best, bestV = d, v
		}
	}
	if best == "" {
		t.Fatal("no /usr/lib/postgresql/*/bin/pg_ctl")
	}
	return best
}

// pgOwner is the credential PostgreSQL runs with for a node's data dir when
// we are root (it refuses root), or nil.
func pgOwner(t *testing.T, dataDir string) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	fi, err := os.Stat(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return &syscall.Credential{Uid: st.Uid, Gid: st.Gid}
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// tailText is the last n lines of s.
func tailText(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
