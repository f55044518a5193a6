// Package money holds Meridian's exact amount type. An Amount counts cents in
// an int64: no float ever touches money. In JSON an amount is a number with at
// most two decimals (1250.5, 0.01); inputs may also be strings ("1250.50").
// In PostgreSQL it is numeric(20,2), read and written as decimal text.
package money

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Amount is a sum of money in cents.
type Amount int64

// DefaultMax is the largest amount accepted by default: 1,000,000,000.00.
const DefaultMax Amount = 1_000_000_000_00

// ErrFormat is returned for text that is not an amount with at most two decimals.
var ErrFormat = errors.New("an amount is a number with at most two decimals, like 12.50")

// Parse reads a non-negative decimal such as "12", "12.5" or "0.01".
// Signs, exponents, NaN, spaces and more than two decimals are refused.
func Parse(s string) (Amount, error) {
	if s == "" || len(s) > 24 {
		return 0, ErrFormat
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || !digits(whole) || (hasDot && (frac == "" || len(frac) > 2 || !digits(frac))) {
		return 0, ErrFormat
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > (1<<62)/100 {
		return 0, ErrFormat
	}
	cents := int64(0)
	if hasDot {
		for len(frac) < 2 {
			frac += "0"
		}
		cents, _ = strconv.ParseInt(frac, 10, 64)
	}
	return Amount(w*100 + cents), nil
}

// ParseSigned reads what PostgreSQL prints for numeric(20,2), which may be
// negative (sums, a trial balance): Parse with an optional leading minus.
func ParseSigned(s string) (Amount, error) {
	if strings.HasPrefix(s, "-") {
		a, err := Parse(s[1:])
		return -a, err
	}
	return Parse(s)
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// String prints the amount with exactly two decimals: "1250.50".
func (a Amount) String() string {
	sign := ""
	v := int64(a)
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// BaseCurrency is the currency the dashboards' top-level figures are in.
const BaseCurrency = "USD"

// symbols are the signs written before an amount, by ISO 4217 code.
var symbols = map[string]string{"USD": "$", "EUR": "€", "GBP": "£"}

// Format writes the amount in its currency for people to read, with thousands
// separators: "$1,250.50", "€12.50", "-$3.00". A currency without a known
// symbol is written after the number: "12.50 CHF". Every text that shows an
// amount (notifications, audit descriptions, error messages) goes through
// Format, so an amount never loses its currency.
func Format(a Amount, currency string) string {
	s := a.String()
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	number := b.String() + "." + frac
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if sym, ok := symbols[currency]; ok {
		return sign + sym + number
	}
	if currency == "" {
		return sign + number
	}
	return sign + number + " " + currency
}

// MarshalJSON writes a JSON number with at most two decimals and no trailing zeros.
func (a Amount) MarshalJSON() ([]byte, error) {
	s := a.String()
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	return []byte(s), nil
}

// UnmarshalJSON accepts a JSON number or a string holding one.
func (a *Amount) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return ErrFormat
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := Parse(s)
	if err != nil {
		if strings.HasPrefix(s, "-") {
			if _, err2 := Parse(s[1:]); err2 == nil {
				return ErrNegative
			}
		}
		return ErrFormat
	}
	*a = v
	return nil
}

// ErrNegative is returned for a negative amount in JSON input.
var ErrNegative = errors.New("an amount cannot be negative")

// Scan reads numeric text from PostgreSQL.
func (a *Amount) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		return a.scanText(string(v))
	case string:
		return a.scanText(v)
	case int64:
		*a = Amount(v * 100)
		return nil
	case nil:
		*a = 0
		return nil
	}
	return fmt.Errorf("money: cannot scan %T", src)
}

func (a *Amount) scanText(s string) error {
	v, err := ParseSigned(s)
	if err != nil {
		return fmt.Errorf("money: bad numeric %q", s)
	}
	*a = v
	return nil
}

// Value writes numeric text for PostgreSQL.
func (a Amount) Value() (driver.Value, error) { return a.String(), nil }
