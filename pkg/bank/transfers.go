package bank

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

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

// transactionColumns reads Transaction from the ledger t, with the account
// numbers of its internal from/to ids.
const transactionColumns = `t.id, t.created_at AS transaction_date, t.transaction_type, t.amount,
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

// TransferResult is the answer to a transfer, ready to send: Status (201)
// and Body, the JSON {"message": "Transfer successful", "transaction": ...}.
// On a replay of an Idempotency-Key, Status and Body are the stored first
// answer, byte for byte, Replayed is true and no money moved. Transaction is
// the DEBIT row (decoded from Body on a replay), for the CLI and tests.
type TransferResult struct {
	Status      int
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

const maxIdempotencyKey = 255

var (
	errInsufficientFunds = errs.E(errs.Unprocessable, "insufficient_funds", "Insufficient funds")
	errSameAccount       = errs.E(errs.Unprocessable, "same_account", "The sending and receiving accounts must be different")
	errCurrencyMismatch  = errs.E(errs.Unprocessable, "currency_mismatch", "Both accounts must hold the same currency")
	errRecipientClosed   = errs.E(errs.Unprocessable, "account_closed", "The receiving account is closed")
	errRecipientInactive = errs.E(errs.Unprocessable, "recipient_inactive", "The receiving account's holder is deactivated")
	errKeyReused         = errs.E(errs.Conflict, "idempotency_key_reused", "Idempotency-Key was already used with a different request")
)

// lockedAccount is an account locked for a payment, with its holder's state.
type lockedAccount struct {
	ID            int64        `db:"id"`
	UserID        int64        `db:"user_id"`
	AccountNumber string       `db:"account_number"`
	Currency      string       `db:"currency"`
	Balance       money.Amount `db:"balance"`
	Closed        bool         `db:"closed"`
	HolderName    string       `db:"full_name"`
	HolderActive  bool         `db:"is_active"`
}

const lockedAccountColumns = `a.id, a.user_id, a.account_number, a.currency, a.balance, a.closed_at IS NOT NULL AS closed, u.full_name, u.is_active
	FROM accounts a JOIN users u ON u.id = a.user_id`

// lockAccounts locks the accounts selected by where (with args) in the
// order of their ids, in one statement, so two payments that cross (A to B
// and B to A) wait for each other instead of deadlocking.
func lockAccounts(ctx context.Context, tx *sqlx.Tx, mode, where string, args ...any) ([]lockedAccount, error) {
	var rows []lockedAccount
	err := tx.SelectContext(ctx, &rows, `SELECT `+lockedAccountColumns+` WHERE `+where+` ORDER BY a.id FOR `+mode+` OF a`, args...)
	return rows, errs.Wrap(err, "lock accounts")
}

// pick returns the locked account with the given number or id.
func pick(rows []lockedAccount, match func(lockedAccount) bool) (lockedAccount, bool) {
	for _, r := range rows {
		if match(r) {
			return r, true
		}
	}
	return lockedAccount{}, false
}

// pay moves amount from one locked account to another: both balances and
// the DEBIT and CREDIT ledger rows. It returns the DEBIT row's id. A balance
// that would go negative is refused by the code and, as a backstop, by the
// database's CHECK (balance >= 0): both answer 422 Insufficient funds.
func pay(ctx context.Context, tx *sqlx.Tx, from, to lockedAccount, amount money.Amount, kind, desc string) (int64, error) {
	if from.Balance < amount {
		return 0, errInsufficientFunds
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance - $2 WHERE id = $1`, from.ID, amount); err != nil {
		if code, _ := pgCode(err); code == "23514" {
			return 0, errInsufficientFunds
		}
		return 0, errs.Wrap(err, "debit")
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + $2 WHERE id = $1`, to.ID, amount); err != nil {
		return 0, errs.Wrap(err, "credit")
	}
	debit, err := ledger(ctx, tx, from.ID, from.UserID, "DEBIT", kind, amount, from.ID, to.ID, desc)
	if err != nil {
		return 0, err
	}
	if _, err := ledger(ctx, tx, to.ID, to.UserID, "CREDIT", kind, amount, from.ID, to.ID, desc); err != nil {
		return 0, err
	}
	return debit, nil
}

func getTransaction(ctx context.Context, q sqlx.QueryerContext, id int64) (Transaction, error) {
	var t Transaction
	err := sqlx.GetContext(ctx, q, &t, `SELECT `+transactionColumns+` WHERE t.id = $1`, id)
	return t, errs.Wrap(err, "read transaction")
}

// requestHash fingerprints what a transfer asks for, to tell a replay of an
// Idempotency-Key from a different request under the same key.
func requestHash(in TransferInput) string {
	h := sha256.Sum256([]byte(in.AccountID + "|" + in.ToAccountID + "|" + strconv.FormatInt(int64(in.Amount), 10) + "|" + in.Description))
	return hex.EncodeToString(h[:])
}

// storedReply is a remembered answer to an Idempotency-Key.
type storedReply struct {
	Hash    string    `db:"request_hash"`
	Status  int       `db:"response_status"`
	Body    string    `db:"response_body"`
	Created time.Time `db:"created_at"`
}

// claimKey takes the actor's Idempotency-Key inside tx. The INSERT ... ON
// CONFLICT DO NOTHING makes identical requests racing with one key queue up
// on it: the first inserts, the others wait for it to commit and then find
// its row. It returns the stored reply to replay, or nil when this request
// is the key's first (or the stored one is older than the window).
func (s *Service) claimKey(ctx context.Context, tx *sqlx.Tx, a Actor, key, hash string) (*storedReply, error) {
	now := s.now()
	res, err := tx.ExecContext(ctx, `
		INSERT INTO idempotency_keys (user_id, key, request_hash, response_status, response_body, created_at)
		VALUES ($1, $2, $3, 0, 'null', $4) ON CONFLICT (user_id, key) DO NOTHING`, a.UserID, key, hash, now)
	if err != nil {
		return nil, errs.Wrap(err, "claim idempotency key")
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil, nil
	}
	var r storedReply
	err = tx.GetContext(ctx, &r, `SELECT request_hash, response_status, response_body::text AS response_body, created_at
		FROM idempotency_keys WHERE user_id = $1 AND key = $2 FOR UPDATE`, a.UserID, key)
	if err != nil {
		return nil, errs.Wrap(err, "read idempotency key")
	}
	if r.Created.Before(now.Add(-IdempotencyWindow)) {
		// Expired: this request takes the key over.
		_, err := tx.ExecContext(ctx, `UPDATE idempotency_keys SET request_hash = $3, response_status = 0, response_body = 'null', created_at = $4
			WHERE user_id = $1 AND key = $2`, a.UserID, key, hash, now)
		return nil, errs.Wrap(err, "renew idempotency key")
	}
	if r.Hash != hash {
		return nil, errKeyReused
	}
	return &r, nil
}

// Transfer moves money from one of the actor's open accounts to another
// open account, in one database transaction: both accounts are locked in id
// order, both balances and both ledger rows are written, the recipient is
// notified and the transfer is audited.
//
// With an idempotencyKey, the first successful answer is stored for 24
// hours in the same transaction; the same key with the same request answers
// it again (Replayed, nothing moves), with a different request 409. A
// refused transfer stores nothing: the key stays free for a retry.
func (s *Service) Transfer(ctx context.Context, a Actor, in TransferInput, idempotencyKey string) (TransferResult, error) {
	if err := requireCustomer(a); err != nil {
		return TransferResult{}, err
	}
	if err := checkUserID(a, in.UserID); err != nil {
		return TransferResult{}, err
	}
	in.AccountID = strings.TrimSpace(in.AccountID)
	in.ToAccountID = strings.TrimSpace(in.ToAccountID)
	if in.AccountID == "" {
		return TransferResult{}, errs.Field("account_id", "account_id is required")
	}
	if in.ToAccountID == "" {
		return TransferResult{}, errs.Field("to_account_id", "to_account_id is required")
	}
	if err := s.checkAmount(ctx, a, "amount", in.Amount, in.AccountID); err != nil {
		return TransferResult{}, err
	}
	var err error
	if in.Description, err = clean("description", in.Description, 255, false); err != nil {
		return TransferResult{}, err
	}
	if len(idempotencyKey) > maxIdempotencyKey {
		return TransferResult{}, errs.Field("Idempotency-Key", fmt.Sprintf("Idempotency-Key must be at most %d characters", maxIdempotencyKey))
	}
	hash := requestHash(in)

	var out TransferResult
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		out = TransferResult{}
		if idempotencyKey != "" {
			stored, err := s.claimKey(ctx, tx, a, idempotencyKey, hash)
			if err != nil {
				return err
			}
			if stored != nil {
				out.Status, out.Body, out.Replayed = stored.Status, json.RawMessage(stored.Body), true
				var reply transferReply
				if err := json.Unmarshal(out.Body, &reply); err != nil {
					return errs.Wrap(err, "stored reply")
				}
				out.Transaction = reply.Transaction
				return nil
			}
		}
		rows, err := lockAccounts(ctx, tx, "UPDATE", `a.account_number IN ($1, $2)`, in.AccountID, in.ToAccountID)
		if err != nil {
			return err
		}
		from, ok := pick(rows, func(r lockedAccount) bool { return r.AccountNumber == in.AccountID })
		if !ok || from.UserID != a.UserID || from.Closed {
			return errs.ErrAccountNotFound
		}
		if in.AccountID == in.ToAccountID {
			return errSameAccount
		}
		to, ok := pick(rows, func(r lockedAccount) bool { return r.AccountNumber == in.ToAccountID })
		if !ok {
			return errs.ErrAccountNotFound
		}
		if to.Closed {
			return errRecipientClosed
		}
		if !to.HolderActive {
			return errRecipientInactive
		}
		if from.Currency != to.Currency {
			return errCurrencyMismatch
		}
		debit, err := pay(ctx, tx, from, to, in.Amount, "transfer", in.Description)
		if err != nil {
			return err
		}
		if err := notify(ctx, tx, to.UserID, fmt.Sprintf("You received %s from account %s", money.Format(in.Amount, from.Currency), from.AccountNumber)); err != nil {
			return err
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: "TRANSFER", Table: "transactions", AccountNumber: from.AccountNumber,
			Description: fmt.Sprintf("Transferred %s from %s to %s (transaction %d)", money.Format(in.Amount, from.Currency), from.AccountNumber, to.AccountNumber, debit)}); err != nil {
			return err
		}
		if out.Transaction, err = getTransaction(ctx, tx, debit); err != nil {
			return err
		}
		body, err := json.Marshal(transferReply{Message: "Transfer successful", Transaction: out.Transaction})
		if err != nil {
			return errs.Wrap(err, "encode reply")
		}
		out.Status, out.Body = http.StatusCreated, body
		if idempotencyKey != "" {
			// Store the reply and answer the stored text, so a replay is byte for byte the same.
			var stored string
			if err := tx.GetContext(ctx, &stored, `UPDATE idempotency_keys SET response_status = $3, response_body = $4
				WHERE user_id = $1 AND key = $2 RETURNING response_body::text`, a.UserID, idempotencyKey, out.Status, string(body)); err != nil {
				return errs.Wrap(err, "store reply")
			}
			out.Body = json.RawMessage(stored)
		}
		return nil
	})
	if err != nil {
		return TransferResult{}, err
	}
	return out, nil
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
