// Package errs holds Meridian's domain errors. A service returns an *Error
// with a Kind (what went wrong, mapped to an HTTP status in one place in the
// server) and a stable Code (snake_case, for scripts). The Message is a
// sentence a person can read; it never carries SQL, driver or Go error text.
package errs

import (
	"errors"
	"fmt"
)

// Kind classifies an error. The server maps each kind to one HTTP status.
type Kind int

const (
	Internal      Kind = iota // 500: a bug or an outage; the cause is logged, never shown
	Invalid                   // 400: bad input
	Unauthorized              // 401: no valid session
	Forbidden                 // 403: wrong role, or a user_id that is not the caller
	NotFound                  // 404: missing, or someone else's
	Conflict                  // 409: duplicate, or a state that moved on
	TooLarge                  // 413
	Unprocessable             // 422: a business rule refused it
	RateLimited               // 429
	Unavailable               // 503: busy for now; the answer carries Retry-After
)

// Error is a domain error.
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Fields  map[string]string // per-field validation messages, optional
	Cause   error             // for logs only
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Message + ": " + e.Cause.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Cause }

// E builds an error of the given kind.
func E(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// Field builds a 400 for one input field.
func Field(field, message string) *Error {
	return &Error{Kind: Invalid, Code: "invalid_input", Message: message, Fields: map[string]string{field: message}}
}

// Wrap turns an unexpected error into an Internal one, keeping the cause for logs.
func Wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Kind: Internal, Code: "internal", Message: "Something went wrong on our side; please try again", Cause: fmt.Errorf(format+": %w", append(args, err)...)}
}

// As returns the *Error inside err, or an Internal one wrapping it.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Kind: Internal, Code: "internal", Message: "Something went wrong on our side; please try again", Cause: err}
}

// KindOf reports the kind of err (Internal for foreign errors).
func KindOf(err error) Kind { return As(err).Kind }

// Common errors shared by several services.
var (
	ErrUnauthenticated = E(Unauthorized, "unauthenticated", "Sign in to continue")
	ErrForbidden       = E(Forbidden, "forbidden", "You are not allowed to do this")
	ErrNotYourUser     = E(Forbidden, "forbidden", "user_id does not match the signed-in user")
	ErrAccountNotFound = E(NotFound, "account_not_found", "Account not found")
)
