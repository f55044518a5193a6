package cli

import "testing"

func TestSeedOptions(t *testing.T) {
	t.Parallel()
	o, err := parse(t, (*app).seedCmd, "")
	if err != nil || o.bulk.Users != 0 || o.bulk.AccountsPerUser != 1 || o.bulk.Seed != 1 || o.bulk.Force {
		t.Fatalf("seed: %+v %v", o, err)
	}
	o, err = parse(t, (*app).seedCmd, "", "--users", "100", "--accounts-per-user", "3", "--transfers-per-user", "5", "--seed", "7", "--force")
	if b := o.bulk; err != nil || b.Users != 100 || b.AccountsPerUser != 3 || b.TransfersPerUser != 5 || b.Seed != 7 || !b.Force {
		t.Fatalf("seed --users 100 ...: %+v %v", o, err)
	}
	for _, bad := range [][]string{{"--users", "-1"}, {"--accounts-per-user", "0"}, {"--transfers-per-user", "-1"}, {"--users", "many"}, {"extra"}} {
		_, err := parse(t, (*app).seedCmd, "", bad...)
		wantUsage(t, err, "seed "+bad[0])
	}
}
