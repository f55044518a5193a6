package bank

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Transaction is one ledger row as the API shows it. AccountID is the
// sender's account number and ToAccountID the recipient's, on both the DEBIT
// and the CREDIT row of a transfer.
type Transaction struct {
	ID              int64        `json:"id" db:"id"`
	TransactionDate time.Time    `json:"transaction_date" db:"transaction_date"`
	TransactionType string       `json:"transaction_type" db:"transaction_type"`
	Amount          money.Amount `json:"amount" db:"amount"`
	AccountID       string       `json:"account_id" db:"account_id"`
	ToAccountID     string       `json:"to_account_id" db:"to_account_id"`
	Description     string       `json:"description" db:"description"`
}

// selectTransaction reads Transaction from the ledger t, with the account
// numbers of its internal from/to ids; callers add WHERE, ORDER BY, LIMIT.
const selectTransaction = `SELECT t.id, t.created_at AS transaction_date, t.transaction_type, t.amount,
	fa.account_number AS account_id, ta.account_number AS to_account_id, t.description
	FROM transactions t JOIN accounts fa ON fa.id = t.from_account_id JOIN accounts ta ON ta.id = t.to_account_id`

// TransferInput is the body of a transfer. AccountID and ToAccountID are
// account numbers.
type TransferInput struct {
	AccountID   string       `json:"account_id"`
	ToAccountID string       `json:"to_account_id"`
	Amount      money.Amount `json:"amount"`
	Description string       `json:"description"`
	UserID      *int64       `json:"user_id"`
}

// TransferResult is a transfer that went through: Body is the answer's JSON,
// {"message": "Transfer successful", "transaction": ...}, and Transaction the
// DEBIT row it holds. On a replay of an Idempotency-Key, Body is the stored
// first answer, byte for byte, Replayed is true and no money moved.
type TransferResult struct {
	Body        json.RawMessage
	Transaction Transaction
	Replayed    bool
}

// transferReply is the body of a successful transfer.
type transferReply struct {
	Message     string      `json:"message"`
	Transaction Transaction `json:"transaction"`
}

// IdempotencyWindow is how long an Idempotency-Key is remembered.
const IdempotencyWindow = 24 * time.Hour

var (
	errInsufficientFunds = errs.E(errs.Unprocessable, "insufficient_funds", "Insufficient funds")
	errSameAccount       = errs.E(errs.Unprocessable, "same_account", "The sending and receiving accounts must be different")
	errCurrencyMismatch  = errs.E(errs.Unprocessable, "currency_mismatch", "Both accounts must hold the same currency")
	errRecipientClosed   = errs.E(errs.Unprocessable, "account_closed", "The receiving account is closed")
	errRecipientInactive = errs.E(errs.Unprocessable, "recipient_inactive", "The receiving account's holder is deactivated")
	errKeyReused         = errs.E(errs.Conflict, "idempotency_key_reused", "Idempotency-Key was already used with a different request")
	errDailyLimit        = errs.E(errs.Unprocessable, "daily_limit_exceeded", "Daily transfer limit exceeded")
)

// requestHash fingerprints what a transfer asks for, to tell a replay of an
// Idempotency-Key from a different request under the same key.
func requestHash(in TransferInput) string {
	h := sha256.Sum256([]byte(in.AccountID + "|" + in.ToAccountID + "|" + strconv.FormatInt(int64(in.Amount), 10) + "|" + in.Description))
	return hex.EncodeToString(h[:])
}

// Transfer moves money from one of the actor's open accounts to another
// open account, in one database transaction (which it may share with other
// customers' transfers of the moment, transferbatch.go): both accounts are
// locked in id order, both balances and both ledger rows are written, the
// recipient is notified and the transfer is audited.
//
// With an idempotencyKey, the first successful answer is stored for 24
// hours in the same transaction; the same key with the same request answers
// it again (Replayed, nothing moves), with a different request 409. A
// refused transfer stores nothing: the key stays free for a retry.
//
// Returns customer_only (403), forbidden (403, a user_id not the caller's),
// invalid_input (a user_id, account number, amount, description or
// Idempotency-Key that breaks the input rules), account_not_found (404),
// same_account, account_closed, recipient_inactive, currency_mismatch,
// insufficient_funds, daily_limit_exceeded (422: a transfer to another
// customer would pass the sender's daily limit in its currency, limits.go),
// idempotency_key_reused (409) or user_deactivated (401, the sender was
// deactivated meanwhile).
func (s *Service) Transfer(ctx context.Context, a Actor, in TransferInput, idempotencyKey string) (TransferResult, error) {
	// The scheduler's keys (scheduledKey) are the bank's own: a customer who
	// took one first could make an occurrence of their series replay a
	// transfer of their choosing instead of running.
	if strings.HasPrefix(idempotencyKey, scheduledKeyPrefix) {
		return TransferResult{}, errs.Field("Idempotency-Key", "Idempotency-Key must not start with "+scheduledKeyPrefix)
	}
	call, err := s.checkTransfer(ctx, a, in, idempotencyKey)
	if err != nil {
		return TransferResult{}, err
	}
	// Queued with the other customers' transfers of the moment, and sent
	// with them in one transaction (transferbatch.go).
	return s.transfers.do(ctx, call)
}

// transferCall is a transfer whose input passed every check: what
// transfer_money is called with.
type transferCall struct {
	user int64
	in   TransferInput
	key  any // NULL: no Idempotency-Key
	hash string
	now  time.Time
	// dailyLimit is the configured default daily limit; transfer_money
	// applies the sender's own limit when an admin set one.
	dailyLimit money.Amount
}

// checkTransfer runs the checks of Transfer that need no lock: the
// caller's role and user_id, the account numbers, the amount, the
// description and the Idempotency-Key. The scheduler (scheduled.go) runs
// them too, so a scheduled run is checked exactly as a transfer is.
func (s *Service) checkTransfer(ctx context.Context, a Actor, in TransferInput, idempotencyKey string) (transferCall, error) {
	if err := requireCustomer(a); err != nil {
		return transferCall{}, err
	}
	if err := checkUserID(a, in.UserID); err != nil {
		return transferCall{}, err
	}
	var err error
	if in.AccountID, err = cleanAccountRef("account_id", in.AccountID, true); err != nil {
		return transferCall{}, err
	}
	if in.ToAccountID, err = cleanAccountRef("to_account_id", in.ToAccountID, true); err != nil {
		return transferCall{}, err
	}
	if err := s.checkAmount(ctx, a, "amount", in.Amount, in.AccountID); err != nil {
		return transferCall{}, err
	}
	if in.Description, err = cleanDescription(in.Description); err != nil {
		return transferCall{}, err
	}
	if err := checkText("Idempotency-Key", idempotencyKey, MaxIdempotencyKeyLen, false); err != nil {
		return transferCall{}, err
	}
	call := transferCall{user: a.UserID, in: in, hash: requestHash(in), now: s.now(), dailyLimit: s.settings.DailyTransferLimit}
	if idempotencyKey != "" {
		call.key = idempotencyKey
	}
	return call, nil
}

// run sends the transfer on q: the pool (its own transaction) or a
// transaction of the caller's (the scheduler's, so the transfer and its
// run row commit together).
//
// One statement, one round trip: transfer_money, the batch function of
// migrations/0016 with one entry, locks both accounts in id order, reads the
// key, checks (the daily limit last, spend_daily_limit), moves the money,
// writes both ledger rows, the notification and the audit row, and stores
// the answer. Transfer sends its calls in batches instead (transferbatch.go).
func (c transferCall) run(ctx context.Context, q sqlx.QueryerContext) (TransferResult, error) {
	var r transferRow
	err := q.QueryRowxContext(ctx, `SELECT replayed, body, refused FROM transfer_money($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		c.user, c.in.AccountID, c.in.ToAccountID, c.in.Amount, c.in.Description, c.key, c.hash, c.now, IdempotencyWindow.String(), ledgerDate(ctx),
		c.dailyLimit).
		Scan(&r.replayed, &r.body, &r.refused)
	if err != nil {
		return TransferResult{}, backstop(err)
	}
	return r.answer()
}

// transferRow is transfer_money's answer to one transfer, as it came.
type transferRow struct {
	replayed      bool
	body, refused sql.NullString
}

// answer reads a transferRow: the transfer's result, or its refusal as the
// error the API answers.
func (r transferRow) answer() (TransferResult, error) {
	if r.refused.Valid {
		if e, ok := refusals[r.refused.String]; ok {
			return TransferResult{}, e
		}
		return TransferResult{}, errs.Wrap(errors.New(r.refused.String), "transfer refused")
	}
	out := TransferResult{Replayed: r.replayed, Body: json.RawMessage(r.body.String)}
	var reply transferReply
	if err := json.Unmarshal(out.Body, &reply); err != nil {
		return TransferResult{}, errs.Wrap(err, "transfer reply")
	}
	out.Transaction = reply.Transaction
	return out, nil
}

// refusals are the answers transfer_money refuses with, by their code.
var refusals = map[string]error{
	"account_not_found":      errs.ErrAccountNotFound,
	"same_account":           errSameAccount,
	"account_closed":         errRecipientClosed,
	"recipient_inactive":     errRecipientInactive,
	"currency_mismatch":      errCurrencyMismatch,
	"insufficient_funds":     errInsufficientFunds,
	"daily_limit_exceeded":   errDailyLimit,
	"idempotency_key_reused": errKeyReused,
	"user_deactivated":       errs.E(errs.Unauthorized, "user_deactivated", "This user is deactivated"),
}

// backstop reads an error a money statement raised: the CHECK (balance >= 0)
// behind the funds test is insufficient funds too; a deadlock or
// serialization failure is left as it is, for retry.
func backstop(err error) error {
	var pe *pq.Error
	if errors.As(err, &pe) && pe.Code == "23514" && pe.Constraint == "accounts_balance_check" {
		return errInsufficientFunds
	}
	if retryable(err) {
		return err
	}
	return errs.Wrap(err, "transfer")
}

// purgeIdempotencyKeys forgets keys older than the window.
func (s *Service) purgeIdempotencyKeys(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_at < $1`, s.now().Add(-IdempotencyWindow))
	if err != nil {
		return 0, errs.Wrap(err, "purge idempotency keys")
	}
	n, _ := res.RowsAffected()
	return n, nil
}
