package bank

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Corrections (contract §8). A posted transaction is never edited: an
// administrator reverses it with a new posting, every leg of the original
// the other way (kind reversal, post_batch), linked to it (each reversing
// row's reverses names the original posting; the original's reversed_by is
// that posting). A posting is reversed at most once; when a customer no
// longer holds what the reversal takes back, it is refused and nothing
// moves. Both parties are told; the reversal is audited (REVERSAL).

var (
	errTransactionNotFound   = errs.E(errs.NotFound, "transaction_not_found", "Transaction not found")
	errAlreadyReversed       = errs.E(errs.Conflict, "already_reversed", "This transaction was reversed already")
	errReversalNotReversible = errs.E(errs.Unprocessable, "reversal_not_reversible", "A reversal cannot itself be reversed; post a new transaction instead")
)

// ReverseInput is the body of POST /api/admin/transactions/{id}/reverse.
type ReverseInput struct {
	Reason string `json:"reason"`
}

// ReversalResult is a reversal that went through: Body is the answer's
// JSON, {"message": "Transaction reversed", "reverses": ..., "transaction":
// ...}, Transaction the reversing posting's first row (the original's
// first row, the other way), Reverses the original posting's id.
type ReversalResult struct {
	Posted
	Transaction Transaction
	Reverses    int64
	// Approval, instead of the rest: at or over the threshold the reversal
	// waits for a second administrator.
	Approval *Approval
}

// reversalPosting checks a reversal's input and returns its posting.
func (s *Service) reversalPosting(ctx context.Context, a Actor, id int64, in ReverseInput, key string) (posting, error) {
	if err := requireAdmin(a); err != nil {
		return posting{}, err
	}
	if id <= 0 {
		return posting{}, errTransactionNotFound
	}
	reason, err := cleanDescription(in.Reason)
	if err != nil {
		return posting{}, errs.Field("reason", strings.Replace(errs.As(err).Message, "description", "reason", 1))
	}
	if reason == "" {
		return posting{}, errs.Field("reason", "reason is required: a sentence saying why the transaction is reversed")
	}
	// The reason goes into the ledger rows' description after "Reversal of
	// transaction N: ".
	if len(reason) > MaxDescriptionLen-40 {
		return posting{}, errs.Field("reason", "reason must be at most 215 characters")
	}
	return posting{kind: postReversal, actor: a.auditUserID(), request: id, description: reason, key: key,
		hash: reversalHash(id, reason), dated: ledgerDate(ctx)}, nil
}

// reversalHash is what a reversal asks for, for its key.
func reversalHash(id int64, reason string) string {
	return postingHash(postReversal, strconv.FormatInt(id, 10), reason)
}

// ReverseTransaction reverses the posting ledger row id belongs to, as an
// administrator (or the CLI), with a reason: a new posting, every leg the
// other way, linked to the original, both parties told, audited. At or over
// the approval threshold (the largest amount a customer's leg moves) it
// does not run: it answers the approval it made for a second administrator.
// The answer is stored under idempotencyKey (made when empty).
//
// Returns admin_only (403), transaction_not_found (404), invalid_input
// (400: no reason), already_reversed (409), insufficient_funds (422: a
// customer no longer holds what it takes back), account_closed or
// reversal_not_reversible (422), idempotency_key_reused (409), timeout or
// outcome_unknown (503).
func (s *Service) ReverseTransaction(ctx context.Context, a Actor, id int64, in ReverseInput, idempotencyKey string) (ReversalResult, error) {
	key, err := checkKey(idempotencyKey)
	if err != nil {
		return ReversalResult{}, err
	}
	p, err := s.reversalPosting(ctx, a, id, in, key)
	if err != nil {
		return ReversalResult{}, err
	}
	amount, currency, err := s.reversalAmount(ctx, id)
	if err != nil {
		return ReversalResult{}, err
	}
	if currency == "" {
		return ReversalResult{}, errTransactionNotFound
	}
	if s.needsApproval(amount) {
		ap, err := s.requestApproval(ctx, a, approvalReversal,
			fmt.Sprintf("Reverse transaction %d (%s): %s", id, money.Format(amount, currency), p.description),
			approvalPayload{Transaction: id, Reason: p.description}, key)
		if err != nil {
			return ReversalResult{}, err
		}
		return ReversalResult{Approval: &ap}, nil
	}
	out, err := s.postings.do(ctx, p)
	if err != nil {
		return ReversalResult{}, err
	}
	return reversalResult(out)
}

// reversalResult reads a reversal's answer.
func reversalResult(out Posted) (ReversalResult, error) {
	var reply struct {
		Reverses    int64       `json:"reverses"`
		Transaction Transaction `json:"transaction"`
	}
	if err := json.Unmarshal(out.Body, &reply); err != nil {
		return ReversalResult{}, errs.Wrap(err, "reversal reply")
	}
	return ReversalResult{Posted: out, Transaction: reply.Transaction, Reverses: reply.Reverses}, nil
}

// reversalAmount is the largest amount a customer's leg of the posting row
// id belongs to moves, in that leg's own currency (for four eyes: the
// threshold is in the account's currency; an exchange's legs are in two):
// 0 when there is no such row.
func (s *Service) reversalAmount(ctx context.Context, id int64) (money.Amount, string, error) {
	var out struct {
		Amount   money.Amount `db:"amount"`
		Currency string       `db:"currency"`
	}
	err := s.db.GetContext(ctx, &out, `SELECT l.amount, a.currency
		FROM posting_legs($1) l JOIN accounts a ON a.id = l.account_id AND a.class = 'customer'
		ORDER BY l.amount DESC LIMIT 1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	return out.Amount, out.Currency, errs.Wrap(err, "reversal amount")
}
