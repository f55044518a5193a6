package cli

import "testing"

func TestMigrateOptions(t *testing.T) {
	t.Parallel()
	up, err := parse(t, (*app).migrateUpCmd, "")
	if err != nil || up.n != 0 {
		t.Fatalf("up: %+v %v", up, err)
	}
	if up, err = parse(t, (*app).migrateUpCmd, "", "3"); err != nil || up.n != 3 {
		t.Fatalf("up 3: %+v %v", up, err)
	}
	down, err := parse(t, (*app).migrateDownCmd, "")
	if err != nil || down.n != 1 || down.destroy {
		t.Fatalf("down: %+v %v", down, err)
	}
	if down, err = parse(t, (*app).migrateDownCmd, "", "--all", "--destroy-data"); err != nil || down.n < 1000 || !down.destroy {
		t.Fatalf("down --all --destroy-data: %+v %v", down, err)
	}
	for _, bad := range []string{"0", "-1", "zero", "1.5"} {
		_, err := parse(t, (*app).migrateUpCmd, "", bad)
		wantUsage(t, err, "up "+bad)
		_, err = parse(t, (*app).migrateDownCmd, "", bad)
		wantUsage(t, err, "down "+bad)
	}
	_, err = parse(t, (*app).migrateDownCmd, "", "1", "2")
	wantUsage(t, err, "down 1 2")
	_, err = parse(t, (*app).migrateStatusCmd, "", "extra")
	wantUsage(t, err, "status extra")
}
