package bank

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

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
// the CLI): a CREDIT ledger row (description "Deposit" unless one is given),
// an audit row and a notification to the holder, in one transaction.
//
// Returns admin_only (403), account_not_found (404), invalid_input (400: an
// amount under 0.01 or over the maximum, a bad description), account_closed
// (422) or holder_not_customer (422: the holder was made an administrator,
// who holds no money).
func (s *Service) Deposit(ctx context.Context, a Actor, accountNumber string, in FundsInput) (Transaction, error) {
	return s.moveFunds(ctx, a, accountNumber, in, true)
}

// Withdraw debits an amount from any open account, as an administrator (or
// the CLI): a DEBIT ledger row (description "Withdrawal" unless one is
// given), an audit row and a notification to the holder, in one
// transaction. The balance never goes below 0.
//
// Returns admin_only (403), account_not_found (404), invalid_input (400),
// account_closed (422) or insufficient_funds (422).
func (s *Service) Withdraw(ctx context.Context, a Actor, accountNumber string, in FundsInput) (Transaction, error) {
	return s.moveFunds(ctx, a, accountNumber, in, false)
}

func (s *Service) moveFunds(ctx context.Context, a Actor, number string, in FundsInput, deposit bool) (Transaction, error) {
	if err := requireAdmin(a); err != nil {
		return Transaction{}, err
	}
	// The number comes from the path (or the command line): one that cannot
	// be an account names nothing.
	number, err := cleanAccountRef("account_number", number, true)
	if err != nil || !accountNumberPattern.MatchString(number) {
		return Transaction{}, errs.ErrAccountNotFound
	}
	if in.Amount <= 0 {
		return Transaction{}, errs.Field("amount", "Amount must be at least 0.01")
	}
	if in.Description, err = cleanDescription(in.Description); err != nil {
		return Transaction{}, err
	}
	typ, kind, action := "CREDIT", "deposit", "DEPOSIT"
	if !deposit {
		typ, kind, action = "DEBIT", "withdrawal", "WITHDRAWAL"
	}
	if in.Description == "" {
		in.Description = map[bool]string{true: "Deposit", false: "Withdrawal"}[deposit]
	}
	var out Transaction
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		rows, err := lockAccountByNumber(ctx, tx, forUpdate, number)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return errs.ErrAccountNotFound
		}
		acc := rows[0]
		if acc.Closed {
			return errAccountClosed
		}
		// Checked once the currency is known, so the message writes the limit in it.
		if in.Amount > s.settings.MaxAmount {
			return errs.Field("amount", fmt.Sprintf("Amount must not exceed %s", money.Format(s.settings.MaxAmount, acc.Currency)))
		}
		if deposit {
			// Read after the account's lock, in a statement of its own: a
			// promotion to Admin (which locks the accounts first) that
			// committed while this waited is seen.
			var role string
			if err := tx.GetContext(ctx, &role, `SELECT r.name FROM users u JOIN roles r ON r.id = u.role_id WHERE u.id = $1`, acc.UserID); err != nil {
				return errs.Wrap(err, "holder's role")
			}
			if role != RoleUser {
				return errHolderNotCustomer
			}
		} else if acc.Balance < in.Amount {
			return errInsufficientFunds
		}
		delta := in.Amount
		if !deposit {
			delta = -delta
		}
		if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + $2 WHERE id = $1`, acc.ID, delta); err != nil {
			return backstop(err) // CHECK (balance >= 0): insufficient funds
		}
		id, err := ledger(ctx, tx, acc.ID, acc.UserID, typ, kind, in.Amount, acc.ID, acc.ID, in.Description)
		if err != nil {
			return err
		}
		amount := money.Format(in.Amount, acc.Currency)
		message := fmt.Sprintf("%s was deposited into your account %s", amount, acc.AccountNumber)
		desc := fmt.Sprintf("Deposited %s into %s (transaction %d)", amount, acc.AccountNumber, id)
		if !deposit {
			message = fmt.Sprintf("%s was withdrawn from your account %s", amount, acc.AccountNumber)
			desc = fmt.Sprintf("Withdrew %s from %s (transaction %d)", amount, acc.AccountNumber, id)
		}
		if err := notify(ctx, tx, acc.UserID, message); err != nil {
			return err
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: action, Table: "transactions", AccountNumber: acc.AccountNumber, Description: desc}); err != nil {
			return err
		}
		return errs.Wrap(tx.GetContext(ctx, &out, selectTransaction+` WHERE t.id = $1`, id), "read the ledger row")
	})
	return out, err
}
