package bank

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// AdminUserRow is a user as the admin screens list them.
type AdminUserRow struct {
	ID      int64     `json:"id" db:"id"`
	Name    string    `json:"name" db:"full_name"`
	Email   string    `json:"email" db:"email"`
	Phone   string    `json:"phone" db:"phone_number"`
	Role    string    `json:"role" db:"role"`
	Status  bool      `json:"status" db:"is_active"`
	Created time.Time `json:"created" db:"created_at"`
}

// ListUsers returns every user, newest first.
//
// Returns admin_only (403) for a non-admin.
func (s *Service) ListUsers(ctx context.Context, a Actor) ([]AdminUserRow, error) {
	if err := requireAdmin(a); err != nil {
		return nil, err
	}
	rows := []AdminUserRow{}
	err := s.reader(ctx).SelectContext(ctx, &rows, `SELECT `+userColumns+` `+userFrom+` ORDER BY u.id DESC`)
	return rows, errs.Wrap(err, "list users")
}

// FindUser resolves a user by id or email (for the CLI).
//
// Returns invalid_input (an empty, over-long or non-text ref) or
// user_not_found (404).
func (s *Service) FindUser(ctx context.Context, ref string) (User, error) {
	ref, err := clean("user", ref, MaxEmailLen, true)
	if err != nil {
		return User{}, err
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		return s.getUser(ctx, s.db, id)
	}
	var u User
	err = s.db.GetContext(ctx, &u, `SELECT `+userColumns+` `+userFrom+` WHERE lower(u.email) = lower($1)`, ref)
	if notFound(err) {
		return u, errs.E(errs.NotFound, "user_not_found", fmt.Sprintf("No user with id or email %q", ref))
	}
	return u, errs.Wrap(err, "find user")
}

// AdminRow is u as the admin screens (and the CLI) list it.
func AdminRow(u User) AdminUserRow {
	return AdminUserRow{ID: u.ID, Name: u.FullName, Email: u.Email, Phone: u.PhoneNumber, Role: u.Role, Status: u.IsActive, Created: u.CreatedAt}
}

// lockTarget locks the target user and every active admin, in id order (so
// two admin actions never wait for each other in a cycle), and returns the
// target and the number of active admins, both as they are now: an admin it
// counts stays one until the caller's transaction ends, so two admins
// cannot demote each other at once and leave none.
//
// Under READ COMMITTED one locking statement sees the admins committed
// before it began; a row it had to wait for is read again in its newest
// version (and left out when it is no admin any more), but a user made an
// admin after the statement began is not in it. So a count that would
// refuse (the target the only active admin) is taken again until a
// statement finds no row it did not hold already: that statement waited
// for nobody, so it counted the admins as committed when it began, while
// every one of them was held (issue 20: false last_admin refusals while
// another admin was active throughout).
func lockTarget(ctx context.Context, tx *sqlx.Tx, userID int64) (User, int, error) {
	if userID <= 0 {
		return User{}, 0, errUserNotFound
	}
	held := map[int64]bool{}
	admins := 0
	for {
		var rows []struct {
			ID    int64 `db:"id"`
			Admin bool  `db:"admin"`
		}
		if err := tx.SelectContext(ctx, &rows, `SELECT id, role_id = 2 AND is_active AS admin FROM users
			WHERE id = $1 OR (role_id = 2 AND is_active) ORDER BY id FOR UPDATE`, userID); err != nil {
			return User{}, 0, errs.Wrap(err, "lock admins")
		}
		admins = 0
		more, targetAdmin := false, false
		for _, r := range rows {
			if r.Admin {
				admins++
				targetAdmin = targetAdmin || r.ID == userID
			}
			more = more || !held[r.ID]
			held[r.ID] = true
		}
		if admins > 1 || !targetAdmin || !more {
			break
		}
	}
	var u User
	err := tx.GetContext(ctx, &u, `SELECT `+userColumns+` `+userFrom+` WHERE u.id = $1`, userID)
	if notFound(err) {
		return u, 0, errUserNotFound
	}
	return u, admins, errs.Wrap(err, "read user")
}

// SetUserActive activates or deactivates a user. An admin cannot deactivate
// themself, and the last active admin cannot be deactivated. Deactivating
// revokes every token the user holds, in the same transaction; activating
// again does not bring them back: the user signs in again.
//
// Returns admin_only (403), self_deactivation (422), last_admin (422) or
// user_not_found (404).
func (s *Service) SetUserActive(ctx context.Context, a Actor, userID int64, active bool) (AdminUserRow, error) {
	if err := requireAdmin(a); err != nil {
		return AdminUserRow{}, err
	}
	if !active && !a.CLI && userID == a.UserID {
		return AdminUserRow{}, errs.E(errs.Unprocessable, "self_deactivation", "You cannot deactivate yourself")
	}
	var out User
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		u, admins, err := lockTarget(ctx, tx, userID)
		if err != nil {
			return err
		}
		if !active && u.Role == RoleAdmin && u.IsActive && admins <= 1 {
			return errLastAdmin
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET is_active = $2 WHERE id = $1`, userID, active); err != nil {
			return errs.Wrap(err, "set active")
		}
		if !active {
			// Sessions end for good: reactivating does not bring these back
			// (a revoked token stays revoked, trigger auth_tokens_keep_revoked).
			if _, err := tx.ExecContext(ctx, `UPDATE auth_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, userID); err != nil {
				return errs.Wrap(err, "revoke tokens")
			}
		}
		verb := "Deactivated"
		if active {
			verb = "Activated"
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: "USER_STATUS", Table: "users", Description: fmt.Sprintf("%s user %s (id %d)", verb, u.Email, u.ID)}); err != nil {
			return err
		}
		u.IsActive = active
		out = u
		return nil
	})
	if err == nil {
		s.forgetUser(userID) // the next request reads role and active state afresh
	}
	return AdminRow(out), err
}

// AssignRole gives a user exactly one role. It refuses to leave no active
// admin, and to promote a customer who still holds money to Admin: an admin
// cannot use customer functions, so money left in their accounts, or a
// pending request that would move some, would be stranded. A customer may be
// promoted once every open account is empty (or closed) and none has a
// pending money request, in either direction; open, empty accounts may stay.
// The customer's open accounts are locked first, so a transfer or request in
// flight on them commits before the check (and is seen by it), or waits for
// the promotion to commit.
//
// Returns admin_only (403), invalid_input (400), user_not_found (404),
// last_admin (422) and customer_has_accounts (422).
func (s *Service) AssignRole(ctx context.Context, a Actor, userID int64, roles []string) (AdminUserRow, error) {
	if err := requireAdmin(a); err != nil {
		return AdminUserRow{}, err
	}
	if userID <= 0 {
		return AdminUserRow{}, errs.Field("user_id", "user_id is required")
	}
	if len(roles) != 1 || (roles[0] != RoleAdmin && roles[0] != RoleUser) {
		return AdminUserRow{}, errs.Field("roles", "roles must hold exactly one role, Admin or User")
	}
	role := roles[0]
	var out User
	err := s.inTxAs(ctx, a, func(tx *sqlx.Tx) error {
		// The accounts before the user row: a transfer locks its accounts, then
		// (through the ledger's foreign key) its users; the same order cannot deadlock.
		holds := false
		if role == RoleAdmin {
			var err error
			if holds, err = s.holdsMoney(ctx, tx, userID); err != nil {
				return err
			}
		}
		u, admins, err := lockTarget(ctx, tx, userID)
		if err != nil {
			return err
		}
		if role == RoleUser && u.Role == RoleAdmin && u.IsActive && admins <= 1 {
			return errLastAdmin
		}
		if role == RoleAdmin && u.Role != RoleAdmin && holds {
			return errCustomerHasAccounts
		}
		// The change and its audit row: set_user_role, the only way a role
		// changes (the runtime role may not update role_id).
		if err := setRole(ctx, tx, a, userID, role); err != nil {
			return err
		}
		u.Role = role
		out = u
		return nil
	})
	if err == nil {
		s.forgetUser(userID) // the next request reads role and active state afresh
	}
	return AdminRow(out), err
}

var errLastAdmin = errs.E(errs.Unprocessable, "last_admin", "This would leave no active administrator")

var errCustomerHasAccounts = errs.E(errs.Unprocessable, "customer_has_accounts", "Close or empty this customer's accounts first")

// holdsMoney reports whether one of userID's open accounts has a balance, or
// userID has a pending money request that can still be answered. It locks
// those accounts (FOR UPDATE, as transfers and account closing do), so the
// answer holds until the caller's transaction ends.
func (s *Service) holdsMoney(ctx context.Context, tx *sqlx.Tx, userID int64) (bool, error) {
	var balances []money.Amount
	if err := tx.SelectContext(ctx, &balances, `SELECT balance FROM accounts
		WHERE user_id = $1 AND closed_at IS NULL ORDER BY id FOR UPDATE`, userID); err != nil {
		return false, errs.Wrap(err, "lock customer accounts")
	}
	for _, b := range balances {
		if b != 0 {
			return true, nil
		}
	}
	var pending bool
	err := tx.GetContext(ctx, &pending, `SELECT EXISTS (SELECT 1 FROM money_requests
		WHERE (requester_user_id = $1 OR recipient_user_id = $1) AND status = 'PENDING' AND expires_at > $2)`, userID, s.now())
	return pending, errs.Wrap(err, "customer pending requests")
}

// AuditRow is one audit log entry as the API shows it.
type AuditRow struct {
	ID              int64     `json:"id" db:"id"`
	FullName        string    `json:"FullName" db:"full_name"`
	AccountNumber   *string   `json:"AccountNumber" db:"account_number"`
	ActionType      string    `json:"ActionType" db:"action_type"`
	TableName       string    `json:"TableName" db:"table_name"`
	Description     string    `json:"Description" db:"description"`
	ActionTimestamp time.Time `json:"ActionTimestamp" db:"created_at"`
}

// AuditLogs returns a page of the audit log, newest first.
//
// Returns admin_only (403) or invalid_input (a limit out of range, a cursor
// this server did not give out).
func (s *Service) AuditLogs(ctx context.Context, a Actor, p Page) ([]AuditRow, *string, error) {
	if err := requireAdmin(a); err != nil {
		return nil, nil, err
	}
	limit, before, err := p.decode()
	if err != nil {
		return nil, nil, err
	}
	return s.auditPage(ctx, limit, before)
}

// auditColumns are AuditRow's, read from auditFrom: the audit log l and the
// user u who acted (none: the system).
const (
	auditColumns = `l.id, COALESCE(u.full_name, 'System') AS full_name, l.account_number, l.action_type, l.table_name, l.description, l.created_at`
	auditFrom    = `FROM audit_log l LEFT JOIN users u ON u.id = l.actor_user_id`
)

func (s *Service) auditPage(ctx context.Context, limit int, before int64) ([]AuditRow, *string, error) {
	rows := []AuditRow{}
	err := s.reader(ctx).SelectContext(ctx, &rows, `SELECT `+auditColumns+` `+auditFrom+` WHERE ($1::bigint = 0 OR l.id < $1) ORDER BY l.id DESC LIMIT $2`, before, limit+1)
	if err != nil {
		return nil, nil, errs.Wrap(err, "audit logs")
	}
	rows, next := nextPage(rows, limit, func(r AuditRow) int64 { return r.ID })
	return rows, next, nil
}

// LookupUser is FindUser for an administrator through the API (the CLI's
// commands on one user, run with --server).
//
// Returns admin_only (403), invalid_input or user_not_found (404).
func (s *Service) LookupUser(ctx context.Context, a Actor, ref string) (User, error) {
	if err := requireAdmin(a); err != nil {
		return User{}, err
	}
	return s.FindUser(ctx, ref)
}
