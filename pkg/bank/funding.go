package bank

import (
	"context"
	"fmt"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Where money comes from. With customer funding on (the default, the
// spec's behaviour) a customer opens an account with any balance and may
// edit it; every such change is a ledger row. With it off
// (Settings.DisableCustomerFunding) money enters and leaves only through an
// administrator's deposit or withdrawal: an account opens at 0 and its
// balance cannot be edited. Either way an administrator may deposit and
// withdraw, each a ledger row, an audit row and a notification to the
// holder, in one transaction.

var (
	errOpeningFundingDisabled = &errs.Error{Kind: errs.Unprocessable, Code: "customer_funding_disabled",
		Message: "Accounts open with a balance of 0; money comes in by transfer or a deposit at the bank",
		Fields:  map[string]string{"balance": "Accounts open with a balance of 0"}}
	errBalanceEditDisabled = &errs.Error{Kind: errs.Unprocessable, Code: "customer_funding_disabled",
		Message: "Balances cannot be edited; money comes in by transfer or a deposit at the bank",
		Fields:  map[string]string{"balance": "The balance cannot be edited"}}
	errAccountClosed     = errs.E(errs.Unprocessable, "account_closed", "This account is closed")
	errHolderNotCustomer = errs.E(errs.Unprocessable, "holder_not_customer", "This account's holder is an administrator; only a customer's account takes deposits")
)

// checkOpeningBalance enforces customer_funding on a new account.
func (s *Service) checkOpeningBalance(balance money.Amount) error {
	if s.settings.DisableCustomerFunding && balance != 0 {
		return errOpeningFundingDisabled
	}
	return nil
}

// checkBalanceEdit enforces customer_funding on an account's update: the
// balance may be sent, but only unchanged.
func (s *Service) checkBalanceEdit(old, new money.Amount) error {
	if s.settings.DisableCustomerFunding && old != new {
		return errBalanceEditDisabled
	}
	return nil
}

// FundsInput is the body of an administrator's deposit or withdrawal.
type FundsInput struct {
	Amount      money.Amount `json:"amount"`
	Description string       `json:"description"`
}

// Deposit credits an amount to any open account, as an administrator (or
// the CLI), as one posting (postings.go, post_batch): a CREDIT ledger row
// (description "Deposit" unless one is given), an audit row and a
// notification to the holder, in one transaction, the answer stored under
// idempotencyKey (made when empty).
//
// At or over the approval threshold it does not run: it answers the
// approval it made for a second administrator (TransferResult.Approval,
// approvals.go).
//
// Returns admin_only (403), account_not_found (404), invalid_input (400: an
// amount under 0.01 or over the maximum, a bad description or
// Idempotency-Key), account_closed (422), holder_not_customer (422: the
// holder was made an administrator, who holds no money),
// idempotency_key_reused (409), timeout or outcome_unknown (503, as
// Transfer).
func (s *Service) Deposit(ctx context.Context, a Actor, accountNumber string, in FundsInput, idempotencyKey string) (TransferResult, error) {
	return s.moveFunds(ctx, a, accountNumber, in, idempotencyKey, postDeposit)
}

// Withdraw debits an amount from any open account, as an administrator (or
// the CLI), as one posting: a DEBIT ledger row (description "Withdrawal"
// unless one is given), an audit row and a notification to the holder, in
// one transaction. The balance never goes below 0.
//
// Returns admin_only (403), account_not_found (404), invalid_input (400),
// account_closed (422), insufficient_funds (422), idempotency_key_reused
// (409), timeout or outcome_unknown (503).
func (s *Service) Withdraw(ctx context.Context, a Actor, accountNumber string, in FundsInput, idempotencyKey string) (TransferResult, error) {
	return s.moveFunds(ctx, a, accountNumber, in, idempotencyKey, postWithdrawal)
}

func (s *Service) moveFunds(ctx context.Context, a Actor, number string, in FundsInput, idempotencyKey, kind string) (TransferResult, error) {
	if err := requireAdmin(a); err != nil {
		return TransferResult{}, err
	}
	// The number comes from the path (or the command line): one that cannot
	// be an account names nothing.
	number, err := cleanAccountRef("account_number", number, true)
	if err != nil || !accountNumberPattern.MatchString(number) {
		return TransferResult{}, errs.ErrAccountNotFound
	}
	if in.Amount <= 0 {
		return TransferResult{}, errs.Field("amount", "Amount must be at least 0.01")
	}
	if in.Description, err = cleanDescription(in.Description); err != nil {
		return TransferResult{}, err
	}
	key, err := checkKey(idempotencyKey)
	if err != nil {
		return TransferResult{}, err
	}
	if in.Amount > s.settings.MaxAmount {
		// The message writes the limit in the account's currency.
		currency := money.BaseCurrency
		_ = s.db.GetContext(ctx, &currency, `SELECT currency FROM accounts WHERE account_number = $1`, number)
		return TransferResult{}, errs.Field("amount", fmt.Sprintf("Amount must not exceed %s", money.Format(s.settings.MaxAmount, currency)))
	}
	if s.needsApproval(in.Amount) {
		verb, prep := "Deposit", "into"
		if kind == postWithdrawal {
			verb, prep = "Withdraw", "from"
		}
		var currency string
		if err := s.db.GetContext(ctx, &currency, `SELECT currency FROM accounts WHERE account_number = $1 AND class = 'customer'`, number); err != nil {
			if notFound(err) {
				return TransferResult{}, errs.ErrAccountNotFound
			}
			return TransferResult{}, errs.Wrap(err, "account")
		}
		summary := fmt.Sprintf("%s %s %s account %s", verb, money.Format(in.Amount, currency), prep, number)
		if in.Description != "" {
			summary += ": " + in.Description
		}
		ap, err := s.requestApproval(ctx, a, kind, summary, approvalPayload{Account: number, Amount: in.Amount, Description: in.Description}, key)
		if err != nil {
			return TransferResult{}, err
		}
		return TransferResult{Approval: &ap}, nil
	}
	p := fundsPosting(a, number, in, key, kind)
	p.dated = ledgerDate(ctx)
	out, err := s.postings.do(ctx, p)
	if err != nil {
		return TransferResult{}, err
	}
	return transferResult(out, false)
}

// fundsPosting is an administrator's deposit or withdrawal as a posting.
func fundsPosting(a Actor, number string, in FundsInput, key, kind string) posting {
	p := posting{kind: kind, actor: a.auditUserID(), amount: in.Amount, description: in.Description, key: key}
	if kind == postDeposit {
		p.to = number
		if p.description == "" {
			p.description = "Deposit"
		}
	} else {
		p.from = number
		if p.description == "" {
			p.description = "Withdrawal"
		}
	}
	p.hash = postingHash(kind, number, in.Amount.String(), p.description)
	return p
}
