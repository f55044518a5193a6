package loadtest

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/db"
	"meridian/pkg/money"
)

// InvariantOptions says what CheckInvariants compares against.
type InvariantOptions struct {
	// ExpectedTotal, when set, is what the sum of all balances must be
	// (transfers only move money, so it is the total before the load).
	ExpectedTotal *money.Amount
	// Committed are the transfers answered 201: each must be a DEBIT
	// 'transfer' row with the same accounts and amount, with its CREDIT row.
	Committed []Committed
	// ExactSince, when positive, also requires the converse: every DEBIT
	// transfer row with an id above it is one of Committed (no money moved
	// without a 201). Only meaningful when nothing else made transfers
	// since, and after Resolve.
	ExactSince int64
}

// Mismatch is an account whose balance differs from its ledger.
type Mismatch struct {
	AccountID     int64        `json:"account_id" db:"id"`
	AccountNumber string       `json:"account_number" db:"account_number"`
	Balance       money.Amount `json:"balance" db:"balance"`
	Ledger        money.Amount `json:"ledger" db:"ledger"`
}

// InvariantReport is what CheckInvariants found. OK is true when Problems
// is empty.
type InvariantReport struct {
	OK               bool          `json:"ok"`
	Problems         []string      `json:"problems,omitempty"`
	Accounts         int64         `json:"accounts"`
	LedgerRows       int64         `json:"ledger_rows"`
	TotalBalance     money.Amount  `json:"total_balance"`
	ExpectedTotal    *money.Amount `json:"expected_total,omitempty"`
	NegativeBalances int64         `json:"negative_balances"`
	Mismatches       []Mismatch    `json:"mismatches,omitempty"`
	MismatchCount    int           `json:"mismatch_count"`
	CommittedChecked int           `json:"committed_checked"`
	// MissingCommitted are ids answered 201 that are not in the ledger as
	// that transfer (or lack their CREDIT row).
	MissingCommitted []int64 `json:"missing_committed,omitempty"`
	// Unanswered are DEBIT transfer rows above ExactSince that no 201 told of.
	Unanswered []int64 `json:"unanswered,omitempty"`
}

// LedgerCheck is a rule of the books checked in CheckInvariants' snapshot.
// Query returns one text row per violation, naming it; none when the rule
// holds.
type LedgerCheck struct {
	Name  string
	Query string
}

// LedgerChecks are the rules of the books every invariant check runs, on
// top of the per-account ones. Double entry (contract §8): per currency,
// every account's balance, the bank's and the customers', sums to zero
// (the trial balance). Per currency, the customers' balances add up to the
// ledger totals' net (every balance comes from the ledger; the totals
// count the customers' rows, migrations/functions/ledger_totals_add.sql)
// and those totals count every customer's ledger row.
var LedgerChecks = []LedgerCheck{{
	Name: "trial balance",
	Query: `SELECT format('the books do not balance in %s: all accounts sum to %s, not 0', currency, sum(balance))
		FROM accounts GROUP BY currency HAVING sum(balance) <> 0 ORDER BY currency`,
}, {
	Name: "currency totals",
	Query: `
		WITH b AS (SELECT currency, sum(balance) AS balances FROM accounts WHERE class = 'customer' GROUP BY currency),
		l AS (SELECT currency, sum(net) AS net, sum(transactions) AS counted FROM ledger_totals GROUP BY currency),
		r AS (SELECT a.currency, count(*) AS rows FROM transactions t JOIN accounts a ON a.id = t.account_id
			WHERE a.class = 'customer' GROUP BY a.currency)
		SELECT format('currency %s: balances %s, ledger totals net %s; ledger rows %s, counted in the totals %s',
			COALESCE(b.currency, l.currency), COALESCE(b.balances, 0), COALESCE(l.net, 0), COALESCE(r.rows, 0), COALESCE(l.counted, 0))
		FROM b FULL JOIN l ON l.currency = b.currency LEFT JOIN r ON r.currency = COALESCE(b.currency, l.currency)
		WHERE COALESCE(b.balances, 0) <> COALESCE(l.net, 0) OR COALESCE(l.counted, 0) <> COALESCE(r.rows, 0)
		ORDER BY 1`,
}}

// CheckDSN opens dsn (pkg/db.Open) and runs CheckInvariants.
func CheckDSN(ctx context.Context, dsn string, o InvariantOptions) (*InvariantReport, error) {
	dbx, err := db.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer dbx.Close()
	return CheckInvariants(ctx, dbx, o)
}

const maxListed = 20

// CheckInvariants checks the bank's invariant in one consistent snapshot
// (a read-only REPEATABLE READ transaction): the total of balances is the
// expected one, no balance is negative, every balance equals its ledger
// (the view ledger_balances: credits minus debits), every committed
// transfer is in the ledger, and every rule of LedgerChecks holds.
func CheckInvariants(ctx context.Context, dbx *sqlx.DB, o InvariantOptions) (*InvariantReport, error) {
	tx, err := dbx.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("invariant check: %w", err)
	}
	defer tx.Rollback()
	r := &InvariantReport{ExpectedTotal: o.ExpectedTotal}
	problem := func(format string, args ...any) { r.Problems = append(r.Problems, fmt.Sprintf(format, args...)) }

	// The customers' accounts: what they hold, never below zero.
	if err := tx.QueryRowxContext(ctx, `SELECT count(*), COALESCE(sum(balance), 0), count(*) FILTER (WHERE balance < 0)
		FROM accounts WHERE class = 'customer'`).
		Scan(&r.Accounts, &r.TotalBalance, &r.NegativeBalances); err != nil {
		return nil, fmt.Errorf("invariant check: balances: %w", err)
	}
	if err := tx.GetContext(ctx, &r.LedgerRows, `SELECT count(*) FROM transactions`); err != nil {
		return nil, fmt.Errorf("invariant check: ledger: %w", err)
	}
	if o.ExpectedTotal != nil && r.TotalBalance != *o.ExpectedTotal {
		problem("the total of balances is %s, expected %s (difference %s)", r.TotalBalance, *o.ExpectedTotal, r.TotalBalance-*o.ExpectedTotal)
	}
	if r.NegativeBalances > 0 {
		problem("%d accounts have a negative balance", r.NegativeBalances)
	}

	var mism []Mismatch
	if err := tx.SelectContext(ctx, &mism, `
		SELECT a.id, a.account_number, a.balance, l.balance AS ledger
		FROM accounts a JOIN ledger_balances l ON l.account_id = a.id
		WHERE a.balance <> l.balance
		ORDER BY a.id`); err != nil {
		return nil, fmt.Errorf("invariant check: balance against ledger: %w", err)
	}
	r.MismatchCount = len(mism)
	if len(mism) > 0 {
		r.Mismatches = mism[:min(len(mism), maxListed)]
		problem("%d accounts' balances differ from their ledger (first: %s balance %s, ledger %s)", len(mism), mism[0].AccountNumber, mism[0].Balance, mism[0].Ledger)
	}

	if len(o.Committed) > 0 {
		found, err := matchCommitted(ctx, tx, o.Committed)
		if err != nil {
			return nil, err
		}
		r.CommittedChecked = len(o.Committed)
		for _, c := range o.Committed {
			if !found[c.ID] {
				r.MissingCommitted = append(r.MissingCommitted, c.ID)
			}
		}
		sort.Slice(r.MissingCommitted, func(i, j int) bool { return r.MissingCommitted[i] < r.MissingCommitted[j] })
		if n := len(r.MissingCommitted); n > 0 {
			problem("%d of %d transfers answered 201 are not in the ledger as answered (first id %d)", n, len(o.Committed), r.MissingCommitted[0])
			r.MissingCommitted = r.MissingCommitted[:min(n, maxListed)]
		}
	}

	for _, c := range LedgerChecks {
		var found []string
		if err := tx.SelectContext(ctx, &found, c.Query); err != nil {
			return nil, fmt.Errorf("invariant check: %s: %w", c.Name, err)
		}
		for _, f := range found {
			problem("%s: %s", c.Name, f)
		}
	}

	if o.ExactSince > 0 {
		var ids []int64
		if err := tx.SelectContext(ctx, &ids, `SELECT id FROM transactions WHERE id > $1 AND kind = 'transfer' AND transaction_type = 'DEBIT' ORDER BY id`, o.ExactSince); err != nil {
			return nil, fmt.Errorf("invariant check: transfers since %d: %w", o.ExactSince, err)
		}
		known := map[int64]bool{}
		for _, c := range o.Committed {
			known[c.ID] = true
		}
		for _, id := range ids {
			if !known[id] {
				r.Unanswered = append(r.Unanswered, id)
			}
		}
		if n := len(r.Unanswered); n > 0 {
			problem("%d transfers in the ledger were never answered 201 (first id %d)", n, r.Unanswered[0])
			r.Unanswered = r.Unanswered[:min(n, maxListed)]
		}
	}
	r.OK = len(r.Problems) == 0
	return r, nil
}

// matchCommitted returns which of the committed transfers are in the
// ledger as answered: a DEBIT 'transfer' row with that id, the same
// accounts and amount, and its CREDIT row.
func matchCommitted(ctx context.Context, tx *sqlx.Tx, committed []Committed) (map[int64]bool, error) {
	ids := make([]int64, len(committed))
	want := make(map[int64]Committed, len(committed))
	for i, c := range committed {
		ids[i] = c.ID
		want[c.ID] = c
	}
	// The DEBIT rows answered, then the CREDIT rows written at the same
	// instants: a transfer's two rows are written in one database
	// transaction, so they share accounts, amount and created_at (now()).
	// They are paired here, in memory: a correlated EXISTS per row is a
	// probe of the recipient's whole ledger each, far too slow.
	type row struct {
		ID        int64        `db:"id"`
		Account   int64        `db:"account_id"`
		FromID    int64        `db:"from_account_id"`
		ToID      int64        `db:"to_account_id"`
		Amount    money.Amount `db:"amount"`
		Created   time.Time    `db:"created_at"`
		From      string       `db:"from_number"`
		To        string       `db:"to_number"`
		Type      string       `db:"transaction_type"`
		Kind      string       `db:"kind"`
		HasCredit bool         `db:"-"`
	}
	var rows []row
	if err := tx.SelectContext(ctx, &rows, `
		SELECT t.id, t.account_id, t.from_account_id, t.to_account_id, t.amount, t.created_at, t.transaction_type, t.kind,
			fa.account_number AS from_number, ta.account_number AS to_number
		FROM transactions t JOIN accounts fa ON fa.id = t.from_account_id JOIN accounts ta ON ta.id = t.to_account_id
		WHERE t.id = ANY($1)`, pq.Array(ids)); err != nil {
		return nil, fmt.Errorf("invariant check: committed transfers: %w", err)
	}
	type pairKey struct {
		from, to int64
		amount   money.Amount
		at       int64
	}
	credits := map[pairKey]int{}
	if len(rows) > 0 {
		lo, hi := rows[0].Created, rows[0].Created
		for _, x := range rows {
			if x.Created.Before(lo) {
				lo = x.Created
			}
			if x.Created.After(hi) {
				hi = x.Created
			}
		}
		var cs []row
		if err := tx.SelectContext(ctx, &cs, `
			SELECT id, account_id, from_account_id, to_account_id, amount, created_at, transaction_type, kind, '' AS from_number, '' AS to_number
			FROM transactions WHERE kind = 'transfer' AND transaction_type = 'CREDIT' AND created_at BETWEEN $1 AND $2`, lo, hi); err != nil {
			return nil, fmt.Errorf("invariant check: credit rows: %w", err)
		}
		for _, c := range cs {
			if c.Account == c.ToID {
				credits[pairKey{c.FromID, c.ToID, c.Amount, c.Created.UnixMicro()}]++
			}
		}
	}
	for i, x := range rows {
		if x.Type != "DEBIT" {
			continue
		}
		k := pairKey{x.FromID, x.ToID, x.Amount, x.Created.UnixMicro()}
		if credits[k] > 0 {
			credits[k]--
			rows[i].HasCredit = true
		}
	}
	found := map[int64]bool{}
	for _, x := range rows {
		c := want[x.ID]
		if x.Type == "DEBIT" && x.Kind == "transfer" && x.Account == x.FromID &&
			x.From == c.From && x.To == c.To && x.Amount == c.Amount && x.HasCredit {
			found[x.ID] = true
		}
	}
	return found, nil
}
