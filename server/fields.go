package server

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"meridian/pkg/errs"
)

// A request body holds exactly the fields its operation defines (the input
// types in pkg/bank and the handlers' small structs, documented in
// openapi.json). A field it does not define is refused, whatever its value:
// the server cannot tell whether it agrees with the request ("currency":
// "USD" on a deposit to a USD account) or contradicts it ("currency": "EUR",
// "role": "Admin" at sign-up, a misspelt "ammount"), and a bank refuses
// rather than guesses (issue 20). The first app's extra fields are defined
// fields: user_id on accounts, transfers, money requests and scheduled
// transfers must be the caller's own (403 otherwise). A field given twice,
// in any letter case (encoding/json matches names without regard to case),
// is refused too: which of the two counts would be a guess.

// unmarshalFields decodes the JSON object body into v, refusing fields v
// does not define (400 unknown_field), fields given twice (400
// duplicate_field) and anything after the object (400 invalid_json). Other
// errors are encoding/json's, for decode to word.
func unmarshalFields(body []byte, v any) error {
	if name, ok := repeatedField(body); ok {
		return fieldError("duplicate_field", name, " is given twice; send it once")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if n, uerr := strconv.Unquote(name); uerr == nil {
				name = n
			}
			return fieldError("unknown_field", name, " is not a field of this request")
		}
		return err
	}
	if len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		return errs.E(errs.Invalid, "invalid_json", "The request body must be one JSON object")
	}
	return nil
}

// repeatedField returns the first top-level field of the object body whose
// name (letter case aside) came before. A body that is no object has none.
func repeatedField(body []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		name, ok := t.(string)
		if err != nil || !ok {
			return "", false
		}
		// Upper then lower: the folds encoding/json makes (K and the Kelvin sign, s and ſ) meet.
		folded := strings.ToLower(strings.ToUpper(name))
		if seen[folded] {
			return name, true
		}
		seen[folded] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// fieldError is a 400 naming the field, when its name is short, printable
// text (a client's field name is not echoed whole otherwise).
func fieldError(code, name, says string) error {
	if name == "" || len(name) > 64 || strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return errs.E(errs.Invalid, code, "The request body has a field this request does not take")
	}
	return &errs.Error{Kind: errs.Invalid, Code: code, Message: name + says, Fields: map[string]string{name: name + says}}
}
