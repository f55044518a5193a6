package cli

import "testing"

func TestBenchOptions(t *testing.T) {
	t.Parallel()
	o, err := parse(t, (*app).benchCmd, "", "--users", "10", "--count", "50", "--reads", "--notify", "--hot-account", "--url", "https://bank.example")
	if err != nil || o.users != 10 || o.count != 50 || !o.reads || !o.notify || !o.hotAccount || o.url != "https://bank.example" || o.concurrency != 32 {
		t.Fatalf("%+v %v", o, err)
	}
	if o, err = parse(t, (*app).benchCmd, "", "--check-only", "--users", "0"); err != nil || !o.checkOnly {
		t.Fatalf("--check-only: %+v %v", o, err)
	}
	for _, bad := range [][]string{
		{"--users", "1"}, {"--notify", "--users", "3"}, {"--accounts-per-user", "6"}, {"--concurrency", "0"},
		{"--count", "-1"}, {"--duration", "0"}, {"--reads", "--read-duration", "0"}, {"--notify-samples", "0"},
		{"--url", "127.0.0.1:8080"}, {"--duration", "soon"}, {"extra"},
	} {
		_, err := parse(t, (*app).benchCmd, "", bad...)
		wantUsage(t, err, "bench "+bad[0])
	}
}
