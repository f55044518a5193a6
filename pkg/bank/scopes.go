package bank

import (
	"slices"

	"meridian/pkg/errs"
)

// Scopes of the tokens programs hold (contract §9): a personal access token
// and a connected app's token reach exactly the calls of their scopes. A
// sign-in session has no scopes: it reaches what its user's role may.
const (
	ScopeAccountsRead     = "accounts:read"
	ScopeTransactionsRead = "transactions:read"
	ScopeTransfersWrite   = "transfers:write"
	ScopeAdminRead        = "admin:read"
	ScopeAdminWrite       = "admin:write"
)

// ScopeInfo is a scope and what it lets a program do, in the words the
// consent page and the Security page show.
type ScopeInfo struct {
	Scope       string `json:"scope"`
	Description string `json:"description"`
	Admin       bool   `json:"-"` // for administrators only
}

// Scopes lists every scope, customers' first.
var Scopes = []ScopeInfo{
	{ScopeAccountsRead, "See your accounts and their balances", false},
	{ScopeTransactionsRead, "See your transactions, money requests and statements", false},
	{ScopeTransfersWrite, "Send money and answer money requests from your accounts", false},
	{ScopeAdminRead, "See users, accounts and the audit log of the whole bank", true},
	{ScopeAdminWrite, "Change users, roles and limits, and move money in and out of accounts", true},
}

// Token kinds (auth_tokens.kind).
const (
	KindSession = "session"
	KindPAT     = "pat"
	KindOAuth   = "oauth"
)

// ErrInsufficientScope is the refusal of a call a token's scopes do not reach.
var ErrInsufficientScope = errs.E(errs.Forbidden, "insufficient_scope", "This token's scopes do not allow this call")

func scopeInfo(scope string) (ScopeInfo, bool) {
	for _, s := range Scopes {
		if s.Scope == scope {
			return s, true
		}
	}
	return ScopeInfo{}, false
}

// DescribeScopes returns the scopes with their descriptions, in the order
// of Scopes; unknown ones are left out.
func DescribeScopes(scopes []string) []ScopeInfo {
	out := []ScopeInfo{}
	for _, s := range Scopes {
		if slices.Contains(scopes, s.Scope) {
			out = append(out, s)
		}
	}
	return out
}

// checkScopes validates the scopes asked for a token of a user of role:
// at least one, each known, none twice, the admin scopes for administrators
// only, and (customers) only customers' scopes when customerOnly.
func checkScopes(field string, scopes []string, role string, customerOnly bool) ([]string, error) {
	if len(scopes) == 0 {
		return nil, errs.Field(field, field+" must name at least one scope")
	}
	out := []string{}
	for _, sc := range scopes {
		info, ok := scopeInfo(sc)
		if !ok {
			return nil, errs.Field(field, "Unknown scope "+quoteShort(sc))
		}
		if info.Admin && (customerOnly || role != RoleAdmin) {
			return nil, errs.E(errs.Forbidden, "scope_not_allowed", "The scope "+sc+" is for administrators only")
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	// Kept in the order of Scopes, so a list reads the same everywhere.
	slices.SortFunc(out, func(a, b string) int { return scopeIndex(a) - scopeIndex(b) })
	return out, nil
}

func scopeIndex(s string) int {
	return slices.IndexFunc(Scopes, func(i ScopeInfo) bool { return i.Scope == s })
}

func quoteShort(s string) string {
	r := []rune(s)
	if len(r) > 40 {
		r = r[:40]
	}
	return "\"" + string(r) + "\""
}

// Scoped reports whether the actor holds a token limited by scopes (a
// personal access token or a connected app's) rather than a session.
func (a Actor) Scoped() bool { return a.Kind == KindPAT || a.Kind == KindOAuth }

// RequireScope lets a session through, and a scoped token only when it
// holds scope. An empty scope is a call no scoped token reaches (its
// tokens, two-factor sign-in, sessions, the password).
//
// Returns insufficient_scope (403).
func (a Actor) RequireScope(scope string) error {
	if !a.Scoped() {
		return nil
	}
	if scope == "" || !slices.Contains(a.Scopes, scope) {
		return ErrInsufficientScope
	}
	return nil
}

// MaySeeAccount reports whether the actor's token reaches the account
// number: a connected app sees only the accounts its customer picked.
func (a Actor) MaySeeAccount(number string) bool {
	return a.Accounts == nil || slices.Contains(a.Accounts, number)
}
