package bank

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"meridian/pkg/errs"
)

// Page asks for one page of a newest-first list.
type Page struct {
	Limit  int
	Before string // opaque cursor from the previous page's next_cursor
}

const (
	defaultLimit = 100
	maxLimit     = 1000
)

// EncodeCursor makes an opaque cursor of a row id.
func EncodeCursor(id int64) *string {
	c := base64.RawURLEncoding.EncodeToString([]byte("id:" + strconv.FormatInt(id, 10)))
	return &c
}

// errLimit refuses a limit out of range.
var errLimit = errs.Field("limit", fmt.Sprintf("limit must be between 1 and %d", maxLimit))

// checkLimit returns limit, or the default for 0, or errLimit.
func checkLimit(limit int) (int, error) {
	if limit == 0 {
		limit = defaultLimit
	}
	if limit < 1 || limit > maxLimit {
		return 0, errLimit
	}
	return limit, nil
}

// decode returns the limit and the id to page before (0: from the newest).
func (p Page) decode() (int, int64, error) {
	limit, err := checkLimit(p.Limit)
	if err != nil {
		return 0, 0, err
	}
	if p.Before == "" {
		return limit, 0, nil
	}
	// Only the exact text EncodeCursor makes is a cursor: anything else
	// (not base64, another prefix, "+7", an id past bigint) is refused here.
	raw, err := base64.RawURLEncoding.DecodeString(p.Before)
	num, ok := strings.CutPrefix(string(raw), "id:")
	id, valid := parseID(num)
	if err != nil || !ok || !valid || *EncodeCursor(id) != p.Before {
		return 0, 0, errs.Field("before", "before is not a cursor this server gave out")
	}
	return limit, id, nil
}

// ParseLimit reads a limit query value ("" means the default).
func ParseLimit(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxLimit {
		return 0, errLimit
	}
	return n, nil
}

// nextPage cuts rows, read with LIMIT limit+1, to one page and returns the
// cursor of the next page (nil when this is the last one).
func nextPage[T any](rows []T, limit int, id func(T) int64) ([]T, *string) {
	if len(rows) <= limit {
		return rows, nil
	}
	rows = rows[:limit]
	return rows, EncodeCursor(id(rows[limit-1]))
}
