package server

import (
	"strconv"
	"testing"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestAdminUsersAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adm := e.admin()
	c := e.customer("Eve Eames")
	var list []map[string]any
	r := e.want(e.do("GET", "/api/admin/users", adm.Token, nil), 200, "users")
	mustUnmarshal(t, r.Body, &list)
	if len(list) != 2 || list[0]["name"] != "Eve Eames" || list[0]["status"] != true || list[0]["phone"] == nil || list[0]["created"] == nil {
		t.Fatalf("users %v", list)
	}
	row := e.want(e.do("PUT", "/api/admin/users/"+itoa(c.ID)+"/status", adm.Token, map[string]any{"is_active": false}), 200, "deactivate").JSON(t)
	if row["status"] != false || row["id"].(float64) != float64(c.ID) {
		t.Fatal(row)
	}
	e.want(e.do("PUT", "/api/admin/users/"+itoa(adm.ID)+"/status", adm.Token, map[string]any{"is_active": false}), 422, "self-deactivation")
	e.want(e.do("PUT", "/api/admin/users/999999/status", adm.Token, map[string]any{"is_active": true}), 404, "unknown user")
	e.want(e.do("PUT", "/api/admin/users/abc/status", adm.Token, map[string]any{"is_active": true}), 404, "an id in the path that cannot be one names nothing")
	e.want(e.do("PUT", "/api/admin/users/"+itoa(c.ID)+"/status", adm.Token, map[string]any{}), 400, "missing is_active")
	e.want(e.do("PUT", "/api/admin/users/"+itoa(c.ID)+"/status", adm.Token, map[string]any{"is_active": "yes"}), 400, "is_active wrong type")

	m := e.want(e.do("POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": c.ID, "roles": []string{"Admin"}}), 200, "assign").JSON(t)
	if m["message"] != "Role assigned successfully" || m["user"].(map[string]any)["role"] != "Admin" {
		t.Fatal(m)
	}
	e.want(e.do("POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": c.ID, "roles": []string{"Root"}}), 400, "bad role")
	e.want(e.do("POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": c.ID}), 400, "no roles")
	// c is Admin but inactive: adm is the only active admin and may not step down.
	e.want(e.do("POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": adm.ID, "roles": []string{"User"}}), 422, "last active admin")
}

func TestAuditLogAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adm := e.admin()
	for i := 0; i < 3; i++ {
		e.customer("Fay Ford")
	}
	m := e.want(e.do("GET", "/api/admin/audit-logs?limit=2", adm.Token, nil), 200, "audit page 1").JSON(t)
	logs := m["audit_logs"].([]any)
	if len(logs) != 2 || m["next_cursor"] == nil {
		t.Fatalf("page 1: %v", m)
	}
	first := logs[0].(map[string]any)
	for _, k := range []string{"id", "FullName", "AccountNumber", "ActionType", "TableName", "Description", "ActionTimestamp"} {
		if _, ok := first[k]; !ok {
			t.Errorf("audit row lacks %s", k)
		}
	}
	seen := 2
	cursor := m["next_cursor"].(string)
	for cursor != "" {
		p := e.want(e.do("GET", "/api/admin/audit-logs?limit=2&before="+cursor, adm.Token, nil), 200, "next page").JSON(t)
		seen += len(p["audit_logs"].([]any))
		cursor, _ = p["next_cursor"].(string)
	}
	if seen < 7 { // 4 registrations + 4 logins at least, minus none
		t.Fatalf("paged through %d rows", seen)
	}
	e.want(e.do("GET", "/api/admin/audit-logs?limit=0", adm.Token, nil), 400, "limit 0")
	e.want(e.do("GET", "/api/admin/audit-logs?limit=abc", adm.Token, nil), 400, "limit abc")
	e.want(e.do("GET", "/api/admin/audit-logs?before=zzz", adm.Token, nil), 400, "bad cursor")
}

func TestAuditLogVerifyAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adm := e.admin()
	c := e.customer("Val Verify")
	e.want(e.do("GET", "/api/admin/audit-logs/verify", c.Token, nil), 403, "a customer")
	e.want(e.do("GET", "/api/admin/audit-logs/verify", "", nil), 401, "no token")
	m := e.want(e.do("GET", "/api/admin/audit-logs/verify", adm.Token, nil), 200, "verify").JSON(t)
	head, _ := m["head"].(map[string]any)
	if m["ok"] != true || m["first_bad_id"] != nil || m["verified_through"] == nil || head["seq"] == nil || head["hash"] == nil || len(m) != 4 {
		t.Fatalf("intact: %v", m)
	}
	// With checkpoints in the instance's anchor_dir, it checks the chain
	// against them too.
	dir := t.TempDir()
	if _, wrote, err := e.svc.WriteAnchor(ctxBG, dir); err != nil || !wrote {
		t.Fatalf("checkpoint: %v %v", wrote, err)
	}
	e.srv = New(e.svc, e.srv.hub, Options{Logger: quiet, Version: "test", AnchorDir: dir})
	m = e.want(e.do("GET", "/api/admin/audit-logs/verify", adm.Token, nil), 200, "verify with checkpoints").JSON(t)
	if anchors, _ := m["anchors"].(map[string]any); m["ok"] != true || anchors["ok"] != true || anchors["checked"] != float64(1) {
		t.Fatalf("with a checkpoint: %v", m)
	}
	var id int64
	// Tampering takes the owner's rights: the runtime role the server runs
	// as may not change an audit row at all.
	db, err := openDB(e.superURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Get(&id, `SELECT min(id) FROM audit_log WHERE actor_user_id = $1`, c.ID)
	for _, q := range []string{
		`ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete`,
		`UPDATE audit_log SET description = 'nothing happened' WHERE id = ` + itoa(id),
		`ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_delete`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	m = e.want(e.do("GET", "/api/admin/audit-logs/verify", adm.Token, nil), 200, "verify after tampering").JSON(t)
	if m["ok"] != false || m["first_bad_id"] != float64(id) || m["verified_through"] == nil {
		t.Fatalf("tampered row %d: %v", id, m)
	}
}

func TestPromoteCustomerWithMoneyAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adm := e.admin()
	c := e.customer("Kim Keep")
	id, _ := e.account(c, 5)
	r := e.want(e.do("POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": c.ID, "roles": []string{"Admin"}}), 422, "promote with money")
	if m := r.JSON(t); m["error"] != "Close or empty this customer's accounts first" || m["code"] != "customer_has_accounts" {
		t.Fatal(m)
	}
	e.want(e.do("PUT", "/api/user/accounts/"+itoa(id), c.Token, map[string]any{"account_number": "KIMEMPTY01", "balance": 0, "account_type_id": 1}), 200, "empty it")
	e.want(e.do("POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": c.ID, "roles": []string{"Admin"}}), 200, "promote when empty")
}
