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

// CurrencyTotals are the money figures of a dashboard in one currency.
type CurrencyTotals struct {
	Currency            string       `json:"currency" db:"currency"`
	TotalBalance        money.Amount `json:"total_balance" db:"total_balance"`
	TotalSentAmount     money.Amount `json:"total_sent_amount" db:"total_sent_amount"`
	TotalReceivedAmount money.Amount `json:"total_received_amount" db:"total_received_amount"`
}

// UserSummary is a customer's dashboard: their ledger rows, the requests
// waiting for their answer, and their payments out (transfers and paid
// requests) and in. The amounts are in the base currency (USD) only, the
// counts are over every currency; ByCurrency has the money figures of each
// currency the customer holds an open account in or has paid or been paid
// in, base currency first.
type UserSummary struct {
	TotalTransactions   int64            `json:"total_transactions" db:"total_transactions"`
	PendingRequests     int64            `json:"pending_requests" db:"pending_requests"`
	TotalTransfers      int64            `json:"total_transfers" db:"total_transfers"`
	TotalSentAmount     money.Amount     `json:"total_sent_amount" db:"total_sent_amount"`
	TotalReceivedAmount money.Amount     `json:"total_received_amount" db:"total_received_amount"`
	ByCurrency          []CurrencyTotals `json:"by_currency" db:"-"`
	// HomeCurrency is the customer's choice (preferences); TotalBalanceHome
	// every open account's balance converted into it at the current rates
	// (fx.go, no spread), approximate; nil when a rate is missing.
	HomeCurrency     string        `json:"home_currency" db:"home_currency"`
	TotalBalanceHome *money.Amount `json:"total_balance_home" db:"total_balance_home"`
}

// AdminSummary is the system-wide dashboard. As in UserSummary, the amounts
// are in the base currency (USD), the counts over every currency, and
// ByCurrency has the money figures of every currency the bank offers.
type AdminSummary struct {
	TotalBalance        money.Amount     `json:"total_balance" db:"total_balance"`
	TotalUsers          int64            `json:"total_users" db:"total_users"`
	TotalTransactions   int64            `json:"total_transactions" db:"total_transactions"`
	PendingRequests     int64            `json:"pending_requests" db:"pending_requests"`
	TotalTransfers      int64            `json:"total_transfers" db:"total_transfers"`
	TotalSentAmount     money.Amount     `json:"total_sent_amount" db:"total_sent_amount"`
	TotalReceivedAmount money.Amount     `json:"total_received_amount" db:"total_received_amount"`
	ByCurrency          []CurrencyTotals `json:"by_currency" db:"-"`
}

// currencyRow is one currency's figures as the summary queries read them.
type currencyRow struct {
	CurrencyTotals
	Held         bool  `db:"held"`
	Transactions int64 `db:"total_transactions"`
	Transfers    int64 `db:"total_transfers"`
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

// baseFirst orders currency rows with the base currency first, then by code.
const baseFirst = `ORDER BY currency <> '` + money.BaseCurrency + `', currency`

// UserSummary returns the caller's dashboard figures.
//
// Returns customer_only (403) for anyone but a customer.
func (s *Service) UserSummary(ctx context.Context, a Actor) (UserSummary, error) {
	if err := requireCustomer(a); err != nil {
		return UserSummary{}, err
	}
	// The caller's ledger rows, summed per account (transactions_user_idx),
	// then per currency of the account.
	rd := s.reader(ctx)
	var rows []currencyRow
	err := rd.SelectContext(ctx, &rows, `
		SELECT a.currency::text AS currency, bool_or(a.closed_at IS NULL) AS held,
			COALESCE(sum(a.balance) FILTER (WHERE a.closed_at IS NULL), 0) AS total_balance,
			COALESCE(sum(l.total_transactions), 0) AS total_transactions, COALESCE(sum(l.total_transfers), 0) AS total_transfers,
			COALESCE(sum(l.total_sent_amount), 0) AS total_sent_amount, COALESCE(sum(l.total_received_amount), 0) AS total_received_amount
		FROM accounts a LEFT JOIN (
			SELECT t.account_id, `+ledgerTotals+` FROM transactions t WHERE t.user_id = $1 GROUP BY t.account_id) l ON l.account_id = a.id
		WHERE a.user_id = $1
		GROUP BY a.currency `+baseFirst, a.UserID)
	if err != nil {
		return UserSummary{}, errs.Wrap(err, "user summary")
	}
	out := UserSummary{ByCurrency: []CurrencyTotals{}}
	if err := rd.GetContext(ctx, &out.PendingRequests, `SELECT count(*) FROM money_requests r
		WHERE r.recipient_user_id = $1 AND r.status = 'PENDING' AND r.expires_at > $2`, a.UserID, s.now()); err != nil {
		return UserSummary{}, errs.Wrap(err, "user pending requests")
	}
	if err := rd.QueryRowxContext(ctx, homeBalance, a.UserID).Scan(&out.HomeCurrency, &out.TotalBalanceHome); err != nil {
		return UserSummary{}, errs.Wrap(err, "home balance")
	}
	for _, r := range rows {
		out.TotalTransactions += r.Transactions
		out.TotalTransfers += r.Transfers
		if r.Currency == money.BaseCurrency {
			out.TotalSentAmount, out.TotalReceivedAmount = r.TotalSentAmount, r.TotalReceivedAmount
		}
		// A currency shows while the caller holds it, or has moved money in it.
		if r.Held || r.TotalSentAmount != 0 || r.TotalReceivedAmount != 0 {
			out.ByCurrency = append(out.ByCurrency, r.CurrencyTotals)
		}
	}
	return out, nil
}

// AdminSummary returns the system-wide dashboard figures.
//
// Returns admin_only (403) for a non-admin.
func (s *Service) AdminSummary(ctx context.Context, a Actor) (AdminSummary, error) {
	if err := requireAdmin(a); err != nil {
		return AdminSummary{}, err
	}
	// The ledger figures come from the sharded totals the database keeps per
	// currency (migrations/0002, 0005): 64 rows a currency instead of a scan
	// of the whole ledger. The sum of all balances in a currency equals its
	// ledger's CREDIT - DEBIT.
	rd := s.reader(ctx)
	var rows []currencyRow
	err := rd.SelectContext(ctx, &rows, `SELECT l.currency::text AS currency,
		sum(l.transactions) AS total_transactions, sum(l.transfers) AS total_transfers,
		sum(l.sent) AS total_sent_amount, sum(l.received) AS total_received_amount, sum(l.net) AS total_balance
		FROM ledger_totals l GROUP BY l.currency `+baseFirst)
	if err != nil {
		return AdminSummary{}, errs.Wrap(err, "admin summary")
	}
	out := AdminSummary{ByCurrency: make([]CurrencyTotals, 0, len(rows))}
	if err := rd.QueryRowxContext(ctx, `SELECT (SELECT count(*) FROM users),
		(SELECT count(*) FROM money_requests r WHERE r.status = 'PENDING' AND r.expires_at > $1)`, s.now()).
		Scan(&out.TotalUsers, &out.PendingRequests); err != nil {
		return AdminSummary{}, errs.Wrap(err, "admin counts")
	}
	for _, r := range rows {
		out.TotalTransactions += r.Transactions
		out.TotalTransfers += r.Transfers
		if r.Currency == money.BaseCurrency {
			out.TotalBalance, out.TotalSentAmount, out.TotalReceivedAmount = r.TotalBalance, r.TotalSentAmount, r.TotalReceivedAmount
		}
		out.ByCurrency = append(out.ByCurrency, r.CurrencyTotals)
	}
	return out, nil
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
// requests, sent and received) in the base currency (USD) in each of the
// last 12 months, oldest first, ending with the current month (UTC).
//
// Returns customer_only (403) for anyone but a customer.
func (s *Service) UserMonthly(ctx context.Context, a Actor) ([]MonthPoint, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	starts, end := s.months()
	var rows []monthTotal
	err := s.reader(ctx).SelectContext(ctx, &rows, `
		SELECT to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, sum(t.amount)::text AS total
		FROM transactions t JOIN accounts a ON a.id = t.account_id AND a.currency = $4
		WHERE t.user_id = $1 AND t.kind IN ('transfer', 'request') AND t.created_at >= $2 AND t.created_at < $3
		GROUP BY 1`, a.UserID, starts[0], end, money.BaseCurrency)
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
//
// Returns admin_only (403) for a non-admin.
func (s *Service) AdminMonthlyUsers(ctx context.Context, a Actor) ([]MonthPoint, error) {
	if err := requireAdmin(a); err != nil {
		return nil, err
	}
	starts, end := s.months()
	// One index range count per month: no per-row date formatting.
	bounds := make([]time.Time, 0, len(starts)+1)
	bounds = append(append(bounds, starts...), end)
	var counts []int64
	err := s.reader(ctx).SelectContext(ctx, &counts, `
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
