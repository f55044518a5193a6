package cli

import "testing"

func TestUserCreateOptions(t *testing.T) {
	t.Parallel()
	build := (*app).userCreateCmd
	o, err := parse(t, build, "", "--name", "Cy Cole", "--email", "cy@example.test", "--phone", "+1 555 0001", "--password", "password123")
	if err != nil || o.in.FullName != "Cy Cole" || o.in.Email != "cy@example.test" || o.in.PhoneNumber != "+1 555 0001" ||
		o.in.Password != "password123" || o.in.Role != "User" {
		t.Fatalf("flags: %+v %v", o, err)
	}
	o, err = parse(t, build, "secret from stdin\r\nnext line\n", "--name", "Ann", "--password-stdin", "--role", "Admin")
	if err != nil || o.in.Password != "secret from stdin" || o.in.Role != "Admin" {
		t.Fatalf("--password-stdin: %+v %v", o, err)
	}
	_, err = parse(t, build, "", "--name", "No Password")
	wantUsage(t, err, "no password")
	if _, err = parse(t, build, "", "--password-stdin"); err == nil {
		t.Fatal("empty standard input accepted as a password")
	}
	_, err = parse(t, build, "", "--password", "password123", "extra")
	wantUsage(t, err, "an argument")
}
