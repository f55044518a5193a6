package cli

import "testing"

func TestAuditLogOptions(t *testing.T) {
	t.Parallel()
	o, err := parse(t, (*app).auditTailCmd, "")
	if err != nil || o.lines != 20 || o.follow {
		t.Fatalf("tail: %+v %v", o, err)
	}
	if o, err = parse(t, (*app).auditTailCmd, "", "-n", "1000", "-f"); err != nil || o.lines != 1000 || !o.follow {
		t.Fatalf("tail -n 1000 -f: %+v %v", o, err)
	}
	for _, n := range []string{"0", "1001", "-5", "x"} {
		_, err := parse(t, (*app).auditTailCmd, "", "-n", n)
		wantUsage(t, err, "tail -n "+n)
	}
	_, err = parse(t, (*app).auditTailCmd, "", "extra")
	wantUsage(t, err, "tail extra")
	_, err = parse(t, (*app).auditVerifyCmd, "", "extra")
	wantUsage(t, err, "verify extra")
}
