package bank

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Currencies and exchange (contract §8). An administrator sets the rate of
// a pair (set_fx_rate, migrations/functions/fx.sql); the inverse is derived.
// A customer asks for a quote (fx_quote): the rate and the converted amount
// (the amount x rate x (1 - the bank's spread, fx_spread_bps), to the cent,
// half even: fx_convert, the one rounding rule), fixed for QuoteTTL. The
// exchange itself is a posting (kind exchange, post_batch): the source
// account's DEBIT in its currency and the target's CREDIT in its own, the
// bank's fx_position accounts taking the other side in each, so each
// currency still sums to zero. A quote is used once.

// QuoteTTL is how long a quote's rate holds.
const QuoteTTL = 30 * time.Second

// DefaultFXSpreadBps is fx_spread_bps's default: 0.50 %.
const DefaultFXSpreadBps = 50

// Rate is an exchange rate: an exact decimal with up to 8 places, kept as
// its text ("1.08420000"), never a float. In JSON it is a number; inputs
// may be strings too.
type Rate string

var ratePattern = regexp.MustCompile(`^[0-9]{1,10}(\.[0-9]{1,8})?$`)

// MarshalJSON writes the rate as a JSON number.
func (r Rate) MarshalJSON() ([]byte, error) {
	if r == "" {
		return []byte("null"), nil
	}
	return []byte(r), nil
}

// UnmarshalJSON accepts a JSON number or a string holding one; it checks
// the form only (see parseRate).
func (r *Rate) UnmarshalJSON(b []byte) error {
	*r = Rate(strings.Trim(string(b), `"`))
	return nil
}

// Scan reads numeric text from the database.
func (r *Rate) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		*r = Rate(v)
	case string:
		*r = Rate(v)
	case nil:
		*r = ""
	default:
		return fmt.Errorf("rate: cannot scan %T", src)
	}
	return nil
}

// parseRate checks a rate from a client: a positive decimal with at most
// 8 places.
func parseRate(r Rate) (Rate, error) {
	s := strings.TrimSpace(string(r))
	if !ratePattern.MatchString(s) || strings.Trim(strings.ReplaceAll(s, ".", ""), "0") == "" {
		return "", errs.Field("rate", "rate must be a positive number with at most 8 decimals, like 1.08420000")
	}
	return Rate(s), nil
}

// FXRateInput is the body of PUT /api/admin/fx-rates/{base}/{quote}.
type FXRateInput struct {
	Rate Rate `json:"rate"`
}

// FXRate is the rate of a pair as an administrator set it.
type FXRate struct {
	Base      string    `json:"base" db:"base"`
	Quote     string    `json:"quote" db:"quote"`
	Rate      Rate      `json:"rate" db:"rate"`
	UpdatedAt time.Time `json:"updated_at" db:"updated_at"`
}

var (
	errUnknownCurrency = errs.E(errs.NotFound, "currency_not_found", "The bank keeps no accounts in that currency")
	errSameCurrency    = errs.E(errs.Unprocessable, "same_currency", "Both accounts hold the same currency; send a transfer instead")
	errNoRate          = errs.E(errs.Unprocessable, "no_rate", "No exchange rate is set between these currencies")
	errAmountTooSmall  = errs.E(errs.Unprocessable, "amount_too_small", "The amount is too small to exchange: an exchange converts into at least 1.00")
	errQuoteNotFound   = errs.E(errs.NotFound, "quote_not_found", "Quote not found")
	errQuoteExpired    = errs.E(errs.Conflict, "quote_expired", "This quote has expired; ask for a new one")
	errQuoteUsed       = errs.E(errs.Conflict, "quote_used", "This quote was used already; ask for a new one")
)

// currencyPattern is an ISO 4217 code in the path.
var currencyPattern = regexp.MustCompile(`^[A-Za-z]{3}$`)

// SetFXRate sets the rate that converts base into quote (an exact decimal
// with up to 8 places), as an administrator or the CLI; the inverse pair is
// derived from it, never stored. Audited (FX_RATE).
//
// Returns admin_only (403), currency_not_found (404: a currency the bank
// keeps no accounts in), invalid_input (400: a bad rate) or same_currency
// (422).
func (s *Service) SetFXRate(ctx context.Context, a Actor, base, quote string, rate Rate) (FXRate, error) {
	if err := requireAdmin(a); err != nil {
		return FXRate{}, err
	}
	if !currencyPattern.MatchString(base) || !currencyPattern.MatchString(quote) {
		return FXRate{}, errUnknownCurrency
	}
	r, err := parseRate(rate)
	if err != nil {
		return FXRate{}, err
	}
	var out struct {
		Refused sql.NullString `db:"refused"`
		FXRate
	}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &out, `SELECT refused, base, quote, coalesce(rate::text, '') AS rate, coalesce(updated_at, now()) AS updated_at FROM set_fx_rate($1, $2, $3, $4::numeric)`,
			nullID(a.auditUserID()), base, quote, string(r))
	})
	if err != nil {
		return FXRate{}, errs.Wrap(err, "set rate")
	}
	switch out.Refused.String {
	case "":
		return out.FXRate, nil
	case "unknown_currency":
		return FXRate{}, errUnknownCurrency
	case "same_currency":
		return FXRate{}, errSameCurrency
	default:
		return FXRate{}, errs.Field("rate", "rate must be a positive number with at most 8 decimals, like 1.08420000")
	}
}

// FXRates lists the rates administrators set, by pair.
//
// Returns unauthenticated (401) when no user is signed in.
func (s *Service) FXRates(ctx context.Context, a Actor) ([]FXRate, error) {
	if a.UserID == 0 && !a.CLI {
		return nil, errs.ErrUnauthenticated
	}
	out := []FXRate{}
	err := s.reader(ctx).SelectContext(ctx, &out, `SELECT base, quote, rate::text AS rate, updated_at FROM fx_rates ORDER BY base, quote`)
	return out, errs.Wrap(err, "rates")
}

// FXQuoteInput is the body of POST /api/user/fx-quotes: amount in the
// source account's currency.
type FXQuoteInput struct {
	FromAccountID string       `json:"from_account_id"`
	ToAccountID   string       `json:"to_account_id"`
	Amount        money.Amount `json:"amount"`
}

// FXQuote is a rate fixed until ExpiresAt for one exchange of Amount into
// ConvertedAmount.
type FXQuote struct {
	ID              int64        `json:"id" db:"id"`
	FromCurrency    string       `json:"from_currency" db:"from_currency"`
	ToCurrency      string       `json:"to_currency" db:"to_currency"`
	Rate            Rate         `json:"rate" db:"rate"`
	Amount          money.Amount `json:"amount" db:"amount"`
	ConvertedAmount money.Amount `json:"converted_amount" db:"converted_amount"`
	ExpiresAt       time.Time    `json:"expires_at" db:"expires_at"`
}

// quoteRefusals are fx_quote's refusals.
var quoteRefusals = map[string]error{
	"account_not_found":  errs.ErrAccountNotFound,
	"same_account":       errSameAccount,
	"same_currency":      errSameCurrency,
	"account_closed":     errRecipientClosed,
	"recipient_inactive": errRecipientInactive,
	"no_rate":            errNoRate,
	"amount_too_small":   errAmountTooSmall,
}

// CreateFXQuote fixes, for QuoteTTL, the rate and the converted amount of
// an exchange of in.Amount from one of the actor's open accounts into an
// account in another currency (the actor's own, or any customer's, as in a
// transfer), the bank's spread (fx_spread_bps) taken against the customer.
//
// Returns customer_only (403), invalid_input (400), account_not_found
// (404), same_account, same_currency, account_closed, recipient_inactive,
// no_rate or amount_too_small (422).
func (s *Service) CreateFXQuote(ctx context.Context, a Actor, in FXQuoteInput) (FXQuote, error) {
	if err := requireCustomer(a); err != nil {
		return FXQuote{}, err
	}
	if err := s.checkMove(ctx, a, "from_account_id", &in.FromAccountID, &in.ToAccountID, in.Amount); err != nil {
		return FXQuote{}, err
	}
	var out struct {
		Refused sql.NullString `db:"refused"`
		FXQuote
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &out, `SELECT refused, coalesce(id, 0) AS id, coalesce(from_currency, '') AS from_currency,
			coalesce(to_currency, '') AS to_currency, coalesce(rate::text, '') AS rate, coalesce(amount, 0) AS amount,
			coalesce(converted_amount, 0) AS converted_amount, coalesce(expires_at, now()) AS expires_at
			FROM fx_quote($1, $2, $3, $4, $5, $6::interval)`,
			a.UserID, in.FromAccountID, in.ToAccountID, in.Amount, s.settings.FXSpreadBps, QuoteTTL.String())
	})
	if err != nil {
		return FXQuote{}, errs.Wrap(err, "quote")
	}
	if out.Refused.Valid {
		if e, ok := quoteRefusals[out.Refused.String]; ok {
			return FXQuote{}, e
		}
		return FXQuote{}, errs.Wrap(fmt.Errorf("%s", out.Refused.String), "quote refused")
	}
	return out.FXQuote, nil
}

// FXTransferInput is the body of POST /api/user/fx-transfers.
type FXTransferInput struct {
	QuoteID     int64  `json:"quote_id"`
	Description string `json:"description"`
}

// Exchange makes the exchange a quote of the actor's fixed, as one posting
// (postings.go, kind exchange): the source account's DEBIT and the
// target's CREDIT, each in its currency, against the bank's fx_position
// accounts; the quote is used up in the same transaction. Sending money to
// another customer counts against the actor's daily limit, in the source
// currency. The answer is stored under idempotencyKey (made when empty).
//
// Returns customer_only (403), invalid_input (400), quote_not_found (404),
// quote_expired or quote_used (409), account_closed, recipient_inactive,
// insufficient_funds or daily_limit_exceeded (422), user_deactivated (401),
// idempotency_key_reused (409), timeout or outcome_unknown (503).
func (s *Service) Exchange(ctx context.Context, a Actor, in FXTransferInput, idempotencyKey string) (TransferResult, error) {
	if err := requireCustomer(a); err != nil {
		return TransferResult{}, err
	}
	if in.QuoteID <= 0 {
		return TransferResult{}, errs.Field("quote_id", "quote_id must be the id of a quote (POST /api/user/fx-quotes)")
	}
	var err error
	if in.Description, err = cleanDescription(in.Description); err != nil {
		return TransferResult{}, err
	}
	key, err := checkKey(idempotencyKey)
	if err != nil {
		return TransferResult{}, err
	}
	out, err := s.postings.do(ctx, posting{kind: postExchange, actor: a.UserID, request: in.QuoteID, description: in.Description, key: key,
		hash: postingHash(postExchange, strconv.FormatInt(in.QuoteID, 10), in.Description), dated: ledgerDate(ctx)})
	if err != nil {
		return TransferResult{}, err
	}
	return transferResult(out, true)
}

// nullID is an id for SQL, NULL for 0.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// homeBalance reads a customer's home currency and the sum of their open
// accounts' balances converted into it at the current rates (to the cent,
// half even; NULL when a currency has no rate).
const homeBalance = `SELECT u.home_currency::text,
	CASE WHEN bool_and(a.id IS NULL OR fx_rate(a.currency, u.home_currency) IS NOT NULL)
		THEN round_half_even(coalesce(sum(a.balance * fx_rate(a.currency, u.home_currency)), 0), 2) END
	FROM users u LEFT JOIN accounts a ON a.user_id = u.id AND a.closed_at IS NULL AND a.class = 'customer'
	WHERE u.id = $1 GROUP BY u.home_currency`

// Preferences are a customer's choices: the currency their dashboard
// totals their money in.
type Preferences struct {
	HomeCurrency string `json:"home_currency" db:"home_currency"`
}

// UserPreferences returns the actor's preferences.
//
// Returns customer_only (403).
func (s *Service) UserPreferences(ctx context.Context, a Actor) (Preferences, error) {
	if err := requireCustomer(a); err != nil {
		return Preferences{}, err
	}
	var out Preferences
	err := s.db.GetContext(ctx, &out, `SELECT home_currency::text AS home_currency FROM users WHERE id = $1`, a.UserID)
	return out, errs.Wrap(err, "preferences")
}

// SetPreferences sets the actor's preferences: home_currency one the bank
// keeps accounts in.
//
// Returns customer_only (403) or invalid_input (400).
func (s *Service) SetPreferences(ctx context.Context, a Actor, in Preferences) (Preferences, error) {
	if err := requireCustomer(a); err != nil {
		return Preferences{}, err
	}
	cur := strings.ToUpper(strings.TrimSpace(in.HomeCurrency))
	var known bool
	if currencyPattern.MatchString(cur) {
		if err := s.db.GetContext(ctx, &known, `SELECT EXISTS (SELECT 1 FROM accounts WHERE class = 'vault' AND currency = $1)`, cur); err != nil {
			return Preferences{}, errs.Wrap(err, "currency")
		}
	}
	if !known {
		return Preferences{}, errs.Field("home_currency", "home_currency must be a currency the bank keeps accounts in: USD, EUR or GBP")
	}
	if _, err := s.execWrite(ctx, `UPDATE users SET home_currency = $2 WHERE id = $1`, a.UserID, cur); err != nil {
		return Preferences{}, errs.Wrap(err, "preferences")
	}
	return Preferences{HomeCurrency: cur}, nil
}
