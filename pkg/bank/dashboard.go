package bank

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/lib/pq"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// UserSummary is a customer's dashboard: their ledger rows, the requests
// waiting for their answer, and their payments out (transfers and paid
// requests) and in.
type UserSummary struct {
	TotalTransactions   int64        `json:"total_transactions" db:"total_transactions"`
	PendingRequests     int64        `json:"pending_requests" db:"pending_requests"`
	TotalTransfers      int64        `json:"total_transfers" db:"total_transfers"`
	TotalSentAmount     money.Amount `json:"total_sent_amount" db:"total_sent_amount"`
	TotalReceivedAmount money.Amount `json:"total_received_amount" db:"total_received_amount"`
}

// AdminSummary is the system-wide dashboard.
type AdminSummary struct {
	TotalBalance        money.Amount `json:"total_balance" db:"total_balance"`
	TotalUsers          int64        `json:"total_users" db:"total_users"`
	TotalTransactions   int64        `json:"total_transactions" db:"total_transactions"`
	PendingRequests     int64        `json:"pending_requests" db:"pending_requests"`
	TotalTransfers      int64        `json:"total_transfers" db:"total_transfers"`
	TotalSentAmount     money.Amount `json:"total_sent_amount" db:"total_sent_amount"`
	TotalReceivedAmount money.Amount `json:"total_received_amount" db:"total_received_amount"`
}

// MonthPoint is one month of a chart: Name is the short month ("Jan"),
// Total a JSON number (an amount of money, or a count of users).
type MonthPoint struct {
	Name  string      `json:"name"`
	Total json.Number `json:"total"`
}

// Amount reads Total as money (the user chart).
func (p MonthPoint) Amount() money.Amount {
	a, _ := money.Parse(p.Total.String())
	return a
}

// ledgerTotals aggregates ledger rows: all of them, and the DEBIT (sent) and
// CREDIT (received) rows of payments between customers.
const ledgerTotals = `count(*) AS total_transactions,
	count(*) FILTER (WHERE t.transaction_type = 'DEBIT' AND t.kind IN ('transfer', 'request')) AS total_transfers,
	COALESCE(sum(t.amount) FILTER (WHERE t.transaction_type = 'DEBIT' AND t.kind IN ('transfer', 'request')), 0) AS total_sent_amount,
	COALESCE(sum(t.amount) FILTER (WHERE t.transaction_type = 'CREDIT' AND t.kind IN ('transfer', 'request')), 0) AS total_received_amount`

// UserSummary returns the caller's dashboard figures.
func (s *Service) UserSummary(ctx context.Context, a Actor) (UserSummary, error) {
	if err := requireCustomer(a); err != nil {
		return UserSummary{}, err
	}
	var out UserSummary
	err := s.db.GetContext(ctx, &out, `SELECT `+ledgerTotals+`,
		(SELECT count(*) FROM money_requests r WHERE r.recipient_user_id = $1 AND r.status = 'PENDING' AND r.expires_at > $2) AS pending_requests
		FROM transactions t WHERE t.user_id = $1`, a.UserID, s.now())
	return out, errs.Wrap(err, "user summary")
}

// AdminSummary returns the system-wide dashboard figures.
func (s *Service) AdminSummary(ctx context.Context, a Actor) (AdminSummary, error) {
	if err := requireAdmin(a); err != nil {
		return AdminSummary{}, err
	}
	// The ledger figures come from the sharded totals the database keeps
	// (migrations/0002): 64 rows instead of a scan of the whole ledger. The
	// sum of all balances equals the ledger's CREDIT - DEBIT.
	var out AdminSummary
	err := s.db.GetContext(ctx, &out, `SELECT sum(l.transactions) AS total_transactions, sum(l.transfers) AS total_transfers,
		sum(l.sent) AS total_sent_amount, sum(l.received) AS total_received_amount, sum(l.net) AS total_balance,
		(SELECT count(*) FROM users) AS total_users,
		(SELECT count(*) FROM money_requests r WHERE r.status = 'PENDING' AND r.expires_at > $1) AS pending_requests
		FROM ledger_totals l`, s.now())
	return out, errs.Wrap(err, "admin summary")
}

// months returns the first instants (UTC) of the 12 months ending with the
// current one, oldest first, and the start of the next month.
func (s *Service) months() ([]time.Time, time.Time) {
	now := s.now().UTC()
	cur := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	out := make([]time.Time, 12)
	for i := range out {
		out[i] = cur.AddDate(0, i-11, 0)
	}
	return out, cur.AddDate(0, 1, 0)
}

type monthTotal struct {
	Month string `db:"month"` // YYYY-MM
	Total string `db:"total"` // numeric text
}

func chart(starts []time.Time, rows []monthTotal) []MonthPoint {
	byMonth := map[string]string{}
	for _, r := range rows {
		byMonth[r.Month] = r.Total
	}
	out := make([]MonthPoint, len(starts))
	for i, m := range starts {
		total := "0"
		if v, ok := byMonth[m.Format("2006-01")]; ok {
			total = v
		}
		out[i] = MonthPoint{Name: m.Format("Jan"), Total: json.Number(total)}
	}
	return out
}

// UserMonthly returns the caller's payment volume (transfers and paid
// requests, sent and received) in each of the last 12 months, oldest first,
// ending with the current month (UTC).
func (s *Service) UserMonthly(ctx context.Context, a Actor) ([]MonthPoint, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	starts, end := s.months()
	var rows []monthTotal
	err := s.db.SelectContext(ctx, &rows, `
		SELECT to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, sum(t.amount)::text AS total
		FROM transactions t
		WHERE t.user_id = $1 AND t.kind IN ('transfer', 'request') AND t.created_at >= $2 AND t.created_at < $3
		GROUP BY 1`, a.UserID, starts[0], end)
	if err != nil {
		return nil, errs.Wrap(err, "user monthly")
	}
	for i, r := range rows {
		a, err := money.Parse(r.Total)
		if err != nil {
			return nil, errs.Wrap(err, "user monthly total")
		}
		b, _ := a.MarshalJSON()
		rows[i].Total = string(b)
	}
	return chart(starts, rows), nil
}

// AdminMonthlyUsers returns how many users joined in each of the last 12
// months, oldest first, ending with the current month (UTC).
func (s *Service) AdminMonthlyUsers(ctx context.Context, a Actor) ([]MonthPoint, error) {
	if err := requireAdmin(a); err != nil {
		return nil, err
	}
	starts, end := s.months()
	// One index range count per month: no per-row date formatting.
	bounds := make([]time.Time, 0, len(starts)+1)
	bounds = append(append(bounds, starts...), end)
	var counts []int64
	err := s.db.SelectContext(ctx, &counts, `
		SELECT (SELECT count(*) FROM users u WHERE u.created_at >= b.lo AND u.created_at < b.hi)
		FROM unnest($1::timestamptz[], $2::timestamptz[]) WITH ORDINALITY AS b(lo, hi, i) ORDER BY b.i`,
		pq.Array(bounds[:len(starts)]), pq.Array(bounds[1:]))
	if err != nil {
		return nil, errs.Wrap(err, "monthly users")
	}
	totals := make([]monthTotal, len(counts))
	for i, n := range counts {
		totals[i] = monthTotal{Month: starts[i].Format("2006-01"), Total: strconv.FormatInt(n, 10)}
	}
	return chart(starts, totals), nil
}
