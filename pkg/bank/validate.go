package bank

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"meridian/pkg/errs"
)

// What a client may send (contract §5). Every string that comes from a
// body, a query, a path or a header passes one of the checks below before
// any query runs, so bytes PostgreSQL refuses (a NUL, invalid UTF-8, an id
// past its column's range) answer 400 (404 for an id in a path), never 500.
// Text lengths count characters, as PostgreSQL's length() does; a password
// counts bytes, because bcrypt reads at most 72 of them.
const (
	MaxNameLen           = 100
	MaxEmailLen          = 254
	MaxPhoneLen          = 32
	MaxAccountNumberLen  = 34
	MaxDescriptionLen    = 255
	MaxIdempotencyKeyLen = 255
	MinPasswordLen       = 8
	MaxPasswordLen       = 72

	// MaxSmallint is the largest value of a smallint column (account_type_id).
	MaxSmallint = 1<<15 - 1
)

// checkText reports whether v is text a person could have typed: valid
// UTF-8 with no NUL and no other control character (tab and newline are
// allowed when multiline), at most max characters long.
func checkText(field, v string, max int, multiline bool) error {
	if err := checkChars(field, v, multiline); err != nil {
		return err
	}
	return checkLen(field, v, max)
}

func checkChars(field, v string, multiline bool) error {
	if !utf8.ValidString(v) {
		return errs.Field(field, field+" must be valid UTF-8 text")
	}
	for _, r := range v {
		if unicode.IsControl(r) && !(multiline && (r == '\t' || r == '\n')) {
			return errs.Field(field, field+" must not contain control characters")
		}
	}
	return nil
}

func checkLen(field, v string, max int) error {
	if utf8.RuneCountInString(v) > max {
		return errs.Field(field, fmt.Sprintf("%s must be at most %d characters", field, max))
	}
	return nil
}

// clean checks a one-line text input (checkText) and trims it; required
// refuses an empty one. The length counts after trimming.
func clean(field, v string, max int, required bool) (string, error) {
	if err := checkChars(field, v, false); err != nil {
		return "", err
	}
	v = strings.TrimSpace(v)
	if required && v == "" {
		return "", errs.Field(field, field+" is required")
	}
	return v, checkLen(field, v, max)
}

// cleanDescription checks and trims a free-text description: tabs and
// newlines may stand inside it, other control characters may not.
func cleanDescription(v string) (string, error) {
	if err := checkChars("description", v, true); err != nil {
		return "", err
	}
	v = strings.TrimSpace(v)
	return v, checkLen("description", v, MaxDescriptionLen)
}

// cleanAccountRef checks an account number a client refers to (a transfer's
// accounts, a lookup, a history filter). A well-formed number that does not
// exist is the caller's 404 to answer; this refuses what cannot be one.
func cleanAccountRef(field, v string, required bool) (string, error) {
	return clean(field, v, MaxAccountNumberLen, required)
}

// checkPassword enforces the rules of a new password: 8 to 72 bytes
// (bcrypt's limit: a longer one is refused, never silently cut) of text.
func checkPassword(field, p string) error {
	if err := checkPasswordInput(field, p); err != nil {
		return err
	}
	if len(p) < MinPasswordLen {
		return errs.Field(field, "Password must be at least 8 characters long")
	}
	return nil
}

// checkPasswordInput checks a password a client signs in with: text, at
// most 72 bytes. A shorter one than a new password needs is only wrong.
func checkPasswordInput(field, p string) error {
	if len(p) > MaxPasswordLen {
		return errs.Field(field, "Password must be at most 72 bytes long")
	}
	return checkText(field, p, MaxPasswordLen, false)
}

// checkLogin checks the email and password of a sign-in before any query.
func checkLogin(email *string, password string) error {
	e, err := clean("email", *email, MaxEmailLen, false)
	if err != nil {
		return err
	}
	*email = e
	if e == "" || password == "" {
		return errs.E(errs.Invalid, "invalid_input", "email and password are required")
	}
	return checkPasswordInput("password", password)
}

// checkAccountTypeID checks an account type id: a positive smallint.
func checkAccountTypeID(id int) error {
	if id == 0 {
		return errs.Field("account_type_id", "Account type is required")
	}
	if id < 0 || id > MaxSmallint {
		return errs.Field("account_type_id", "Unknown account type")
	}
	return nil
}

// ParseID reads an id sent as text (a query parameter, a CLI argument): a
// positive whole number within bigint's range, in plain digits. It answers
// 400 naming field.
func ParseID(field, v string) (int64, error) {
	id, ok := parseID(v)
	if !ok {
		return 0, errs.Field(field, field+" must be a positive whole number")
	}
	return id, nil
}

// ParsePathID reads an id from a URL path. Anything that cannot be an id
// names nothing: 404, as a missing row does.
func ParsePathID(v string) (int64, error) {
	id, ok := parseID(v)
	if !ok {
		return 0, errs.E(errs.NotFound, "not_found", "Not found")
	}
	return id, nil
}

func parseID(v string) (int64, bool) {
	if v == "" || len(v) > 19 {
		return 0, false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseInt(v, 10, 64)
	return id, err == nil && id > 0
}
