package bank

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/auth"
	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// DemoSignIns are the demo users SeedDemo creates, for printing.
var DemoSignIns = []struct{ Email, Password, Role string }{
	{"admin@meridian.test", "admin12345", RoleAdmin},
	{"alice@meridian.test", "alice12345", RoleUser},
	{"bob@meridian.test", "bob12345", RoleUser},
}

// DemoBobDailyLimit is the demo customer Bob's own daily transfer limit,
// $100.00 (the default is daily_transfer_limit), so that a transfer of, say,
// $150 shows the refusal.
const DemoBobDailyLimit money.Amount = 100_00

// seedLock is the advisory lock key held while seeding, so several
// instances starting at once on an empty database seed it once.
const seedLock = 7_422_002

// demoUser is one demo user and when they joined (months before now).
type demoUser struct {
	name, email, password, phone, role string
	joined                             int
}

var demoUsers = []demoUser{
	{"Ada Admin", "admin@meridian.test", "admin12345", "+1 555 0100", RoleAdmin, 7},
	{"Alice Smith", "alice@meridian.test", "alice12345", "+1 555 0101", RoleUser, 6},
	{"Bob Jones", "bob@meridian.test", "bob12345", "+1 555 0102", RoleUser, 5},
}

// demoAccount is an account of a demo customer (index into demoUsers).
type demoAccount struct {
	user    int
	number  string
	typeID  int
	balance money.Amount
}

var demoAccounts = []demoAccount{
	{1, "100200300", 1, 5_000_00},
	{1, "100200301", 2, 12_000_00},
	{2, "200300400", 1, 3_000_00},
}

// demoTransfer is a transfer between demo accounts, back-dated by months and days.
type demoTransfer struct {
	user         int
	from, to     string
	amount       money.Amount
	desc         string
	months, days int
}

var demoTransfers = []demoTransfer{
	{1, "100200300", "200300400", 120_00, "Dinner", 4, 20},
	{2, "200300400", "100200300", 45_50, "Concert tickets", 4, 2},
	{1, "100200300", "200300400", 800_00, "Rent share", 3, 15},
	{1, "100200301", "200300400", 250_00, "Birthday gift", 3, 1},
	{2, "200300400", "100200300", 60_00, "Groceries", 2, 10},
	{1, "100200300", "200300400", 800_00, "Rent share", 2, 0},
	{2, "200300400", "100200300", 150_00, "Utilities", 1, 12},
	{1, "100200300", "200300400", 35_25, "Coffee", 0, 5},
	{2, "200300400", "100200300", 19_99, "Book", 0, 1},
}

// seedLock takes the seed lock (pg_try_advisory_xact_lock, every 50 ms)
// and returns the transaction that holds it until it ends.
func (s *Service) seedLock(ctx context.Context) (*sqlx.Tx, error) {
	for {
		lock, err := s.db.BeginTxx(ctx, nil)
		if err != nil {
			return nil, errs.Wrap(err, "seed lock")
		}
		var got bool
		err = lock.GetContext(ctx, &got, `SELECT pg_try_advisory_xact_lock($1)`, seedLock)
		if err == nil && got {
			return lock, nil
		}
		lock.Rollback()
		if err != nil {
			return nil, errs.Wrap(err, "seed lock")
		}
		select {
		case <-ctx.Done():
			return nil, errs.Wrap(ctx.Err(), "seed lock")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// SeedDemo fills an empty database with demo data: an admin, two customers
// with accounts, transfers spread over the last months, money requests
// (one pending for Alice) and their notifications, a payee of Alice's (Bob)
// and a low daily limit of Bob's (DemoBobDailyLimit). It goes through the same
// service functions as the API, so everything is audited. With any user in
// the database it does nothing and reports false.
//
// Returns busy (503) when no password-check slot frees in time for its
// users' passwords, otherwise only internal errors (the database failed).
func (s *Service) SeedDemo(ctx context.Context) (created bool, err error) {
	// The lock is held by a transaction kept open while the seed runs in
	// transactions of its own: a session lock would not hold through
	// PgBouncer in transaction mode (which keeps a transaction, not a
	// session, on one server connection). The others poll for it instead
	// of waiting on a server connection each, which the seeding instance
	// may need.
	lock, err := s.seedLock(ctx)
	if err != nil {
		return false, err
	}
	defer lock.Rollback()

	var exists bool
	if err := s.db.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM users)`); err != nil {
		return false, errs.Wrap(err, "seed check")
	}
	if exists {
		return false, nil
	}
	now := s.now()
	ago := func(months, days int) time.Time { return now.AddDate(0, -months, -days) }

	actors := make([]Actor, len(demoUsers))
	for i, d := range demoUsers {
		u, err := s.Register(ctx, CLIActor, RegisterInput{FullName: d.name, Email: d.email, PhoneNumber: d.phone, Password: d.password, Role: d.role})
		if err != nil {
			return false, err
		}
		actors[i] = Actor{UserID: u.ID, Role: u.Role, FullName: u.FullName}
		if _, err := s.db.ExecContext(ctx, `UPDATE users SET created_at = $2 WHERE id = $1`, u.ID, ago(d.joined, 0)); err != nil {
			return false, errs.Wrap(err, "seed backdate user")
		}
	}
	// Ledger rows are append-only (the runtime role may not UPDATE them), so
	// the history is dated as it is written (backdated), not afterwards.
	for _, d := range demoAccounts {
		opened := ago(demoUsers[d.user].joined, -1)
		// With customer_funding off the bank funds the demo accounts: opened
		// at 0, then a deposit.
		opening := d.balance
		if s.settings.DisableCustomerFunding {
			opening = 0
		}
		acc, err := s.CreateAccount(backdated(ctx, opened), actors[d.user], AccountInput{AccountNumber: d.number, Balance: opening, AccountTypeID: d.typeID})
		if err != nil {
			return false, err
		}
		if opening != d.balance {
			// The bank's own seeding: a posting, not an administrator's
			// deposit (no second administrator approves a demo).
			p := fundsPosting(CLIActor, d.number, FundsInput{Amount: d.balance, Description: "Opening deposit"}, newKey(), postDeposit)
			p.dated = opened
			if _, err := s.postings.do(ctx, p); err != nil {
				return false, err
			}
		}
		if _, err := s.db.ExecContext(ctx, `UPDATE accounts SET created_at = $2 WHERE id = $1`, acc.ID, opened); err != nil {
			return false, errs.Wrap(err, "seed backdate account")
		}
	}
	for _, d := range demoTransfers {
		in := TransferInput{AccountID: d.from, ToAccountID: d.to, Amount: d.amount, Description: d.desc}
		if _, err := s.Transfer(backdated(ctx, ago(d.months, d.days)), actors[d.user], in, ""); err != nil {
			return false, err
		}
	}
	alice, bob := actors[1], actors[2]
	// Alice asks Bob for lunch money; Bob pays.
	lunch, err := s.CreateMoneyRequest(ctx, alice, MoneyRequestInput{RequesterID: "100200300", RecipientID: "200300400", Amount: 40_00, Description: "Lunch"})
	if err != nil {
		return false, err
	}
	if _, err := s.AcceptMoneyRequest(ctx, bob, lunch.ID, ""); err != nil {
		return false, err
	}
	// Bob asks Alice for a holiday; she declines.
	trip, err := s.CreateMoneyRequest(ctx, bob, MoneyRequestInput{RequesterID: "200300400", RecipientID: "100200300", Amount: 500_00, Description: "Holiday cottage"})
	if err != nil {
		return false, err
	}
	if _, err := s.DeclineMoneyRequest(ctx, alice, trip.ID); err != nil {
		return false, err
	}
	// And one waiting for Alice's answer.
	if _, err := s.CreateMoneyRequest(ctx, bob, MoneyRequestInput{RequesterID: "200300400", RecipientID: "100200300", Amount: 75_00, Description: "Concert tickets"}); err != nil {
		return false, err
	}
	// Alice pays her rent share monthly, from the first of next month.
	y, m, _ := now.UTC().Date()
	firstRent := time.Date(y, m+1, 1, 9, 0, 0, 0, time.UTC)
	if _, err := s.CreateScheduledTransfer(ctx, alice, ScheduledTransferInput{AccountID: "100200300", ToAccountID: "200300400",
		Amount: 800_00, Description: "Rent share", RunAt: firstRent.Format(time.RFC3339), Frequency: FrequencyMonthly}); err != nil {
		return false, err
	}
	// Alice keeps Bob's account as a payee.
	if _, err := s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Bob", AccountNumber: "200300400"}); err != nil {
		return false, err
	}
	// The bank gave Bob a low daily limit: sending more than DemoBobDailyLimit
	// in a day shows the refusal (daily_limit_exceeded).
	limit := DemoBobDailyLimit
	if _, err := s.SetDailyLimit(ctx, CLIActor, bob.UserID, &limit); err != nil {
		return false, err
	}
	return true, nil
}

// BulkOptions sizes SeedBulk. AccountsPerUser 0 means 1 (at most 5);
// TransfersPerUser transfers per user are made between random bulk
// accounts, each writing a DEBIT and a CREDIT row.
type BulkOptions struct {
	Users            int
	AccountsPerUser  int
	TransfersPerUser int
	Seed             int64
	// Force adds bulk users even to a database that holds users no seed
	// created (see CheckTestDatabase).
	Force bool
}

// BulkStats tells what SeedBulk made.
type BulkStats struct {
	Users      int64         `json:"users"`
	Accounts   int64         `json:"accounts"`
	Transfers  int64         `json:"transfers"`
	LedgerRows int64         `json:"ledger_rows"`
	Elapsed    time.Duration `json:"elapsed"`
}

// BulkPassword is every bulk user's password; their emails are
// user<N>@bulk.meridian.test.
const BulkPassword = "password123"

// bulkEmailDomain marks the users SeedBulk creates (.test is reserved: no
// real mailbox has it).
const bulkEmailDomain = "@bulk.meridian.test"

// HasDemoUsers reports whether the demo users, whose passwords are
// published, are in the database.
//
// Returns only internal errors (the database failed).
func (s *Service) HasDemoUsers(ctx context.Context) (bool, error) {
	var emails []string
	for _, d := range demoUsers {
		emails = append(emails, d.email)
	}
	var ok bool
	err := s.db.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = ANY($1))`, pq.Array(emails))
	return ok, errs.Wrap(err, "demo users")
}

// CheckTestDatabase refuses a database that holds users neither SeedDemo
// nor SeedBulk created: bulk users and the demo users share published
// passwords, and load tests move their money around, so seed and bench work
// only on a test database unless told otherwise (BulkOptions.Force, the
// CLI's --force). Returns not_a_test_database.
func (s *Service) CheckTestDatabase(ctx context.Context) error {
	return checkTestDatabase(ctx, s.db)
}

func checkTestDatabase(ctx context.Context, q sqlx.QueryerContext) error {
	demo := make([]string, len(demoUsers))
	for i, d := range demoUsers {
		demo[i] = strings.ToLower(d.email)
	}
	var n int64
	if err := sqlx.GetContext(ctx, q, &n, `SELECT count(*) FROM users
		WHERE NOT (lower(email) LIKE '%' || $1 OR lower(email) = ANY($2))`, bulkEmailDomain, pq.Array(demo)); err != nil {
		return errs.Wrap(err, "count users")
	}
	if n > 0 {
		return errs.E(errs.Conflict, "not_a_test_database", fmt.Sprintf(
			"The database holds %d user(s) that neither the demo seed nor a bulk seed created; bulk data with published passwords goes only into a test database", n))
	}
	return nil
}

// Limits of one SeedBulk call.
const (
	maxBulkUsers     = 5_000_000
	maxBulkTransfers = 50_000_000
)

// bulkBatch is how many users one INSERT makes.
const bulkBatch = 50_000

// SeedBulk adds many customers for load tests and benchmarks, fast: the
// password is hashed once, and rows are made by set-based INSERT ... SELECT
// over generate_series, in one transaction. Every bulk account has an
// opening balance on the ledger, and the random transfers between bulk
// accounts write both ledger rows, so every balance equals its ledger and
// none is negative. The data depend only on Seed (and on how many bulk
// users exist already): the same Seed on an empty database gives the same
// users, accounts, amounts and transfers.
//
// It writes on owner, a pool signed in as the schema's owner: the ledger
// rows and balances go in directly, in bulk, which the runtime role may not
// do (it changes a balance only through post_batch). Every trigger and
// constraint runs as for any other write (foreign keys, the ledger totals of
// migrations/0006, which add one statement's rows at once): nothing is
// switched off. Afterwards the caller may want to VACUUM (ANALYZE) users,
// accounts and transactions as their owner.
//
// Returns invalid_input (400, a size out of range) or, unless o.Force,
// not_a_test_database for a database that is not a test database (see
// CheckTestDatabase).
func (s *Service) SeedBulk(ctx context.Context, owner *sqlx.DB, o BulkOptions) (BulkStats, error) {
	start := time.Now()
	if o.Users < 1 || o.Users > maxBulkUsers {
		return BulkStats{}, errs.Field("users", fmt.Sprintf("users must be between 1 and %d", maxBulkUsers))
	}
	if o.AccountsPerUser == 0 {
		o.AccountsPerUser = 1
	}
	if o.AccountsPerUser < 1 || o.AccountsPerUser > 5 {
		return BulkStats{}, errs.Field("accounts_per_user", "accounts_per_user must be between 1 and 5")
	}
	if o.TransfersPerUser < 0 || o.TransfersPerUser > 1000 {
		return BulkStats{}, errs.Field("transfers_per_user", "transfers_per_user must be between 0 and 1000")
	}
	if int64(o.Users)*int64(o.TransfersPerUser) > maxBulkTransfers {
		return BulkStats{}, errs.Field("transfers_per_user", fmt.Sprintf("at most %d transfers in all", maxBulkTransfers))
	}
	hash, err := auth.HashPassword(BulkPassword)
	if err != nil {
		return BulkStats{}, errs.Wrap(err, "hash")
	}
	now := s.now().UTC()
	var st BulkStats
	err = s.inTxOn(ctx, owner, func(tx *sqlx.Tx) error {
		st = BulkStats{}
		// One bulk seed at a time, so the numbering below stays unique.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, seedLock+1); err != nil {
			return errs.Wrap(err, "bulk lock")
		}
		if !o.Force {
			if err := checkTestDatabase(ctx, tx); err != nil {
				return err
			}
		}
		var offset int64
		if err := tx.GetContext(ctx, &offset, `SELECT count(*) FROM users WHERE email LIKE '%@bulk.meridian.test'`); err != nil {
			return errs.Wrap(err, "bulk offset")
		}
		for lo := int64(1); lo <= int64(o.Users); lo += bulkBatch {
			hi := min(lo+bulkBatch-1, int64(o.Users))
			res, err := tx.ExecContext(ctx, bulkUsersSQL, offset+lo, offset+hi, o.Seed, now, hash)
			if err != nil {
				return errs.Wrap(err, "bulk users")
			}
			n, _ := res.RowsAffected()
			st.Users += n
		}
		st.Accounts = int64(o.Users) * int64(o.AccountsPerUser)
		if st.Accounts >= 2 {
			st.Transfers = int64(o.Users) * int64(o.TransfersPerUser)
		}
		// The transfers first, between account indexes 1..Accounts, so each
		// account is inserted once with its final balance.
		if _, err := tx.ExecContext(ctx, bulkTransfersSQL, st.Transfers, st.Accounts, o.Seed); err != nil {
			return errs.Wrap(err, "bulk transfers")
		}
		if _, err := tx.ExecContext(ctx, `
			CREATE TEMP TABLE bulk_sum ON COMMIT DROP AS
			SELECT i, sum(sent) AS sent, sum(received) AS received FROM (
				SELECT from_i AS i, amount AS sent, 0 AS received FROM bulk_tx
				UNION ALL
				SELECT to_i, 0, amount FROM bulk_tx) x
			GROUP BY i`); err != nil {
			return errs.Wrap(err, "bulk sums")
		}
		if _, err := tx.ExecContext(ctx, bulkAccountsSQL, offset, o.AccountsPerUser, o.Seed); err != nil {
			return errs.Wrap(err, "bulk accounts")
		}
		if _, err := tx.ExecContext(ctx, `ALTER TABLE bulk_acc ADD PRIMARY KEY (i); ANALYZE bulk_acc`); err != nil {
			return errs.Wrap(err, "bulk index")
		}
		// Opening balance = what the account keeps plus all it sends, so the
		// balance never dips below zero whatever order the rows have.
		// Double entry: each opening balance comes from the vault, a posting
		// of two legs (migrations/0018), the customer's first.
		if _, err := tx.ExecContext(ctx, `
			WITH o AS (
				SELECT nextval('transactions_id_seq') AS id, a.id AS account_id, a.user_id, a.created_at,
					a.balance - COALESCE(s.received, 0) + COALESCE(s.sent, 0) AS amount
				FROM bulk_acc a LEFT JOIN bulk_sum s ON s.i = a.i
				ORDER BY a.id),
			v AS (SELECT id FROM accounts WHERE class = 'vault' AND currency = 'USD')
			INSERT INTO transactions (id, account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description, created_at, posting_id)
			OVERRIDING SYSTEM VALUE
			SELECT o.id, o.account_id, o.user_id, 'CREDIT', 'opening', o.amount, v.id, o.account_id, 'Opening balance', o.created_at, o.id FROM o, v
			UNION ALL
			SELECT nextval('transactions_id_seq'), v.id, NULL, 'DEBIT', 'opening', o.amount, v.id, o.account_id, 'Opening balance', o.created_at, o.id FROM o, v`); err != nil {
			return errs.Wrap(err, "bulk opening rows")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE accounts a SET balance = b.balance FROM ledger_balances b
			WHERE b.account_id = a.id AND a.class = 'vault' AND a.currency = 'USD'`); err != nil {
			return errs.Wrap(err, "bulk vault balance")
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description, created_at)
			SELECT CASE v.o WHEN 0 THEN x.from_id ELSE x.to_id END, CASE v.o WHEN 0 THEN x.from_user ELSE x.to_user END,
				CASE v.o WHEN 0 THEN 'DEBIT' ELSE 'CREDIT' END, 'transfer', x.amount, x.from_id, x.to_id, x.description, x.created_at
			FROM (
				SELECT b.n, f.id AS from_id, f.user_id AS from_user, t.id AS to_id, t.user_id AS to_user, b.amount, b.description,
					LEAST($1::timestamptz, GREATEST(f.created_at, t.created_at) + make_interval(secs => (b.h / 10 % 15552000)::double precision)) AS created_at
				FROM bulk_tx b JOIN bulk_acc f ON f.i = b.from_i JOIN bulk_acc t ON t.i = b.to_i) x
			CROSS JOIN (VALUES (0), (1)) v(o)
			ORDER BY x.created_at, x.n, v.o`, now); err != nil {
			return errs.Wrap(err, "bulk transfer rows")
		}
		st.LedgerRows = 2*st.Accounts + 2*st.Transfers
		return audit(ctx, tx, CLIActor, AuditEntry{Action: "SEED_BULK", Table: "users",
			Description: fmt.Sprintf("Seeded %d bulk users, %d accounts and %d transfers (seed %d)", st.Users, st.Accounts, st.Transfers, o.Seed)})
	})
	st.Elapsed = time.Since(start)
	return st, err
}

// bulkUsersSQL makes users $1..$2 (their N) with credentials; names and join
// dates (within the year before $4) come from a hash of N and the seed $3.
const bulkUsersSQL = `
	WITH g AS (
		SELECT n, hashint8extended(n, $3) & 9223372036854775807 AS h FROM generate_series($1::bigint, $2::bigint) n),
	u AS (
		INSERT INTO users (full_name, email, phone_number, role_id, created_at)
		SELECT (ARRAY['Ava','Ben','Chloe','Dan','Ella','Finn','Grace','Hugo','Ivy','Jack','Kira','Leo','Mia','Noah','Olive','Paul','Quinn','Rosa','Sam','Tara'])[1 + h % 20]
			|| ' ' || (ARRAY['Adams','Brown','Clark','Davis','Evans','Fisher','Garcia','Hill','Ito','Jones','Khan','Lopez','Miller','Nguyen','Owens','Patel','Reed','Smith','Turner','Wong'])[1 + (h / 20) % 20],
			'user' || n || '@bulk.meridian.test', '+1 555 ' || lpad(n::text, 8, '0'), 1,
			$4::timestamptz - make_interval(secs => ((h / 400) % 31536000)::double precision)
		FROM g ORDER BY n
		RETURNING id)
	INSERT INTO credentials (user_id, password_hash) SELECT id, $5 FROM u`

// bulkTransfersSQL draws $1 transfers among account indexes 1..$2, each
// between two different accounts, from a hash of its number and the seed
// $3; amounts are 1.00 to 50.99.
const bulkTransfersSQL = `
	CREATE TEMP TABLE bulk_tx ON COMMIT DROP AS
	SELECT n, 1 + h1 % $2::bigint AS from_i,
		1 + (h1 % $2::bigint + 1 + (h2 / 5000) % GREATEST($2::bigint - 1, 1)) % $2::bigint AS to_i,
		(100 + h2 % 5000)::numeric(20, 2) / 100 AS amount,
		(ARRAY['Rent','Groceries','Dinner','Coffee','Gift','Tickets','Utilities','Books','Taxi','Lunch'])[1 + h3 % 10] AS description,
		h3 AS h
	FROM (SELECT n, hashint8extended(n, $3 + 1) & 9223372036854775807 AS h1,
			hashint8extended(n, $3 + 2) & 9223372036854775807 AS h2,
			hashint8extended(n, $3 + 3) & 9223372036854775807 AS h3
		FROM generate_series(1, $1::bigint) n) g`

// bulkAccountsSQL opens $2 accounts (Checking, Savings, ...) for each bulk
// user numbered after $1, with their final balance: a random amount kept
// (100.00 to 10,000.00, from the seed $3) plus what the account receives.
// bulk_acc maps each account's index to its id. The numbers are recorded
// in account_numbers as the bulk users' for good.
const bulkAccountsSQL = `
	CREATE TEMP TABLE bulk_acc ON COMMIT DROP AS
	WITH a AS (
		INSERT INTO accounts (user_id, account_number, account_type_id, currency, balance, created_at)
		SELECT u.id, 'BK' || lpad(u.n::text, 10, '0') || k, 2 - k % 2, 'USD',
			(10000 + (hashint8extended(x.i, $3) & 9223372036854775807) % 990001)::numeric / 100 + COALESCE(s.received, 0),
			u.created_at + interval '1 hour'
		FROM (SELECT id, created_at, substring(email FROM '^user([0-9]+)@')::bigint AS n FROM users
			WHERE email LIKE '%@bulk.meridian.test' AND substring(email FROM '^user([0-9]+)@')::bigint > $1) u
		CROSS JOIN generate_series(1, $2) k
		CROSS JOIN LATERAL (SELECT (u.n - $1 - 1) * $2 + k AS i) x
		LEFT JOIN bulk_sum s ON s.i = x.i
		ORDER BY u.n, k
		RETURNING id, user_id, account_number, balance, created_at),
	-- Every number is its holder's for good (migrations/0005).
	n AS (INSERT INTO account_numbers (account_number, user_id) SELECT account_number, user_id FROM a)
	SELECT (substring(account_number FROM 3 FOR 10)::bigint - $1 - 1) * $2 + substring(account_number FROM 13)::bigint AS i,
		id, user_id, balance, created_at FROM a`
