package cli

import (
	"strings"
	"testing"
)

func TestRoleAssignOptions(t *testing.T) {
	t.Parallel()
	o, err := parse(t, (*app).roleAssignCmd, "", "cy@example.test", "Admin")
	if err != nil || o.ref != "cy@example.test" || o.role != "Admin" {
		t.Fatalf("%+v %v", o, err)
	}
	for _, as := range [][]string{{}, {"cy@example.test"}, {"a", "Admin", "b"}} {
		_, err := parse(t, (*app).roleAssignCmd, "", as...)
		wantUsage(t, err, "role assign "+strings.Join(as, " "))
	}
}
