package server

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/gofiber/fiber/v3"
	"github.com/lib/pq"

	"meridian/pkg/bank"
	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// errorBody is the one shape of every error answer.
type errorBody struct {
	Error  string            `json:"error"`
	Code   string            `json:"code"`
	Fields map[string]string `json:"fields,omitempty"`
}

// statusOf maps a domain error kind to its HTTP status. This is the only place that does.
var statusOf = map[errs.Kind]int{
	errs.Internal:      fiber.StatusInternalServerError,
	errs.Invalid:       fiber.StatusBadRequest,
	errs.Unauthorized:  fiber.StatusUnauthorized,
	errs.Forbidden:     fiber.StatusForbidden,
	errs.NotFound:      fiber.StatusNotFound,
	errs.Conflict:      fiber.StatusConflict,
	errs.TooLarge:      fiber.StatusRequestEntityTooLarge,
	errs.Unprocessable: fiber.StatusUnprocessableEntity,
	errs.RateLimited:   fiber.StatusTooManyRequests,
	errs.Unavailable:   fiber.StatusServiceUnavailable,
}

// fiberErrors gives Fiber's own errors (unknown route, body too large, ...) the same shape.
var fiberErrors = map[int]*errs.Error{
	fiber.StatusNotFound:                    errs.E(errs.NotFound, "not_found", "Not found"),
	fiber.StatusMethodNotAllowed:            errs.E(errs.NotFound, "method_not_allowed", "This method is not allowed here"),
	fiber.StatusRequestEntityTooLarge:       errs.E(errs.TooLarge, "body_too_large", "The request body is larger than 1 MiB"),
	fiber.StatusBadRequest:                  errs.E(errs.Invalid, "bad_request", "The request could not be read"),
	fiber.StatusRequestHeaderFieldsTooLarge: errs.E(errs.Invalid, "headers_too_large", "The request headers are too large"),
	fiber.StatusUnsupportedMediaType:        errs.E(errs.Invalid, "unsupported_encoding", "The request body's Content-Encoding is not supported; send it plain, gzip or deflate"),
}

// handleError writes err as JSON. Internal errors are logged with their cause
// and answered with a generic sentence.
func (s *Server) handleError(c fiber.Ctx, err error) error {
	var fe *fiber.Error
	var e *errs.Error
	status := 0
	switch {
	case errors.As(err, &fe):
		status = fe.Code
		if known, ok := fiberErrors[fe.Code]; ok {
			e = known
		} else if fe.Code >= 400 && fe.Code < 500 {
			e = errs.E(errs.Invalid, "bad_request", "The request could not be processed")
		} else {
			e = errs.As(err)
		}
	default:
		e = errs.As(err)
	}
	if status == 0 || status >= 500 {
		status = statusOf[e.Kind]
	}
	if e.Kind == errs.Unavailable {
		// The service's own answer, which knows what happened: timeout
		// (nothing changed), outcome_unknown (it could not learn whether a
		// write committed: the key to ask again with), busy, ... The
		// sentence is for the client, who tries again shortly.
		if key := bank.OutcomeKey(err); key != "" {
			c.Set(headerIdempotencyKey, key)
		}
		if e.Code == "outcome_unknown" {
			s.log.Error("a write's outcome is unknown", "request_id", c.Locals(localRequestID), "path", c.Path(), "err", err)
		}
		c.Set(fiber.HeaderRetryAfter, "1")
		c.Set(fiber.HeaderCacheControl, "no-store")
		return c.Status(fiber.StatusServiceUnavailable).JSON(errorBody{Error: e.Message, Code: e.Code})
	}
	// Past request_timeout, any other failure is a statement cancelled
	// inside a transaction that then rolled back, or a read: nothing was
	// written (writes never cancel a statement that commits: pkg/bank tryTx,
	// execWrite and the postings).
	if status >= 500 && (timedOut(err) || errors.Is(c.Context().Err(), context.DeadlineExceeded)) {
		// Past request_timeout: the transaction was rolled back; the client may retry.
		s.log.Warn("request timed out", "request_id", c.Locals(localRequestID), "path", c.Path(), "err", err)
		c.Set(fiber.HeaderRetryAfter, "1")
		c.Set(fiber.HeaderCacheControl, "no-store")
		return c.Status(fiber.StatusServiceUnavailable).JSON(errorBody{Error: "The request took too long and was cancelled; nothing was changed. Please try again", Code: "timeout"})
	}
	if status == fiber.StatusInternalServerError && databaseUnavailable(err) {
		s.log.Warn("database unavailable", "request_id", c.Locals(localRequestID), "path", c.Path(), "err", err)
		c.Set(fiber.HeaderRetryAfter, "2")
		c.Set(fiber.HeaderCacheControl, "no-store")
		return c.Status(fiber.StatusServiceUnavailable).JSON(errorBody{Error: "The bank is briefly unavailable; please try again in a moment", Code: "database_unavailable"})
	}
	if status >= 500 {
		s.log.Error("request failed", "request_id", c.Locals(localRequestID), "method", c.Method(), "path", c.Path(), "err", err)
		e = errs.As(errors.New("internal")) // never show the cause
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Status(status).JSON(errorBody{Error: e.Message, Code: e.Code, Fields: e.Fields})
}

// timedOut reports whether err means the request ran out of time: its
// context's deadline, or PostgreSQL's statement_timeout (57014, also what
// a cancelled query reports) or lock_timeout (55P03).
func timedOut(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var pe *pq.Error
	return errors.As(err, &pe) && (pe.Code == "57014" || pe.Code == "55P03")
}

// databaseUnavailable reports whether err means the database could not be
// reached (down, restarting, connection lost), as opposed to a bug.
func databaseUnavailable(err error) bool {
	var pe *pq.Error
	if errors.As(err, &pe) {
		class := string(pe.Code)[:2]
		return class == "08" || class == "57" // connection exception, operator intervention (shutdown, starting up)
	}
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// decode reads a JSON object body into v, turning every way it can be wrong
// into a 400 a person can read.
func decode(c fiber.Ctx, v any) error {
	body, err := requestBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return errs.E(errs.Invalid, "invalid_json", "The request body must be a JSON object")
	}
	// encoding/json would quietly turn bytes that are not UTF-8 into U+FFFD.
	if !utf8.Valid(body) {
		return errs.E(errs.Invalid, "invalid_json", "The request body must be UTF-8 text")
	}
	err = unmarshalFields(body, v) // fields.go: a field v does not define, or one given twice, is a 400
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var field *errs.Error
	switch {
	case errors.Is(err, money.ErrNegative):
		return errs.E(errs.Invalid, "invalid_amount", "Amounts cannot be negative")
	case errors.Is(err, money.ErrFormat):
		return errs.E(errs.Invalid, "invalid_amount", "Amounts must be numbers with at most two decimals, like 12.50")
	case errors.As(err, &field):
		return field
	case errors.As(err, &syn):
		return errs.E(errs.Invalid, "invalid_json", "The request body is not valid JSON")
	case errors.As(err, &typ):
		if typ.Field == "" {
			return errs.E(errs.Invalid, "invalid_json", "The request body must be a JSON object")
		}
		return errs.Field(typ.Field, typ.Field+" has the wrong type; expected "+kindName(typ.Type.Kind().String()))
	}
	return errs.E(errs.Invalid, "invalid_json", "The request body is not valid JSON")
}

func kindName(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "a whole number"
	case k == "string":
		return "a string"
	case k == "bool":
		return "true or false"
	case k == "slice":
		return "a list"
	}
	return "a " + k
}
