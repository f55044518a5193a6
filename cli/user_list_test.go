package cli

import "testing"

func TestUserListOptions(t *testing.T) {
	t.Parallel()
	build := (*app).userListCmd
	if _, err := parse(t, build, ""); err != nil {
		t.Fatal(err)
	}
	_, err := parse(t, build, "", "extra")
	wantUsage(t, err, "an argument")
}
