package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// sometimes are metrics a rule or panel may use that this test's serve does
// not export, each with why. Every other metric must be one it exports.
var sometimes = map[string]string{
	"up":                               "Prometheus's own, per scraped target",
	"meridian_replica_up":              "exported only with database_read_urls (server/metrics.go)",
	"meridian_replica_lag_seconds":     "exported only with database_read_urls (server/metrics.go)",
	"meridian_replica_lag_bytes":       "exported only with database_read_urls (server/metrics.go)",
	"meridian_replica_fallbacks_total": "exported only with database_read_urls (server/metrics.go)",
	"meridian_replica_waits_total":     "exported only with database_read_urls (server/metrics.go)",
}

// TestDeployMonitoring checks deploy/prometheus and deploy/grafana against
// what serve exports: every alert rule is well formed (a unique name, a
// for duration, a severity, a summary and a description) and every metric
// an alert or a dashboard panel reads is one serve exports at /metrics
// (serve runs here on an embedded data dir), or is listed in sometimes.
// With promtool installed, `promtool check rules`, `check config` and
// `test rules` (deploy/prometheus/meridian-alerts.test.yml) must pass too.
func TestDeployMonitoring(t *testing.T) {
	t.Parallel()
	exported := scrapeServe(t)
	for _, m := range []string{"meridian_http_requests_total", "meridian_backup_newest_timestamp_seconds", "meridian_wal_archive_failing", "meridian_scheduler_lag_seconds"} {
		if !exported[m] {
			t.Fatalf("serve does not export %s (scraped: %d metrics)", m, len(exported))
		}
	}
	for name, why := range sometimes {
		if exported[name] && name != "up" {
			t.Errorf("%s is exported now: take it off sometimes (%s)", name, why)
		}
	}
	check := func(where, expr string) {
		t.Helper()
		names, err := promqlMetrics(expr)
		if err != nil {
			t.Errorf("%s: %v: %s", where, err, expr)
			return
		}
		if len(names) == 0 {
			t.Errorf("%s reads no metric: %s", where, expr)
		}
		for _, n := range names {
			if !exported[n] && sometimes[n] == "" {
				t.Errorf("%s reads %s, which serve does not export", where, n)
			}
		}
	}

	// Alert rules.
	var rules struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	b, err := os.ReadFile("../deploy/prometheus/meridian-alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &rules); err != nil {
		t.Fatalf("meridian-alerts.yml: %v", err)
	}
	seen := map[string]bool{}
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			n++
			where := "alert " + r.Alert
			if r.Alert == "" || seen[r.Alert] {
				t.Errorf("group %s: a rule without a name, or a name used twice: %q", g.Name, r.Alert)
			}
			seen[r.Alert] = true
			if r.For != "" {
				if _, err := time.ParseDuration(r.For); err != nil {
					t.Errorf("%s: for %q", where, r.For)
				}
			}
			if s := r.Labels["severity"]; s != "critical" && s != "warning" {
				t.Errorf("%s: severity %q (critical or warning)", where, s)
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("%s: needs a summary and a description", where)
			}
			check(where, r.Expr)
		}
	}
	// What contract §10 asks the rules to watch.
	for _, want := range []string{"MeridianHighErrorRate", "MeridianSlowRequests", "MeridianReplicaLagging", "MeridianBackupTooOld", "MeridianSchedulerLagging", "MeridianWebhookFailures"} {
		if !seen[want] {
			t.Errorf("no alert %s", want)
		}
	}

	// The dashboard.
	var dash struct {
		Title  string `json:"title"`
		Panels []struct {
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	b, err = os.ReadFile("../deploy/grafana/meridian.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("meridian.json: %v", err)
	}
	graphs := 0
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		graphs++
		if p.Title == "" || len(p.Targets) == 0 {
			t.Errorf("panel %q has no title or no query", p.Title)
		}
		for _, q := range p.Targets {
			check("panel "+p.Title, q.Expr)
		}
	}
	t.Logf("%d alert rules and %d dashboard panels read only metrics serve exports (or listed ones)", n, graphs)

	if promtool, err := exec.LookPath("promtool"); err == nil {
		for _, args := range [][]string{{"check", "rules", "meridian-alerts.yml"}, {"check", "config", "prometheus.yml"}, {"test", "rules", "meridian-alerts.test.yml"}} {
			cmd := exec.Command(promtool, args...)
			cmd.Dir = "../deploy/prometheus"
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	} else {
		t.Log("promtool is not installed: the rules were checked by this test only")
	}
}

// scrapeServe runs serve on an embedded data dir and returns the metric
// names its /metrics exports (histograms with their _bucket, _sum, _count).
func scrapeServe(t *testing.T) map[string]bool {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "mmon")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- ExecuteContext(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "d"), "--log-level", "error"}, nil, &out, &out)
	}()
	defer func() { cancel(); <-done }()
	waitFor(t, func() bool { return strings.Contains(out.String(), "Meridian is running at") }, "serve to start")
	base := strings.Replace(strings.Fields(strings.SplitAfter(out.String(), "running at ")[1])[0], "localhost", "127.0.0.1", 1)
	// One request, so the request figures have a series.
	if res, err := http.Get(base + "/api/config"); err == nil {
		res.Body.Close()
	}
	names := map[string]bool{}
	// The base backup serve takes at start shows in the figures once taken.
	waitFor(t, func() bool {
		res, err := http.Get(base + "/metrics")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 4 && f[0] == "#" && f[1] == "TYPE" {
				names[f[2]] = true
				if f[3] == "histogram" || f[3] == "summary" {
					names[f[2]+"_bucket"], names[f[2]+"_sum"], names[f[2]+"_count"] = true, true, true
				}
			}
		}
		return strings.Contains(string(b), "meridian_backup_newest_timestamp_seconds ") && !strings.Contains(string(b), "meridian_backup_newest_timestamp_seconds 0\n")
	}, "serve's first base backup in /metrics")
	return names
}

var (
	promString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promGrouping = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
)

// promKeywords are PromQL's words that are not metrics.
var promKeywords = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true, "by": true,
	"without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true, "inf": true, "nan": true}

// promqlMetrics returns the metric names an expression reads, after
// checking its brackets pair up: it drops strings, label matchers,
// grouping clauses and ranges, and keeps the names that are not a
// function (followed by "(") or a keyword.
func promqlMetrics(expr string) ([]string, error) {
	s := promString.ReplaceAllString(expr, `""`)
	var stack []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	for _, r := range s {
		switch r {
		case '(', '[', '{':
			stack = append(stack, r)
		case ')', ']', '}':
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				return nil, fmt.Errorf("unbalanced %q", r)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("unclosed %q", stack[len(stack)-1])
	}
	s = regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(s, " ")
	s = regexp.MustCompile(`\[[^\]]*\]`).ReplaceAllString(s, " ")
	s = promGrouping.ReplaceAllString(s, " ")
	var out []string
	for _, loc := range promIdent.FindAllStringIndex(s, -1) {
		name := s[loc[0]:loc[1]]
		rest := strings.TrimLeft(s[loc[1]:], " \t\n")
		if promKeywords[strings.ToLower(name)] || strings.HasPrefix(rest, "(") || (loc[0] > 0 && (s[loc[0]-1] == '$' || s[loc[0]-1] == '.' || (s[loc[0]-1] >= '0' && s[loc[0]-1] <= '9'))) {
			continue
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}
