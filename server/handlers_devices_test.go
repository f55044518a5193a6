package server

import (
	"strconv"
	"testing"
)

func TestDevicesAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.customer("Bob Stone")
	carol := e.customer("Carol King")
	const tok = "ExponentPushToken[bbbbbbbbbbbbbbbbbbbbbb]"

	e.want(e.do("POST", "/api/user/devices", "", map[string]any{"push_token": tok, "platform": "ios"}), 401, "no token")
	e.want(e.do("POST", "/api/user/devices", bob.Token, map[string]any{"push_token": "https://example.test/x", "platform": "ios"}), 400, "not an Expo token")
	e.want(e.do("POST", "/api/user/devices", bob.Token, map[string]any{"push_token": tok, "platform": "web"}), 400, "platform")
	e.want(e.do("POST", "/api/user/devices", bob.Token, `{"push_token": 1}`), 400, "wrong type")

	d := e.want(e.do("POST", "/api/user/devices", bob.Token, map[string]any{"push_token": tok, "platform": "android"}), 201, "register").JSON(t)
	if d["platform"] != "android" || d["current"] != true || d["push_token"] != tok {
		t.Fatalf("device %v", d)
	}
	id := strconv.FormatInt(int64(d["id"].(float64)), 10)
	var list []map[string]any
	e.want(e.do("GET", "/api/user/devices", bob.Token, nil), 200, "list").Into(t, &list)
	if len(list) != 1 {
		t.Fatalf("list %v", list)
	}
	// An admin may register a phone too (notifications are for every signed-in user).
	adm := e.admin()
	e.want(e.do("GET", "/api/user/devices", adm.Token, nil), 200, "admin list")

	e.want(e.do("DELETE", "/api/user/devices/"+id, carol.Token, nil), 404, "another user's device")
	e.want(e.do("DELETE", "/api/user/devices/x", bob.Token, nil), 404, "not an id")
	e.want(e.do("DELETE", "/api/user/devices/"+id, bob.Token, nil), 204, "remove")
	e.want(e.do("DELETE", "/api/user/devices/"+id, bob.Token, nil), 404, "removed already")

	// Signing out ends the session's device with it.
	e.want(e.do("POST", "/api/user/devices", carol.Token, map[string]any{"push_token": tok, "platform": "ios"}), 201, "register")
	other := e.login(carol.Email, "password123")
	e.want(e.do("POST", "/api/auth/logout", carol.Token, nil), 204, "logout")
	e.want(e.do("GET", "/api/user/devices", other.Token, nil), 200, "list").Into(t, &list)
	if len(list) != 0 {
		t.Fatalf("a signed-out session's device is listed: %v", list)
	}
	e.want(e.do("PUT", "/api/user/devices", bob.Token, nil), 405, "PUT")
}
