package server

import (
	"strconv"
	"strings"
	"testing"
)

func TestWebhooksAPI(t *testing.T) {
	e := newEnv(t)
	u := e.customer("Wendy Hook")
	for _, url := range []string{"http://169.254.169.254/", "https://127.0.0.1/"} {
		r := e.want(e.do("POST", "/api/user/webhooks", u.Token, map[string]any{"url": url, "events": []string{"transaction.created"}}), 400, "refused "+url)
		if !strings.Contains(string(r.Body), "webhook_url_refused") {
			t.Fatalf("%s: %s", url, r.Body)
		}
	}
	m := e.want(e.do("POST", "/api/user/webhooks", u.Token, map[string]any{"url": "https://93.184.215.14/hook", "events": []string{"transaction.created", "money_request.created"}}), 201, "create").JSON(t)
	if !strings.HasPrefix(m["secret"].(string), "whsec_") || m["url"] != "https://93.184.215.14/hook" {
		t.Fatalf("created %v", m)
	}
	id := int64(m["id"].(float64))
	list := e.want(e.do("GET", "/api/user/webhooks", u.Token, nil), 200, "list")
	if strings.Contains(string(list.Body), "whsec_") || !strings.Contains(string(list.Body), `"status":"active"`) {
		t.Fatalf("list %s", list.Body)
	}
	e.want(e.do("GET", "/api/user/webhooks/"+strconv.FormatInt(id, 10)+"/deliveries", u.Token, nil), 200, "deliveries")
	other := e.customer("Otto Other")
	e.want(e.do("DELETE", "/api/user/webhooks/"+strconv.FormatInt(id, 10), other.Token, nil), 404, "another's")
	e.want(e.do("POST", "/api/user/webhooks/"+strconv.FormatInt(id, 10)+"/deliveries/5/redeliver", u.Token, nil), 404, "never sent")
	e.want(e.do("DELETE", "/api/user/webhooks/"+strconv.FormatInt(id, 10), u.Token, nil), 204, "delete")
	e.want(e.do("GET", "/api/user/webhooks/"+strconv.FormatInt(id, 10)+"/deliveries", u.Token, nil), 404, "deleted")
}
