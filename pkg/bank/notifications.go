package bank

import (
	"context"
	"strings"
	"time"

	"meridian/pkg/errs"
)

// Notification is a message stored for a user.
type Notification struct {
	ID        int64     `json:"id" db:"id"`
	Message   string    `json:"message" db:"message"`
	IsNew     bool      `json:"is_new" db:"is_new"`
	CreatedAt time.Time `json:"created_at" db:"created_at"`
}

// Notification filters: the app sorts messages by their words.
var notificationFilters = map[string]string{
	"":         ``,
	"all":      ``,
	"requests": ` AND message ILIKE '%request%'`,
	"alerts":   ` AND (message ILIKE '%expired%' OR message ILIKE '%declined%')`,
}

var errNotificationNotFound = errs.E(errs.NotFound, "notification_not_found", "Notification not found")

// ListNotifications returns the caller's notifications, newest first.
// userID, when a client sends one, must be the caller's own id; filter is
// all (or empty), requests or alerts; limit 0 means 100, at most 1000.
//
// Returns unauthenticated (no signed-in user), forbidden (another user's
// id) or invalid_input (a user_id, filter or limit out of range).
func (s *Service) ListNotifications(ctx context.Context, a Actor, userID *int64, filter string, limit int) ([]Notification, error) {
	if a.UserID == 0 {
		return nil, errs.ErrUnauthenticated
	}
	if err := checkUserID(a, userID); err != nil {
		return nil, err
	}
	cond, ok := notificationFilters[strings.ToLower(strings.TrimSpace(filter))]
	if !ok {
		return nil, errs.Field("filter", "filter must be all, requests or alerts")
	}
	limit, err := checkLimit(limit)
	if err != nil {
		return nil, err
	}
	out := []Notification{}
	err = s.reader(ctx).SelectContext(ctx, &out, `SELECT id, message, is_new, created_at FROM notifications
		WHERE user_id = $1`+cond+` ORDER BY id DESC LIMIT $2`, a.UserID, limit)
	return out, errs.Wrap(err, "list notifications")
}

// MarkNotificationRead marks one of the caller's notifications read. Anyone
// else's answers 404, as a missing one does.
//
// Returns unauthenticated (401, no signed-in user) or notification_not_found
// (404).
func (s *Service) MarkNotificationRead(ctx context.Context, a Actor, id int64) error {
	if a.UserID == 0 {
		return errs.ErrUnauthenticated
	}
	if id <= 0 {
		return errNotificationNotFound
	}
	res, err := s.execWrite(ctx, `UPDATE notifications SET is_new = false WHERE id = $1 AND user_id = $2`, id, a.UserID)
	if err != nil {
		return errs.Wrap(err, "mark read")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errNotificationNotFound
	}
	return nil
}

// MarkAllNotificationsRead marks every notification of the caller read.
//
// Returns unauthenticated (401) when no user is signed in.
func (s *Service) MarkAllNotificationsRead(ctx context.Context, a Actor) error {
	if a.UserID == 0 {
		return errs.ErrUnauthenticated
	}
	_, err := s.execWrite(ctx, `UPDATE notifications SET is_new = false WHERE user_id = $1 AND is_new`, a.UserID)
	return errs.Wrap(err, "mark all read")
}
