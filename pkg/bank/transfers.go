package bank

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

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
	// In history rows (not in a posting's answer): the kind of posting
	// (transfer, request, deposit, withdrawal, opening, adjustment,
	// interest, exchange, reversal), the posting a reversal reverses, and
	// the reversal of a reversed one.
	Kind       string `json:"kind" db:"kind"`
	Reverses   *int64 `json:"reverses" db:"reverses"`
	ReversedBy *int64 `json:"reversed_by" db:"reversed_by"`
}

// selectTransaction reads Transaction from the ledger t, with the account
// numbers of its internal from/to ids; callers add WHERE, ORDER BY, LIMIT.
// A row written before double entry (migrations/0018) for money that came
// in or went out at the bank names the account itself at both ends: its
// other end is shown as the vault of its currency, as the row 0018 added
// there says, so a customer never sees her own account as the bank.
const selectTransaction = `SELECT t.id, t.created_at AS transaction_date, t.transaction_type, t.amount,
	CASE WHEN bv.id IS NOT NULL AND t.transaction_type = 'CREDIT' THEN bv.account_number ELSE fa.account_number END AS account_id,
	CASE WHEN bv.id IS NOT NULL AND t.transaction_type = 'DEBIT' THEN bv.account_number ELSE ta.account_number END AS to_account_id,
	t.description, t.kind, t.reverses,
	(SELECT r.posting_id FROM transactions r WHERE r.reverses = t.posting_id AND r.id = r.posting_id) AS reversed_by
	FROM transactions t JOIN accounts fa ON fa.id = t.from_account_id JOIN accounts ta ON ta.id = t.to_account_id
	LEFT JOIN accounts bv ON t.from_account_id = t.to_account_id AND bv.class = 'vault' AND bv.currency = fa.currency`

// TransferInput is the body of a transfer. AccountID and ToAccountID are
// account numbers.
type TransferInput struct {
	AccountID   string       `json:"account_id"`
	ToAccountID string       `json:"to_account_id"`
	Amount      money.Amount `json:"amount"`
	Description string       `json:"description"`
	UserID      *int64       `json:"user_id"`
}

// TransferResult is a transfer, deposit or withdrawal that went through:
// Body is the answer's JSON ({"message": "Transfer successful",
// "transaction": ...} for a transfer, the ledger row for a deposit or a
// withdrawal), stored under Key, and Transaction the ledger row it holds
// (a transfer's DEBIT). On a replay of the key, Body is the stored first
// answer, byte for byte, Replayed is true and no money moved.
type TransferResult struct {
	Posted
	Transaction Transaction
	// Approval, instead of the rest: an administrator's deposit or
	// withdrawal at or over the threshold waits for a second one.
	Approval *Approval
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
	return hashOf(in.AccountID + "|" + in.ToAccountID + "|" + strconv.FormatInt(int64(in.Amount), 10) + "|" + in.Description)
}

// postingHash fingerprints any other posting: its kind and what it names,
// so a key reused for another kind of posting is refused too.
func postingHash(kind string, parts ...string) string {
	return hashOf(kind + "|" + strings.Join(parts, "|"))
}

func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// Transfer moves money from one of the actor's open accounts to another
// open account, as one posting (postings.go), in one database transaction
// (which it may share with other customers' postings of the moment): both
// balances and both ledger rows are written, the recipient is notified and
// the transfer is audited.
//
// The answer is stored for 24 hours under idempotencyKey (one is made when
// it is empty: TransferResult.Key), in the same transaction; the same key
// with the same request answers it again (Replayed, nothing moves), with a
// different request 409. A refused transfer stores nothing: the key stays
// free for a retry.
//
// Returns customer_only (403), forbidden (403, a user_id not the caller's),
// invalid_input (a user_id, account number, amount, description or
// Idempotency-Key that breaks the input rules), account_not_found (404),
// same_account, account_closed, recipient_inactive, currency_mismatch,
// insufficient_funds, daily_limit_exceeded (422: a transfer to another
// customer would pass the sender's daily limit in its currency, limits.go),
// idempotency_key_reused (409), user_deactivated (401, the sender was
// deactivated meanwhile), timeout (503: its deadline passed before it could
// be made; nothing changed) or outcome_unknown (503: the database could not
// be reached to learn whether it committed; the key tells).
func (s *Service) Transfer(ctx context.Context, a Actor, in TransferInput, idempotencyKey string) (TransferResult, error) {
	key, err := checkKey(idempotencyKey)
	if err != nil {
		return TransferResult{}, err
	}
	if !a.MaySeeAccount(in.AccountID) { // a connected app pays only from the accounts it was given
		return TransferResult{}, errs.ErrAccountNotFound
	}
	p, err := s.checkTransfer(ctx, a, in, key)
	if err != nil {
		return TransferResult{}, err
	}
	// Queued with the other postings of the moment, and sent with them in
	// one transaction (postings.go).
	out, err := s.postings.do(ctx, p)
	if err != nil {
		return TransferResult{}, err
	}
	return transferResult(out, true)
}

// transferResult reads the ledger row out of a posting's answer: the
// "transaction" of a transfer's envelope (wrapped), else the body itself
// (a deposit's or a withdrawal's).
func transferResult(out Posted, wrapped bool) (TransferResult, error) {
	res := TransferResult{Posted: out}
	if !wrapped {
		return res, errs.Wrap(json.Unmarshal(out.Body, &res.Transaction), "posting reply")
	}
	var reply transferReply
	if err := json.Unmarshal(out.Body, &reply); err != nil {
		return TransferResult{}, errs.Wrap(err, "transfer reply")
	}
	res.Transaction = reply.Transaction
	return res, nil
}

// checkKey checks a client's Idempotency-Key, or makes one when it is
// empty. The scheduler's keys (scheduledKey) are the bank's own: a customer
// who took one first could make an occurrence of their series replay a
// transfer of their choosing instead of running.
func checkKey(key string) (string, error) {
	if err := checkText("Idempotency-Key", key, MaxIdempotencyKeyLen, false); err != nil {
		return "", err
	}
	if strings.HasPrefix(key, scheduledKeyPrefix) {
		return "", errs.Field("Idempotency-Key", "Idempotency-Key must not start with "+scheduledKeyPrefix)
	}
	if key == "" {
		key = newKey()
	}
	return key, nil
}

// checkTransfer runs the checks of Transfer that need no lock (the
// caller's role and user_id, the account numbers, the amount, the
// description) and returns the posting under key. The scheduler
// (scheduled.go) runs them too, with its own key, so a scheduled run is
// checked exactly as a transfer is.
func (s *Service) checkTransfer(ctx context.Context, a Actor, in TransferInput, key string) (posting, error) {
	if err := requireCustomer(a); err != nil {
		return posting{}, err
	}
	if err := checkUserID(a, in.UserID); err != nil {
		return posting{}, err
	}
	if err := s.checkMove(ctx, a, "account_id", &in.AccountID, &in.ToAccountID, in.Amount); err != nil {
		return posting{}, err
	}
	var err error
	if in.Description, err = cleanDescription(in.Description); err != nil {
		return posting{}, err
	}
	return posting{kind: postTransfer, actor: a.UserID, from: in.AccountID, to: in.ToAccountID, amount: in.Amount,
		description: in.Description, key: key, hash: requestHash(in), dated: ledgerDate(ctx)}, nil
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

// purgeIdempotencyKeys forgets keys older than the window (by the
// database's clock, which dates them).
func (s *Service) purgeIdempotencyKeys(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_at < now() - $1::interval`, IdempotencyWindow.String())
	if err != nil {
		return 0, errs.Wrap(err, "purge idempotency keys")
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// checkMove cleans the source account number (named fromField in the body)
// and the target's (to_account_id) of a movement, and checks its amount
// against the source's currency: a transfer's, an exchange's.
func (s *Service) checkMove(ctx context.Context, a Actor, fromField string, from, to *string, amount money.Amount) error {
	var err error
	if *from, err = cleanAccountRef(fromField, *from, true); err != nil {
		return err
	}
	if *to, err = cleanAccountRef("to_account_id", *to, true); err != nil {
		return err
	}
	return s.checkAmount(ctx, a, "amount", amount, *from)
}
