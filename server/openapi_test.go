package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
)

// The catch-alls registered last in routes(): not API operations, so the
// document leaves them out. Keyed by Fiber path; the value lists the methods
// (nil: every method).
var openAPIRouteExceptions = map[string][]string{
	"/api/*": nil,                               // unknown API path: JSON 404
	"/*":     {http.MethodGet, http.MethodHead}, // the web app
}

var openAPIMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// newOpenAPITestServer builds a server over a Service with no database:
// enough to list routes and to reach the handlers that answer before any query.
func newOpenAPITestServer(t *testing.T, o Options) *Server {
	t.Helper()
	tokens, err := auth.NewTokens([]byte(strings.Repeat("k", 32)), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return New(bank.New(nil, tokens, bank.Settings{}), nil, o)
}

// loadOpenAPI parses the embedded document.
func loadOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openapiDoc, &doc); err != nil {
		t.Fatalf("server/openapi.json is not valid JSON: %v", err)
	}
	return doc
}

// openAPIOperations returns the document's operations keyed "METHOD /path".
func openAPIOperations(t *testing.T, doc map[string]any) map[string]map[string]any {
	t.Helper()
	paths, ok := doc["paths"].(map[string]any)
	if !ok {
		t.Fatal("openapi.json: paths is missing or not an object")
	}
	ops := map[string]map[string]any{}
	for path, item := range paths {
		pi, ok := item.(map[string]any)
		if !ok {
			t.Errorf("openapi.json: path %s is not an object", path)
			continue
		}
		for _, m := range openAPIMethods {
			if v, ok := pi[m]; ok {
				op, ok := v.(map[string]any)
				if !ok {
					t.Errorf("openapi.json: %s %s is not an object", strings.ToUpper(m), path)
					continue
				}
				ops[strings.ToUpper(m)+" "+path] = op
			}
		}
	}
	return ops
}

var fiberParam = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)

// TestOpenAPIMatchesRoutes compares the routes the server registers with the
// operations openapi.json documents, both ways.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	s := newOpenAPITestServer(t, Options{})

	// GetRoutes(true) leaves out middleware (Use and Group) entries. Fiber
	// adds a HEAD route for each GET route at startup; a HEAD route on a
	// path that also has a GET is that automatic twin, and not documented.
	routes := s.App().GetRoutes(true)
	gets := map[string]bool{}
	for _, r := range routes {
		if r.Method == http.MethodGet {
			gets[r.Path] = true
		}
	}
	seenException := map[string]bool{}
	registered := map[string]bool{}
	for _, r := range routes {
		if methods, ok := openAPIRouteExceptions[r.Path]; ok && (methods == nil || slices.Contains(methods, r.Method)) {
			seenException[r.Path] = true
			continue
		}
		if r.Method == http.MethodHead && gets[r.Path] {
			continue
		}
		registered[r.Method+" "+fiberParam.ReplaceAllString(r.Path, "{$1}")] = true
	}
	if len(registered) == 0 {
		t.Fatal("the server registers no routes")
	}
	for p := range openAPIRouteExceptions {
		if !seenException[p] {
			t.Errorf("the known exception %s is no longer a route: update openAPIRouteExceptions", p)
		}
	}

	documented := openAPIOperations(t, loadOpenAPI(t))

	var missing, extra []string
	for k := range registered {
		if _, ok := documented[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !registered[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	for _, k := range missing {
		t.Errorf("route %s is not documented in server/openapi.json", k)
	}
	for _, k := range extra {
		t.Errorf("server/openapi.json documents %s, but no such route is registered", k)
	}
}

// resolvePointer follows a local JSON pointer ("#/components/schemas/X").
func resolvePointer(doc map[string]any, ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	var cur any = doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// walkRefs calls fn with every $ref in v and where it was found.
func walkRefs(v any, at string, fn func(at, ref string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "$ref" {
				if s, ok := e.(string); ok {
					fn(at, s)
				} else {
					fn(at, "")
				}
				continue
			}
			walkRefs(e, at+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k), fn)
		}
	case []any:
		for i, e := range x {
			walkRefs(e, at+"/"+strconv.Itoa(i), fn)
		}
	}
}

// deref returns the object v, or the one its $ref points at.
func deref(doc map[string]any, v any) map[string]any {
	m, _ := v.(map[string]any)
	if r, ok := m["$ref"].(string); ok {
		if target, ok := resolvePointer(doc, r); ok {
			m, _ = target.(map[string]any)
		}
	}
	return m
}

var templateParam = regexp.MustCompile(`\{([^{}]+)\}`)

// TestOpenAPIDocumentIsValid checks the document's structure: version,
// references, operations and path parameters.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc := loadOpenAPI(t)

	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1") {
		t.Errorf("openapi = %q; want 3.1.x", doc["openapi"])
	}
	info, _ := doc["info"].(map[string]any)
	if title, _ := info["title"].(string); title != "Meridian API" {
		t.Errorf("info.title = %q; want Meridian API", info["title"])
	}
	if v, _ := info["version"].(string); v == "" {
		t.Error("info.version is missing")
	}

	// Pretty-printed with two spaces, ending with a newline.
	var compact, pretty bytes.Buffer
	if err := json.Compact(&compact, openapiDoc); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&pretty, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	if !bytes.Equal(pretty.Bytes(), openapiDoc) {
		t.Error("server/openapi.json is not pretty-printed with 2 spaces and a final newline")
	}

	// Every $ref points into components and resolves.
	walkRefs(doc, "#", func(at, ref string) {
		if !strings.HasPrefix(ref, "#/components/") {
			t.Errorf("%s: $ref %q does not point into #/components/", at, ref)
			return
		}
		if _, ok := resolvePointer(doc, ref); !ok {
			t.Errorf("%s: $ref %q does not resolve", at, ref)
		}
	})

	components, _ := doc["components"].(map[string]any)
	schemes, _ := components["securitySchemes"].(map[string]any)
	bearer, _ := schemes["bearer"].(map[string]any)
	if bearer["type"] != "http" || bearer["scheme"] != "bearer" {
		t.Errorf("components.securitySchemes.bearer = %v; want an HTTP bearer scheme", bearer)
	}
	schemas, _ := components["schemas"].(map[string]any)
	for _, name := range []string{"Error", "User", "AdminUserRow", "Account", "AccountType", "AccountInput",
		"AccountLookup", "AuditRow", "Transaction", "TransferInput", "MoneyRequest", "MoneyRequestInput",
		"UserSummary", "AdminSummary", "MonthPoint", "Notification"} {
		if _, ok := schemas[name]; !ok {
			t.Errorf("components.schemas.%s is missing", name)
		}
	}

	paths, _ := doc["paths"].(map[string]any)
	ids := map[string]string{}
	ops := openAPIOperations(t, doc)
	keys := make([]string, 0, len(ops))
	for k := range ops {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		op := ops[k]
		path := k[strings.IndexByte(k, ' ')+1:]

		id, _ := op["operationId"].(string)
		switch {
		case id == "":
			t.Errorf("%s has no operationId", k)
		case ids[id] != "":
			t.Errorf("%s and %s share the operationId %q", ids[id], k, id)
		default:
			ids[id] = k
		}

		if resp, _ := op["responses"].(map[string]any); len(resp) == 0 {
			t.Errorf("%s has no responses", k)
		}

		if sec, ok := op["security"].([]any); ok {
			for _, req := range sec {
				for name := range req.(map[string]any) {
					if _, ok := schemes[name]; !ok {
						t.Errorf("%s: security scheme %q is not in components.securitySchemes", k, name)
					}
				}
			}
		}

		// Path parameters, from the path item and the operation.
		declared := map[string]bool{}
		var params []any
		if pi, ok := paths[path].(map[string]any); ok {
			if p, ok := pi["parameters"].([]any); ok {
				params = append(params, p...)
			}
		}
		if p, ok := op["parameters"].([]any); ok {
			params = append(params, p...)
		}
		for _, p := range params {
			pm := deref(doc, p)
			if pm == nil {
				t.Errorf("%s: a parameter is not an object", k)
				continue
			}
			if pm["in"] != "path" {
				continue
			}
			name, _ := pm["name"].(string)
			declared[name] = true
			if pm["required"] != true {
				t.Errorf("%s: path parameter %q must be required", k, name)
			}
		}
		inTemplate := map[string]bool{}
		for _, m := range templateParam.FindAllStringSubmatch(path, -1) {
			inTemplate[m[1]] = true
			if !declared[m[1]] {
				t.Errorf("%s: path parameter {%s} is not declared", k, m[1])
			}
		}
		for name := range declared {
			if !inTemplate[name] {
				t.Errorf("%s: declares path parameter %q that is not in the path", k, name)
			}
		}
	}
}

// TestOpenAPIServed checks that GET /api/openapi.json answers the embedded document.
func TestOpenAPIServed(t *testing.T) {
	s := newOpenAPITestServer(t, Options{Logger: slog.New(slog.DiscardHandler)})
	resp, err := s.App().Test(httptest.NewRequest(http.MethodGet, "/api/openapi.json", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status = %d; want 200", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q; want application/json", ct)
	}
	if !bytes.Equal(got, openapiDoc) {
		t.Errorf("the body (%d bytes) differs from the embedded document (%d bytes)", len(got), len(openapiDoc))
	}
}

// TestOpenAPISecurityMatchesAuthentication checks that exactly the
// operations that require a bearer token say so: each documented operation
// is called without one, and the authentication middleware's 401
// ("unauthenticated", answered before any database query) must come back
// for the operations marked with the bearer scheme, and only for them.
func TestOpenAPISecurityMatchesAuthentication(t *testing.T) {
	s := newOpenAPITestServer(t, Options{Logger: slog.New(slog.DiscardHandler)})
	doc := loadOpenAPI(t)
	ops := openAPIOperations(t, doc)
	keys := make([]string, 0, len(ops))
	for k := range ops {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		method, path, _ := strings.Cut(k, " ")
		bearer := false
		if sec, ok := ops[k]["security"].([]any); ok {
			for _, req := range sec {
				if _, ok := req.(map[string]any)["bearer"]; ok {
					bearer = true
				}
			}
		} else if sec, ok := doc["security"].([]any); ok {
			for _, req := range sec {
				if _, ok := req.(map[string]any)["bearer"]; ok {
					bearer = true
				}
			}
		}
		target := templateParam.ReplaceAllString(path, "1")
		resp, err := s.App().Test(httptest.NewRequest(method, target, nil))
		if err != nil {
			t.Errorf("%s: %v", k, err)
			continue
		}
		var e errorBody
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		authenticated := resp.StatusCode == http.StatusUnauthorized && e.Code == "unauthenticated"
		switch {
		case bearer && !authenticated:
			t.Errorf("%s is documented with bearer security, but answers %d %q without a token", k, resp.StatusCode, e.Code)
		case !bearer && authenticated:
			t.Errorf("%s requires a bearer token, but the document does not say so", k)
		}
	}
}

// TestOpenAPISchemasMatchTypes checks that each documented schema has
// exactly the JSON fields of the Go type it describes, and (for answers)
// that every field the server always writes is required.
func TestOpenAPISchemasMatchTypes(t *testing.T) {
	doc := loadOpenAPI(t)
	schemas, _ := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, c := range []struct {
		schema string
		typ    any
		output bool // an answer: every field without omitempty is required
	}{
		{"Error", errorBody{}, true},
		{"User", bank.User{}, true},
		{"RegisterInput", bank.RegisterInput{}, false},
		{"LoginInput", bank.LoginInput{}, false},
		{"LoginResult", bank.LoginResult{}, true},
		{"Session", bank.Session{}, true},
		{"TwoFactorChallenge", bank.TwoFactorChallenge{}, true},
		{"VerifyInput", bank.VerifyInput{}, false},
		{"TwoFactorStatus", bank.TwoFactorStatus{}, true},
		{"TwoFactorSetup", bank.TwoFactorSetup{}, true},
		{"BackupCodes", bank.BackupCodes{}, true},
		{"AdminUserRow", bank.AdminUserRow{}, true},
		{"AuditRow", bank.AuditRow{}, true},
		{"AuditChainReport", bank.ChainReport{}, true},
		{"AuditHead", bank.AuditHead{}, true},
		{"Anchor", bank.Anchor{}, true},
		{"AnchorReport", bank.AnchorReport{}, true},
		{"TrialBalanceRow", bank.TrialBalanceRow{}, true},
		{"AccountType", bank.AccountType{}, true},
		{"Account", bank.Account{}, true},
		{"AccountInput", bank.AccountInput{}, false},
		{"AccountLookup", bank.AccountLookup{}, true},
		{"Transaction", bank.Transaction{}, true},
		{"TransferInput", bank.TransferInput{}, false},
		{"FundsInput", bank.FundsInput{}, false},
		{"ScheduledTransferInput", bank.ScheduledTransferInput{}, false},
		{"ScheduledTransfer", bank.ScheduledTransfer{}, true},
		{"ScheduledRun", bank.ScheduledRun{}, true},
		{"PublicConfig", bank.PublicConfig{}, true},
		{"MoneyRequest", bank.MoneyRequest{}, true},
		{"MoneyRequestInput", bank.MoneyRequestInput{}, false},
		{"UserSummary", bank.UserSummary{}, true},
		{"AdminSummary", bank.AdminSummary{}, true},
		{"CurrencyTotals", bank.CurrencyTotals{}, true},
		{"MonthPoint", bank.MonthPoint{}, true},
		{"Notification", bank.Notification{}, true},
		{"LiveNotification", Push{}, true},
		{"FXRate", bank.FXRate{}, true},
		{"FXQuote", bank.FXQuote{}, true},
		{"Approval", bank.Approval{}, true},
		{"ApprovalDecision", bank.ApprovalDecision{}, true},
		{"AccountInterest", bank.AccountInterest{}, true},
		{"AccountTypeRate", bank.AccountTypeRate{}, true},
		// Every request body: what it documents is what it takes (fields.go).
		{"PayeeInput", bank.PayeeInput{}, false},
		{"UserLimitInput", bank.LimitInput{}, false},
		{"UserStatusInput", userStatusInput{}, false},
		{"AssignRolesInput", assignRolesInput{}, false},
		{"PasswordResetInput", passwordResetInput{}, false},
		{"TwoFactorCodeInput", twoFactorCodeInput{}, false},
		{"TwoFactorDisableInput", twoFactorDisableInput{}, false},
		{"FXRateInput", bank.FXRateInput{}, false},
		{"FXQuoteInput", bank.FXQuoteInput{}, false},
		{"FXTransferInput", bank.FXTransferInput{}, false},
		{"Preferences", bank.Preferences{}, false},
		{"ReverseInput", bank.ReverseInput{}, false},
		{"RejectInput", bank.RejectInput{}, false},
		{"InterestRateInput", bank.InterestRateInput{}, false},
	} {
		sch, ok := schemas[c.schema].(map[string]any)
		if !ok {
			t.Errorf("components.schemas.%s is missing", c.schema)
			continue
		}
		props, _ := sch["properties"].(map[string]any)
		required := map[string]bool{}
		if req, ok := sch["required"].([]any); ok {
			for _, r := range req {
				name, _ := r.(string)
				required[name] = true
			}
		}
		fields := map[string]bool{}
		rt := reflect.TypeOf(c.typ)
		for i := range rt.NumField() {
			f := rt.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields[name] = true
			if _, ok := props[name]; !ok {
				t.Errorf("schema %s lacks the field %q of %s", c.schema, name, rt)
			}
			if c.output && !strings.Contains(opts, "omitempty") && !required[name] {
				t.Errorf("schema %s: field %q is always present in answers; list it in required", c.schema, name)
			}
		}
		for name := range props {
			if !fields[name] {
				t.Errorf("schema %s has the property %q, which %s does not have", c.schema, name, rt)
			}
		}
		for name := range required {
			if !fields[name] {
				t.Errorf("schema %s requires %q, which %s does not have", c.schema, name, rt)
			}
		}
	}
}

// TestOpenAPIRequestBodiesAreClosed: every request body's schema says that
// it takes no field it does not list (additionalProperties: false), as
// decode refuses them (fields.go), and lists user_id wherever the first
// app sends it.
func TestOpenAPIRequestBodiesAreClosed(t *testing.T) {
	doc := loadOpenAPI(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	seen := 0
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			body, ok := op.(map[string]any)["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			js, ok := body["content"].(map[string]any)["application/json"].(map[string]any)
			if !ok {
				// The OAuth endpoints' forms (/oauth/token, ...): RFC 6749
				// §3.1 has the server ignore parameters it does not know.
				continue
			}
			ref, _ := js["schema"].(map[string]any)["$ref"].(string)
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			sch, _ := schemas[name].(map[string]any)
			if closed, ok := sch["additionalProperties"].(bool); !ok || closed {
				t.Errorf("%s %s: schema %q does not say additionalProperties: false", method, path, name)
			}
			seen++
		}
	}
	if seen < 20 {
		t.Fatalf("only %d request bodies found", seen)
	}
	for _, name := range []string{"AccountInput", "TransferInput", "MoneyRequestInput"} {
		if _, ok := schemas[name].(map[string]any)["properties"].(map[string]any)["user_id"]; !ok {
			t.Errorf("%s does not list the first app's user_id", name)
		}
	}
}
