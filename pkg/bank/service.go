// Package bank is Meridian's domain: identity, accounts, money and the audit
// log. HTTP handlers and CLI commands are thin and call this package; every
// rule of money or permission lives here, next to its test.
package bank

import (
	"context"
	"crypto/x509"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/auth"
	"meridian/pkg/db"
	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Roles.
const (
	RoleUser  = "User"
	RoleAdmin = "Admin"
)

// Settings are the service's knobs, taken from the configuration.
type Settings struct {
	RequestsTTL     time.Duration
	MaxAmount       money.Amount
	LookupPerMinute int
	// MaxPasswordChecks is how many bcrypt checks or hashes may run at once
	// in this process (< 1: the number of cores); PasswordCheckWait is how
	// long a further one waits for a slot before a 503 busy (<= 0: 2 s).
	MaxPasswordChecks int
	PasswordCheckWait time.Duration
	// DisableCustomerFunding is config customer_funding = false: accounts
	// open at 0 and balances cannot be edited; money enters through an
	// administrator's deposit (funding.go). The zero value keeps the spec's
	// behaviour.
	DisableCustomerFunding bool
	// RequireTwoFactorForAdmins is config require_2fa_for_admins: an
	// administrator without two-factor sign-in reaches only the calls that
	// turn it on (CheckTwoFactorPolicy).
	RequireTwoFactorForAdmins bool
	// DailyTransferLimit is config daily_transfer_limit: what a customer may
	// send to others per currency per UTC day, unless an administrator set
	// their own (limits.go). <= 0: DefaultDailyTransferLimit.
	DailyTransferLimit money.Amount
	// TransferBatch is config transfer_batch: the most transfers sent to
	// the database in one transaction (postings.go); <= 0:
	// DefaultTransferBatch, 1: each transfer alone. TransferBatchWorkers
	// is config transfer_batch_workers: batches in flight at once; <= 0:
	// DefaultTransferBatchWorkers.
	TransferBatch        int
	TransferBatchWorkers int
	// ScheduledMaxActive is config scheduled_max_active: the most active
	// scheduled transfers a customer may have (scheduled.go); <= 0:
	// DefaultScheduledMaxActive.
	ScheduledMaxActive int
	// Logger gets what the service reports on its own (a posting batch
	// whose connection broke, a worker's panic); nil: slog.Default().
	Logger *slog.Logger
	// FXSpreadBps is config fx_spread_bps: the bank's spread on an
	// exchange, in hundredths of a percent, taken against the customer
	// (fx.go); < 0: DefaultFXSpreadBps. 0 is no spread.
	FXSpreadBps int
	// Owner opens (once) a pool signed in as the schema's owner, for what
	// only the operator at the command line may do with no administrator
	// signed in: give a user a role (set_user_role checks the session's
	// role). nil: the service's own pool is used (tests; a database_url
	// that signs in as the owner).
	Owner func(context.Context) (*sqlx.DB, error)
	// ApprovalThreshold is config approval_threshold: an administrator's
	// deposit, withdrawal or reversal at or over it waits for a second
	// administrator (approvals.go); <= 0: DefaultApprovalThreshold.
	ApprovalThreshold money.Amount
	// WebhookAllowPrivate is config webhook_allow_private: webhooks may
	// reach loopback, private and link-local addresses. WebhookRootCAs are
	// the roots their TLS trusts (nil: the system's; tests give their own).
	// WebhookRetryBase, WebhookRetryMax and WebhookRetryFor shape the
	// retries (<= 0: 5 s doubling, at most 1 h, for 24 h; webhooks.go).
	WebhookAllowPrivate bool
	WebhookRootCAs      *x509.CertPool
	WebhookRetryBase    time.Duration
	WebhookRetryMax     time.Duration
	WebhookRetryFor     time.Duration
	// AnchorKey is config anchor_key: the secret the audit chain's
	// checkpoints are signed with (anchors.go); empty: derived from
	// jwt_secret.
	AnchorKey string
	// LockAfter is config lock_after, told to the app (PublicConfig); <= 0:
	// DefaultLockAfter.
	LockAfter time.Duration
}

// Service is the bank. It is safe for concurrent use.
type Service struct {
	db            *sqlx.DB
	tokens        *auth.Tokens
	settings      Settings
	now           func() time.Time
	lookups       *RateLimiter
	passwords     *auth.Passwords
	sealPoke      chan struct{}           // a commit happened: RunSealer seals (events.go)
	sealedHere    chan []FeedNotification // what RunSealer sealed, for this process's hub
	sealerForeign atomic.Int64            // links no seal wrote, found by this process's seals (events.go)
	sessions      *sessionCache           // verified sessions, while revocations reach us (sessioncache.go)
	seen          *seenSessions           // sessions used since the last flush of their last use (sessions.go)
	twoFactor     twoFactorKeys           // keys of two-factor secrets and backup codes at rest (twofactor.go)
	scheduler     schedulerCounters       // what the scheduler ran in this process (scheduled.go)
	pdfRows       int                     // the most rows of a PDF statement (0: MaxPDFStatementRows; tests lower it)
	reads         *db.Router              // read replicas (database_read_urls); nil: every read on db
	postings      *postQueue              // every movement of money, sent in batches (postings.go)
	anchorKey     []byte                  // signs the audit chain's checkpoints (anchors.go)
	pushes        pushCounters            // what the pusher sent (pusher.go)
	hooks         *webhooks               // webhook secrets and deliveries (webhooks.go)
}

// New returns a Service over db.
func New(db *sqlx.DB, tokens *auth.Tokens, s Settings) *Service {
	if s.MaxAmount <= 0 {
		s.MaxAmount = money.DefaultMax
	}
	if s.RequestsTTL <= 0 {
		s.RequestsTTL = 72 * time.Hour
	}
	if s.DailyTransferLimit <= 0 {
		s.DailyTransferLimit = DefaultDailyTransferLimit
	}
	if s.ScheduledMaxActive <= 0 {
		s.ScheduledMaxActive = DefaultScheduledMaxActive
	}
	if s.ApprovalThreshold <= 0 {
		s.ApprovalThreshold = DefaultApprovalThreshold
	}
	if s.FXSpreadBps < 0 {
		s.FXSpreadBps = DefaultFXSpreadBps
	}
	if s.LookupPerMinute <= 0 {
		s.LookupPerMinute = 30
	}
	if s.WebhookRetryBase <= 0 {
		s.WebhookRetryBase = DefaultWebhookRetryBase
	}
	if s.WebhookRetryMax <= 0 {
		s.WebhookRetryMax = DefaultWebhookRetryMax
	}
	if s.WebhookRetryFor <= 0 {
		s.WebhookRetryFor = DefaultWebhookRetryFor
	}
	svc := &Service{db: db, tokens: tokens, settings: s, now: time.Now,
		lookups:   NewRateLimiter(s.LookupPerMinute, time.Minute),
		passwords: auth.NewPasswords(s.MaxPasswordChecks, s.PasswordCheckWait),
		sealPoke:  make(chan struct{}, 1), sealedHere: make(chan []FeedNotification, 16), sessions: newSessionCache(), seen: newSeenSessions(),
		twoFactor: newTwoFactorKeys(tokens.DeriveKey("two-factor secrets"), tokens.DeriveKey("two-factor backup codes"))}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	svc.anchorKey = anchorKey(s.AnchorKey, tokens)
	svc.hooks = newWebhooks(tokens.DeriveKey("webhook secrets"), s)
	svc.postings = newPostQueue(db, s.TransferBatch, s.TransferBatchWorkers, func() money.Amount { return svc.settings.DailyTransferLimit },
		svc.pokeSealer, s.Logger)
	return svc
}

// PostingStats reports how this process's postings were batched.
func (s *Service) PostingStats() PostingStats { return s.postings.Stats() }

// Passwords exposes the gate every bcrypt of the service runs through
// (tests hold its slots; its Runs counts the checks).
func (s *Service) Passwords() *auth.Passwords { return s.passwords }

// DB exposes the pool (for health checks and the WebSocket listener).
func (s *Service) DB() *sqlx.DB { return s.db }

// SetReadRouter sends the service's reads of history, dashboards and lists
// through r (read replicas); writes and everything inside a money
// transaction stay on the primary. Call it before serving.
func (s *Service) SetReadRouter(r *db.Router) { s.reads = r }

// ReadRouter returns the router set by SetReadRouter (nil: none).
func (s *Service) ReadRouter() *db.Router { return s.reads }

// reader is the pool for a read that may be served by a replica: history,
// dashboards, lists, statements. Its context may carry the position of the
// caller's last write (db.WithPosition): a replica serves it only once it
// has replayed that write, else the primary does. Never use it for a read
// that decides a write: those run on s.db, inside the transaction.
func (s *Service) reader(ctx context.Context) *sqlx.DB {
	if s.reads == nil {
		return s.db
	}
	return s.reads.Reader(ctx)
}

// SetClock replaces the service's clock (tests).
func (s *Service) SetClock(now func() time.Time) { s.now = now }

// Actor is who performs an action: a signed-in user, or the operator at the
// command line (CLI), who may do what an admin may.
type Actor struct {
	UserID   int64
	Role     string
	FullName string
	TokenID  string // the token this request came with (empty for the CLI)
	CLI      bool
	// TwoFactor: the user has two-factor sign-in on (read with the session;
	// require_2fa_for_admins looks at it).
	TwoFactor bool
	// Kind is what the token is: KindSession (a sign-in), KindPAT or
	// KindOAuth (scopes.go); empty for the CLI.
	Kind string
	// Scopes limit a personal access token or a connected app's token
	// (RequireScope); nil for a session.
	Scopes []string
	// Accounts are the account numbers a connected app may see (nil: all
	// of the user's; MaySeeAccount).
	Accounts []string
}

// CLIActor is the operator running a `meridian` command on the server.
var CLIActor = Actor{Role: RoleAdmin, FullName: "CLI", CLI: true}

// IsAdmin reports whether the actor may use admin functions.
func (a Actor) IsAdmin() bool { return a.CLI || a.Role == RoleAdmin }

func (a Actor) auditUser() any {
	if id := a.auditUserID(); id != 0 {
		return id
	}
	return nil
}

// auditUserID is the user an audit row names: 0 for the operator at the
// command line.
func (a Actor) auditUserID() int64 {
	if a.CLI {
		return 0
	}
	return a.UserID
}

func requireAdmin(a Actor) error {
	if !a.IsAdmin() {
		return errs.E(errs.Forbidden, "admin_only", "Only an administrator can do this")
	}
	return nil
}

// requireCustomer guards the customer functions (accounts, money): role User.
func requireCustomer(a Actor) error {
	if a.CLI || a.Role != RoleUser {
		return errs.E(errs.Forbidden, "customer_only", "Only a customer can do this")
	}
	return nil
}

// checkUserID enforces that a user_id sent by a client is a valid id (400)
// and the caller's own (403).
func checkUserID(a Actor, userID *int64) error {
	if userID != nil && *userID <= 0 {
		return errs.Field("user_id", "user_id must be a positive whole number")
	}
	if userID != nil && *userID != a.UserID {
		return errs.ErrNotYourUser
	}
	return nil
}

// inTx runs fn in a transaction and commits it. A serialization failure or
// deadlock is retried a few times, so it never reaches a client as a 500.
func (s *Service) inTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	return s.inTxOn(ctx, s.db, fn)
}

// inTxAs is inTx on the owner's pool when a is the operator at the
// command line (Settings.Owner), else on the service's own.
func (s *Service) inTxAs(ctx context.Context, a Actor, fn func(tx *sqlx.Tx) error) error {
	if !a.CLI || s.settings.Owner == nil {
		return s.inTx(ctx, fn)
	}
	owner, err := s.settings.Owner(ctx)
	if err != nil {
		return errs.Wrap(err, "connect as the schema's owner")
	}
	return s.inTxOn(ctx, owner, fn)
}

// setRole gives user the role in tx through set_user_role, as a.
func setRole(ctx context.Context, tx *sqlx.Tx, a Actor, user int64, role string) error {
	_, err := tx.ExecContext(ctx, `SELECT set_user_role($1, $2, $3)`, nullID(a.auditUserID()), user, role)
	if code, _ := pgCode(err); code == "23514" {
		return errLastAdmin
	}
	return errs.Wrap(err, "assign role")
}

// inTxOn is inTx on another pool (the schema owner's, for the bulk seed).
func (s *Service) inTxOn(ctx context.Context, pool *sqlx.DB, fn func(tx *sqlx.Tx) error) error {
	return s.retry(func() error { return s.tryTx(ctx, pool, fn) })
}

// retry runs fn again, a few times, while it fails with a serialization
// failure or a deadlock (PostgreSQL rolled the transaction back).
func (s *Service) retry(fn func() error) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		err = fn()
		if !retryable(err) {
			return err
		}
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
	}
	return err
}

// tryTx runs fn in one transaction and commits it. The transaction's
// statements run under ctx: past its deadline one is cancelled, which
// rolls the transaction back (nothing was committed, and the caller may say
// so). The COMMIT is never cancelled: a COMMIT cancelled from here might
// still have committed, and the caller could no longer tell. A COMMIT whose
// connection broke before its answer is outcome_unknown.
func (s *Service) tryTx(ctx context.Context, pool *sqlx.DB, fn func(tx *sqlx.Tx) error) error {
	conn, err := pool.Connx(ctx) // waits for a free connection no longer than ctx allows
	if err != nil {
		return errs.Wrap(err, "connect")
	}
	defer conn.Close()
	tx, err := conn.BeginTxx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return errs.Wrap(err, "begin")
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		if refusedByDatabase(err) {
			return errs.Wrap(err, "commit") // PostgreSQL's answer: it rolled back
		}
		return errOutcomeUnknown("", err)
	}
	s.pokeSealer() // after the commit, in memory only: the sealer numbers the new rows
	return nil
}

// execWrite runs one statement that writes, as its own transaction. Like a
// COMMIT (tryTx) it is never cancelled from here, since it commits as it
// ends; statement_timeout bounds it. A connection that broke before the
// answer is outcome_unknown.
func (s *Service) execWrite(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := s.db.ExecContext(context.WithoutCancel(ctx), query, args...)
	if err != nil && !refusedByDatabase(err) {
		return nil, errOutcomeUnknown("", err)
	}
	return res, err
}

func retryable(err error) bool {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return pe.Code == "40001" || pe.Code == "40P01"
	}
	return false
}

// pgCode returns the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) (string, string) {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return string(pe.Code), pe.Constraint
	}
	return "", ""
}

func isUniqueViolation(err error, constraint string) bool {
	code, c := pgCode(err)
	return code == "23505" && (constraint == "" || c == constraint)
}

func notFound(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// AuditEntry is one row of the audit log.
type AuditEntry struct {
	Action        string
	Table         string
	AccountNumber string
	Description   string
}

// audit writes an audit row inside tx, so it commits or rolls back with the change.
func audit(ctx context.Context, tx sqlx.ExtContext, a Actor, e AuditEntry) error {
	desc := e.Description
	if a.CLI {
		desc += " (via CLI)"
	}
	var acct any
	if e.AccountNumber != "" {
		acct = e.AccountNumber
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO audit_log (actor_user_id, account_number, action_type, table_name, description)
		VALUES ($1, $2, $3, $4, $5)`, a.auditUser(), acct, e.Action, e.Table, desc)
	return errs.Wrap(err, "audit %s", e.Action)
}

// notify stores a notification for userID inside tx. Once it has committed,
// the sealer adds it to the notification feed (events.go) and every serve
// instance pushes it to that user's open WebSockets.
func notify(ctx context.Context, tx sqlx.ExtContext, userID int64, message string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO notifications (user_id, message) VALUES ($1, $2)`, userID, message)
	return errs.Wrap(err, "notify")
}

// checkAmount enforces the rules of an amount that moves money from or into
// the actor's account number: at least 0.01, at most the configured maximum.
// The maximum is the same number in every currency; its message writes it in
// that account's currency, looked up only when the amount is refused (the
// base currency when the account is not the actor's, which the caller
// refuses later anyway).
func (s *Service) checkAmount(ctx context.Context, a Actor, field string, amount money.Amount, number string) error {
	if amount <= 0 {
		return errs.Field(field, "Amount must be at least 0.01")
	}
	if amount > s.settings.MaxAmount {
		currency := money.BaseCurrency
		_ = s.db.GetContext(ctx, &currency, `SELECT currency FROM accounts WHERE account_number = $1 AND user_id = $2`, number, a.UserID)
		return errs.Field(field, fmt.Sprintf("Amount must not exceed %s", money.Format(s.settings.MaxAmount, currency)))
	}
	return nil
}
