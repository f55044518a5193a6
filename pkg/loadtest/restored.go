package loadtest

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/money"
)

// RestoredOptions say what a database restored to a point in time must hold.
type RestoredOptions struct {
	// Target is the time the database was restored to.
	Target time.Time
	// Committed are the transfers answered 201 (Driver.Committed, after
	// Resolve): each carries when it was sent and answered.
	Committed []Committed
	// ExpectedTotal: as InvariantOptions'.
	ExpectedTotal *money.Amount
}

// RestoredReport is what CheckRestored found. OK when Problems is empty.
type RestoredReport struct {
	OK       bool     `json:"ok"`
	Problems []string `json:"problems,omitempty"`
	// Before are the transfers answered before Target (all must be there),
	// After those sent after it (none may be), Between the rest, whose
	// commit may fall on either side (BetweenPresent of them are there).
	Before         int `json:"before"`
	After          int `json:"after"`
	Between        int `json:"between"`
	BetweenPresent int `json:"between_present"`
	// PresentAfter are transfers sent after Target that are in the ledger.
	PresentAfter []int64 `json:"present_after,omitempty"`
	// BegunAfter counts ledger rows whose transaction began after Target.
	BegunAfter int64            `json:"begun_after"`
	Invariant  *InvariantReport `json:"invariant"`
}

// CheckRestored checks a database restored to o.Target, before anything
// else writes to it: every transfer answered 201 before the target is in
// the ledger as answered, no transfer sent after it is, no ledger row's
// transaction began after it, and the invariant of CheckInvariants holds
// (balances equal their ledger, LedgerChecks, the expected total).
func CheckRestored(ctx context.Context, dbx *sqlx.DB, o RestoredOptions) (*RestoredReport, error) {
	r := &RestoredReport{}
	var before, after, between []Committed
	for _, c := range o.Committed {
		switch {
		case c.Answered.Before(o.Target):
			before = append(before, c)
		case c.Sent.After(o.Target):
			after = append(after, c)
		default:
			between = append(between, c)
		}
	}
	r.Before, r.After, r.Between = len(before), len(after), len(between)
	inv, err := CheckInvariants(ctx, dbx, InvariantOptions{ExpectedTotal: o.ExpectedTotal, Committed: before})
	if err != nil {
		return nil, err
	}
	r.Invariant = inv
	r.Problems = append(r.Problems, inv.Problems...)

	tx, err := dbx.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("restore check: %w", err)
	}
	defer tx.Rollback()
	if len(after) > 0 {
		found, err := matchCommitted(ctx, tx, after)
		if err != nil {
			return nil, err
		}
		for _, c := range after {
			if found[c.ID] {
				r.PresentAfter = append(r.PresentAfter, c.ID)
			}
		}
		sort.Slice(r.PresentAfter, func(i, j int) bool { return r.PresentAfter[i] < r.PresentAfter[j] })
		if n := len(r.PresentAfter); n > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%d transfers sent after the restore target are in the ledger (first id %d)", n, r.PresentAfter[0]))
			r.PresentAfter = r.PresentAfter[:min(n, maxListed)]
		}
	}
	if len(between) > 0 {
		found, err := matchCommitted(ctx, tx, between)
		if err != nil {
			return nil, err
		}
		r.BetweenPresent = len(found)
	}
	if err := tx.GetContext(ctx, &r.BegunAfter, `SELECT count(*) FROM transactions WHERE created_at > $1`, o.Target); err != nil {
		return nil, fmt.Errorf("restore check: %w", err)
	}
	if r.BegunAfter > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%d ledger rows were written by transactions that began after the restore target", r.BegunAfter))
	}
	r.OK = len(r.Problems) == 0
	return r, nil
}
