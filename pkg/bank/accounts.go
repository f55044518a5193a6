package bank

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Account is a customer's account; Name is the holder's full name.
type Account struct {
	ID            int64        `json:"id" db:"id"`
	Name          string       `json:"name" db:"name"`
	AccountNumber string       `json:"account_number" db:"account_number"`
	AccountTypeID int          `json:"account_type_id" db:"account_type_id"`
	TypeName      string       `json:"type_name" db:"type_name"`
	Balance       money.Amount `json:"balance" db:"balance"`
	Currency      string       `json:"currency" db:"currency"`
	CreatedAt     time.Time    `json:"created_at" db:"created_at"`
	UserID        int64        `json:"user_id" db:"user_id"`
}

// AccountType is a kind of account in one currency. LegacyID repeats ID as
// "ID" for the first app's clients, which read that name.
type AccountType struct {
	ID       int    `json:"id" db:"id"`
	LegacyID int    `json:"ID" db:"-"`
	TypeName string `json:"type_name" db:"type_name"`
	Currency string `json:"currency" db:"currency"`
	// InterestRate is the annual rate its accounts accrue, percent
	// (interest.go); 0: none.
	InterestRate Rate `json:"interest_rate" db:"interest_rate"`
}

// AccountInput is the body of account create and update.
type AccountInput struct {
	AccountNumber string       `json:"account_number"`
	Balance       money.Amount `json:"balance"`
	AccountTypeID int          `json:"account_type_id"`
	UserID        *int64       `json:"user_id"`
}

// selectAccount reads Account from accounts a, with its holder u and type t;
// callers add WHERE and ORDER BY.
const selectAccount = `SELECT a.id, u.full_name AS name, a.account_number, a.account_type_id, t.type_name, a.balance, a.currency, a.created_at, a.user_id
	FROM accounts a JOIN users u ON u.id = a.user_id JOIN account_types t ON t.id = a.account_type_id`

var accountNumberPattern = regexp.MustCompile(`^[A-Za-z0-9]{6,34}$`)

// AccountTypes lists the kinds of account a customer can open.
//
// Returns customer_only (403) for anyone but a customer.
func (s *Service) AccountTypes(ctx context.Context, a Actor) ([]AccountType, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	types := []AccountType{}
	if err := s.db.SelectContext(ctx, &types, `SELECT id, type_name, currency, trim_scale(interest_rate)::text AS interest_rate FROM account_types ORDER BY id`); err != nil {
		return nil, errs.Wrap(err, "account types")
	}
	for i := range types {
		types[i].LegacyID = types[i].ID
	}
	return types, nil
}

func (s *Service) validateAccount(ctx context.Context, q sqlx.QueryerContext, in *AccountInput) (AccountType, error) {
	in.AccountNumber = strings.TrimSpace(in.AccountNumber)
	if in.AccountNumber == "" {
		return AccountType{}, errs.Field("account_number", "Account number is required")
	}
	if !accountNumberPattern.MatchString(in.AccountNumber) {
		return AccountType{}, errs.Field("account_number", "Account number must be 6 to 34 letters or digits")
	}
	if in.Balance < 0 {
		return AccountType{}, errs.Field("balance", "Balance cannot be negative")
	}
	if err := checkAccountTypeID(in.AccountTypeID); err != nil {
		return AccountType{}, err
	}
	var t AccountType
	err := sqlx.GetContext(ctx, q, &t, `SELECT id, type_name, currency FROM account_types WHERE id = $1`, in.AccountTypeID)
	if notFound(err) {
		return t, errs.Field("account_type_id", "Unknown account type")
	}
	if err != nil {
		return t, errs.Wrap(err, "account type")
	}
	// Checked once the currency is known, so the message writes the limit in it.
	if in.Balance > s.settings.MaxAmount {
		return t, errs.Field("balance", fmt.Sprintf("Balance must not exceed %s", money.Format(s.settings.MaxAmount, t.Currency)))
	}
	return t, nil
}

var errNumberTaken = errs.E(errs.Conflict, "account_number_taken", "Account number already exists")

// claimAccountNumber records number as userID's for good, or refuses it with
// errNumberTaken when another customer has ever held it: an account number is
// never reissued, even after its account was renamed away or closed, except
// to its own holder. A holder never changes and rows are never deleted, so
// the insert (which waits for a concurrent claim of the same number to commit
// or roll back) and a fresh read of the holder are enough: of two customers
// claiming one new number at once, one wins.
func claimAccountNumber(ctx context.Context, tx *sqlx.Tx, number string, userID int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO account_numbers (account_number, user_id) VALUES ($1, $2)
		ON CONFLICT (account_number) DO NOTHING`, number, userID); err != nil {
		return errs.Wrap(err, "claim account number")
	}
	var holder int64
	if err := tx.GetContext(ctx, &holder, `SELECT user_id FROM account_numbers WHERE account_number = $1`, number); err != nil {
		return errs.Wrap(err, "account number holder")
	}
	if holder != userID {
		return errNumberTaken
	}
	return nil
}

// CreateAccount opens an account for the actor. A positive opening balance
// is written to the ledger as a CREDIT "Opening balance".
//
// Returns customer_only (403), forbidden (403, a user_id not the caller's),
// invalid_input (400), customer_funding_disabled (422: an opening balance
// other than 0 while customer_funding is off) and account_number_taken
// (409) when the number is in use, or was ever used by another customer.
func (s *Service) CreateAccount(ctx context.Context, a Actor, in AccountInput) (Account, error) {
	if err := requireCustomer(a); err != nil {
		return Account{}, err
	}
	if err := checkUserID(a, in.UserID); err != nil {
		return Account{}, err
	}
	var out Account
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		t, err := s.validateAccount(ctx, tx, &in)
		if err != nil {
			return err
		}
		if err := s.checkOpeningBalance(in.Balance); err != nil {
			return err
		}
		if err := claimAccountNumber(ctx, tx, in.AccountNumber, a.UserID); err != nil {
			return err
		}
		var id int64
		err = tx.GetContext(ctx, &id, `
			INSERT INTO accounts (user_id, account_number, account_type_id, currency)
			VALUES ($1, $2, $3, $4) RETURNING id`, a.UserID, in.AccountNumber, t.ID, t.Currency)
		if isUniqueViolation(err, "accounts_account_number_key") {
			return errNumberTaken
		}
		if err != nil {
			return errs.Wrap(err, "insert account")
		}
		// It opens at 0; the opening balance is a posting (its ledger row
		// and audit row), the only way a balance changes.
		if in.Balance > 0 {
			if _, err := madeInTx(s.postInTx(ctx, tx, posting{kind: postOpening, actor: a.UserID, to: in.AccountNumber, amount: in.Balance,
				description: "Opening balance", key: newKey(), hash: postingHash(postOpening, in.AccountNumber, in.Balance.String()), dated: ledgerDate(ctx)})); err != nil {
				return err
			}
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: "ACCOUNT_CREATE", Table: "accounts", AccountNumber: in.AccountNumber,
			Description: fmt.Sprintf("Opened %s account %s with %s", t.TypeName, in.AccountNumber, money.Format(in.Balance, t.Currency))}); err != nil {
			return err
		}
		return tx.GetContext(ctx, &out, selectAccount+` WHERE a.id = $1`, id)
	})
	return out, err
}

// ListAccounts returns the actor's open accounts. pathUserID, when given,
// must be the actor's own id.
//
// Returns customer_only (403), invalid_input (400, a user_id that is not a
// positive whole number) or forbidden (403, a user_id not the caller's).
func (s *Service) ListAccounts(ctx context.Context, a Actor, pathUserID *int64) ([]Account, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	if err := checkUserID(a, pathUserID); err != nil {
		return nil, err
	}
	out := []Account{}
	err := s.reader(ctx).SelectContext(ctx, &out, selectAccount+` WHERE a.user_id = $1 AND a.closed_at IS NULL ORDER BY a.id DESC`, a.UserID)
	// A connected app sees only the accounts its customer picked.
	out = slices.DeleteFunc(out, func(acc Account) bool { return !a.MaySeeAccount(acc.AccountNumber) })
	return out, errs.Wrap(err, "list accounts")
}

// AllAccounts returns every open account of every customer, as one snapshot.
//
// Returns admin_only (403) for a non-admin.
func (s *Service) AllAccounts(ctx context.Context, a Actor) ([]Account, error) {
	if err := requireAdmin(a); err != nil {
		return nil, err
	}
	out := []Account{}
	err := s.reader(ctx).SelectContext(ctx, &out, selectAccount+` WHERE a.closed_at IS NULL ORDER BY a.id DESC`)
	return out, errs.Wrap(err, "all accounts")
}

// lockOwnAccount locks one of the actor's open accounts by id; anything
// else (missing, closed, someone else's) is "Account not found".
func lockOwnAccount(ctx context.Context, tx *sqlx.Tx, a Actor, id int64) (Account, error) {
	var acc Account
	if id <= 0 {
		return acc, errs.ErrAccountNotFound
	}
	err := tx.GetContext(ctx, &acc, selectAccount+` WHERE a.id = $1 AND a.user_id = $2 AND a.closed_at IS NULL FOR UPDATE OF a`, id, a.UserID)
	if notFound(err) {
		return acc, errs.ErrAccountNotFound
	}
	return acc, errs.Wrap(err, "lock account")
}

// UpdateAccount changes an account's number, type or balance. A changed
// balance is written to the ledger as a "Balance adjustment", so the balance
// always equals the sum of its ledger rows. The currency cannot change. The
// old number stays the caller's: no other customer can take it later.
//
// Returns customer_only (403), forbidden (403, a user_id not the caller's),
// account_not_found (404), invalid_input (400), currency_change (422),
// customer_funding_disabled (422: a changed balance while customer_funding
// is off) and account_number_taken (409) when the new number is in use, or
// was ever used by another customer.
func (s *Service) UpdateAccount(ctx context.Context, a Actor, id int64, in AccountInput) (Account, error) {
	if err := requireCustomer(a); err != nil {
		return Account{}, err
	}
	if err := checkUserID(a, in.UserID); err != nil {
		return Account{}, err
	}
	var out Account
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		acc, err := lockOwnAccount(ctx, tx, a, id)
		if err != nil {
			return err
		}
		t, err := s.validateAccount(ctx, tx, &in)
		if err != nil {
			return err
		}
		if t.Currency != acc.Currency {
			return errs.E(errs.Unprocessable, "currency_change", "An account's currency cannot be changed; open a new account instead")
		}
		if err := s.checkBalanceEdit(acc.Balance, in.Balance); err != nil {
			return err
		}
		if in.AccountNumber != acc.AccountNumber {
			if err := claimAccountNumber(ctx, tx, in.AccountNumber, a.UserID); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE accounts SET account_number = $2, account_type_id = $3 WHERE id = $1`,
			id, in.AccountNumber, t.ID)
		if isUniqueViolation(err, "accounts_account_number_key") {
			return errNumberTaken
		}
		if err != nil {
			return errs.Wrap(err, "update account")
		}
		// A changed balance is a posting: its ledger row and audit row.
		if diff := in.Balance - acc.Balance; diff != 0 {
			p := posting{kind: postAdjustment, actor: a.UserID, amount: diff, description: "Balance adjustment", key: newKey(), dated: ledgerDate(ctx)}
			if diff > 0 {
				p.to = in.AccountNumber
			} else {
				p.from, p.amount = in.AccountNumber, -diff
			}
			p.hash = postingHash(postAdjustment, p.from, p.to, p.amount.String())
			if _, err := madeInTx(s.postInTx(ctx, tx, p)); err != nil {
				return err
			}
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: "ACCOUNT_UPDATE", Table: "accounts", AccountNumber: in.AccountNumber,
			Description: fmt.Sprintf("Updated account %s: number %s, type %s, balance %s -> %s", acc.AccountNumber, in.AccountNumber, t.TypeName,
				money.Format(acc.Balance, acc.Currency), money.Format(in.Balance, t.Currency))}); err != nil {
			return err
		}
		return tx.GetContext(ctx, &out, selectAccount+` WHERE a.id = $1`, id)
	})
	return out, err
}

// CloseAccount closes an account with a zero balance and no pending
// requests. Its history stays; a closed account can neither send nor receive.
//
// Returns customer_only (403), account_not_found (404: missing, closed or
// another customer's), balance_not_zero (422) or pending_requests (422).
func (s *Service) CloseAccount(ctx context.Context, a Actor, id int64) error {
	if err := requireCustomer(a); err != nil {
		return err
	}
	// What the account accrued is paid before it closes (interest.go): a
	// payment leaves a balance to move out first.
	var owns bool
	if err := s.db.GetContext(ctx, &owns, `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1 AND user_id = $2 AND closed_at IS NULL)`,
		id, a.UserID); err != nil {
		return errs.Wrap(err, "account")
	}
	if owns {
		if err := s.settleInterest(ctx, id); err != nil {
			return err
		}
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		acc, err := lockOwnAccount(ctx, tx, a, id)
		if err != nil {
			return err
		}
		if acc.Balance != 0 {
			return errs.E(errs.Unprocessable, "balance_not_zero", "Account balance must be zero to close it")
		}
		var pending int
		if err := tx.GetContext(ctx, &pending, `SELECT count(*) FROM money_requests
			WHERE status = 'PENDING' AND (requester_account_id = $1 OR recipient_account_id = $1)`, id); err != nil {
			return errs.Wrap(err, "pending requests")
		}
		if pending > 0 {
			return errs.E(errs.Unprocessable, "pending_requests", "Account has pending money requests; answer or wait for them before closing it")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE accounts SET closed_at = now() WHERE id = $1`, id); err != nil {
			return errs.Wrap(err, "close account")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "ACCOUNT_CLOSE", Table: "accounts", AccountNumber: acc.AccountNumber,
			Description: "Closed account " + acc.AccountNumber})
	})
}

// AccountLookup is what a customer may learn about another's account.
type AccountLookup struct {
	FullName      string `json:"full_name" db:"full_name"`
	AccountNumber string `json:"account_number" db:"account_number"`
}

// errTooManyLookups refuses an account lookup (or a new payee, which shows
// its holder's name too) over the per-user rate.
var errTooManyLookups = errs.E(errs.RateLimited, "too_many_lookups", "Too many account lookups; wait a minute and try again")

// allowLookup counts one lookup of a's against the per-user rate limit of
// account lookups (against enumeration).
//
// Returns too_many_lookups (429).
func (s *Service) allowLookup(a Actor) error {
	if !s.lookups.Allow(fmt.Sprint(a.UserID), s.now()) {
		return errTooManyLookups
	}
	return nil
}

// LookupAccount tells the holder's name of an open account number. It is
// rate limited per user, against enumeration. Returns customer_only (403),
// invalid_input (a number that is empty, over 34 characters or not text),
// too_many_lookups (429) or account_not_found (404, also for a closed one).
func (s *Service) LookupAccount(ctx context.Context, a Actor, number string) (AccountLookup, error) {
	if err := requireCustomer(a); err != nil {
		return AccountLookup{}, err
	}
	number, err := cleanAccountRef("account_number", number, true)
	if err != nil {
		return AccountLookup{}, err
	}
	if err := s.allowLookup(a); err != nil {
		return AccountLookup{}, err
	}
	var out AccountLookup
	err = s.db.GetContext(ctx, &out, `SELECT u.full_name, a.account_number FROM accounts a JOIN users u ON u.id = a.user_id
		WHERE a.account_number = $1 AND a.closed_at IS NULL`, number)
	if notFound(err) {
		return out, errs.ErrAccountNotFound
	}
	return out, errs.Wrap(err, "lookup")
}
