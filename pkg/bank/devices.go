package bank

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
)

// Device is a phone that receives push notifications for its session: the
// app registers its Expo push token after sign-in (POST /api/user/devices)
// and removes it at sign-out. A device is tied to the session that
// registered it, so a session that ends, however it ends, sends no more
// pushes (pusher.go joins the live sessions).
type Device struct {
	ID        int64     `json:"id" db:"id"`
	Platform  string    `json:"platform" db:"platform"`
	PushToken string    `json:"push_token" db:"push_token"`
	Current   bool      `json:"current" db:"current"` // registered by the session asking
	CreatedAt time.Time `json:"created_at" db:"created_at"`
}

// DeviceInput is the body of POST /api/user/devices.
type DeviceInput struct {
	PushToken string `json:"push_token"`
	Platform  string `json:"platform"` // ios or android
}

// expoPushToken is what Expo's getExpoPushTokenAsync returns.
var expoPushToken = regexp.MustCompile(`^Expo(nent)?PushToken\[[A-Za-z0-9_-]{1,200}\]$`)

var (
	errDeviceNotFound   = errs.E(errs.NotFound, "device_not_found", "Device not found")
	errDeviceNeedsLogin = errs.E(errs.Invalid, "session_required", "Only a signed-in session of the app can register a device")
)

// selectDevice reads Device for the session jti $1; callers add WHERE.
const selectDevice = `SELECT id, platform, push_token, token_jti = $1::uuid AS current, created_at FROM devices`

// RegisterDevice ties a push token to the actor's session (any signed-in
// user), audited in the same transaction. Registering a token again moves
// it to this session (and user): a token belongs to one session at a time.
// Registering is idempotent: the same token from the same session answers
// the same device.
//
// Returns session_required (400: no session behind the actor, as for the
// CLI) or invalid_input (400: a push token that is not an Expo push token,
// or a platform other than ios and android).
func (s *Service) RegisterDevice(ctx context.Context, a Actor, in DeviceInput) (Device, error) {
	if a.TokenID == "" {
		return Device{}, errDeviceNeedsLogin
	}
	if !expoPushToken.MatchString(in.PushToken) {
		return Device{}, errs.Field("push_token", "push_token must be an Expo push token (ExponentPushToken[...])")
	}
	if in.Platform != "ios" && in.Platform != "android" {
		return Device{}, errs.Field("platform", "platform must be ios or android")
	}
	var out Device
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var id int64
		var moved bool
		err := tx.QueryRowxContext(ctx, `
			INSERT INTO devices (user_id, token_jti, push_token, platform, created_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (push_token) DO UPDATE SET user_id = EXCLUDED.user_id, token_jti = EXCLUDED.token_jti,
				platform = EXCLUDED.platform, created_at = EXCLUDED.created_at
			WHERE devices.token_jti IS DISTINCT FROM EXCLUDED.token_jti OR devices.platform <> EXCLUDED.platform
			RETURNING id, xmax <> 0`, a.UserID, a.TokenID, in.PushToken, in.Platform, s.now()).Scan(&id, &moved)
		switch {
		case notFound(err): // already this session's, unchanged
			return errs.Wrap(tx.GetContext(ctx, &out, selectDevice+` WHERE push_token = $2`, a.TokenID, in.PushToken), "read device")
		case err != nil:
			return errs.Wrap(err, "register device")
		}
		action := "DEVICE_REGISTER"
		if moved {
			action = "DEVICE_MOVE"
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: action, Table: "devices",
			Description: fmt.Sprintf("Registered an %s device for push notifications (device %d)", in.Platform, id)}); err != nil {
			return err
		}
		return errs.Wrap(tx.GetContext(ctx, &out, selectDevice+` WHERE id = $2`, a.TokenID, id), "read device")
	})
	return out, err
}

// ListDevices returns the devices of the actor's live sessions, newest first.
func (s *Service) ListDevices(ctx context.Context, a Actor) ([]Device, error) {
	out := []Device{}
	err := s.db.SelectContext(ctx, &out, `
		SELECT d.id, d.platform, d.push_token, COALESCE(d.token_jti = $1::uuid, false) AS current, d.created_at
		FROM devices d JOIN auth_tokens t ON t.jti = d.token_jti
		WHERE d.user_id = $2 AND t.revoked_at IS NULL AND t.expires_at > $3
		ORDER BY d.id DESC`, nullableUUID(a.TokenID), a.UserID, s.now())
	return out, errs.Wrap(err, "list devices")
}

// RemoveDevice stops pushes to one of the actor's devices, audited in the
// same transaction. Anyone else's device answers 404, exactly as a missing one.
//
// Returns device_not_found (404).
func (s *Service) RemoveDevice(ctx context.Context, a Actor, id int64) error {
	if id <= 0 {
		return errDeviceNotFound
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var platform string
		err := tx.GetContext(ctx, &platform, `DELETE FROM devices WHERE id = $1 AND user_id = $2 RETURNING platform`, id, a.UserID)
		if notFound(err) {
			return errDeviceNotFound
		}
		if err != nil {
			return errs.Wrap(err, "remove device")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "DEVICE_REMOVE", Table: "devices",
			Description: fmt.Sprintf("Removed an %s device from push notifications (device %d)", platform, id)})
	})
}

// nullableUUID is a session id for a query, NULL for none (the CLI).
func nullableUUID(id string) any {
	if id == "" {
		return nil
	}
	return id
}

// presenceStale is how old an instance's word that a user has a socket open
// may be before the pusher stops believing it (an instance that died).
const presenceStale = 15 * time.Second

// PublishPresence records that this instance (a random id per serve
// process) holds WebSockets of exactly these users now: the pusher sends
// their notifications over the sockets and pushes nothing. Rows of users
// that are gone from the list are deleted. One statement, off every money path.
//
// Returns only internal errors (the database failed).
func (s *Service) PublishPresence(ctx context.Context, instance string, users []int64) error {
	if users == nil {
		users = []int64{} // an empty array, not NULL: NOT (user_id = ANY(NULL)) deletes nothing
	}
	_, err := s.db.ExecContext(ctx, `
		WITH gone AS (DELETE FROM live_presence WHERE instance = $1::uuid AND NOT (user_id = ANY($2::bigint[])))
		INSERT INTO live_presence (user_id, instance, seen_at) SELECT u, $1::uuid, now() FROM unnest($2::bigint[]) u
		ON CONFLICT (user_id, instance) DO UPDATE SET seen_at = now()`, instance, pq.Array(users))
	return errs.Wrap(err, "publish presence")
}

// ClearPresence forgets this instance's sockets (serve stops).
//
// Returns only internal errors (the database failed).
func (s *Service) ClearPresence(ctx context.Context, instance string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM live_presence WHERE instance = $1::uuid`, instance)
	return errs.Wrap(err, "clear presence")
}
