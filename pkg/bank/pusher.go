package bank

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"meridian/pkg/errs"
)

// The pusher sends notifications to phones whose user has no WebSocket open
// (the app is in the background or closed): money received, requests and
// their answers, scheduled runs — every notification a money change stores.
// It reads the sealed notification feed (events.go) after the money
// transactions have committed, exactly as the WebSocket hub does, so nothing
// of a push runs inside a money transaction. One serve instance at a time
// holds the feed's push cursor (push_cursor, FOR UPDATE SKIP LOCKED): each
// notification is considered once, however many instances run. Pushes go to
// the Expo push API (config push_url) in batches of up to 100 messages.

// DefaultPushURL is Expo's push API, push_url's default.
const DefaultPushURL = "https://exp.host/--/api/v2/push/send"

const (
	pushBatch        = 500              // feed rows one round reads at most
	pushChunk        = 100              // messages per request (Expo's limit)
	pushMaxAge       = 10 * time.Minute // older notifications (a pusher that was down) are not pushed
	pushHTTPTimeout  = 5 * time.Second
	pushTitle        = "Meridian"
	pushDefaultEvery = time.Second
)

// PushOptions configure RunPusher and PushRound.
type PushOptions struct {
	URL      string        // the Expo push API; empty: no pushes
	Client   *http.Client  // nil: one with a 5 s timeout
	Interval time.Duration // how often RunPusher reads the feed; <= 0: 1 s
	Log      *slog.Logger
	// Live reports whether this instance holds a WebSocket of the user now
	// (the hub); other instances' sockets are read from live_presence.
	Live func(userID int64) bool
}

// PushStats counts what this process's pusher did.
type PushStats struct {
	Sent   int64 // messages Expo accepted
	Failed int64 // messages refused or not delivered to Expo
	Gone   int64 // devices removed because Expo says they are no longer registered
}

type pushCounters struct{ sent, failed, gone atomic.Int64 }

// PushStats reports what this process's pusher sent.
func (s *Service) PushStats() PushStats {
	return PushStats{Sent: s.pushes.sent.Load(), Failed: s.pushes.failed.Load(), Gone: s.pushes.gone.Load()}
}

// pushRow is one message to send: a notification for one device.
type pushRow struct {
	Seq            int64  `db:"seq"`
	NotificationID int64  `db:"notification_id"`
	UserID         int64  `db:"user_id"`
	Message        string `db:"message"`
	DeviceID       int64  `db:"device_id"`
	PushToken      string `db:"push_token"`
}

// expoMessage is one message of the Expo push API.
type expoMessage struct {
	To        string         `json:"to"`
	Title     string         `json:"title"`
	Body      string         `json:"body"`
	Sound     string         `json:"sound"`
	Priority  string         `json:"priority"`
	ChannelID string         `json:"channelId"`
	Data      map[string]any `json:"data"`
}

// expoTicket is Expo's answer for one message.
type expoTicket struct {
	Status  string `json:"status"` // ok or error
	Message string `json:"message"`
	Details struct {
		Error string `json:"error"` // DeviceNotRegistered, MessageTooBig, ...
	} `json:"details"`
}

// RunPusher pushes new notifications every o.Interval until ctx ends.
// Failures (the database or Expo unreachable) are logged once and retried.
func (s *Service) RunPusher(ctx context.Context, o PushOptions) {
	if o.URL == "" {
		return
	}
	if o.Interval <= 0 {
		o.Interval = pushDefaultEvery
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	t := time.NewTicker(o.Interval)
	defer t.Stop()
	failing := false
	for {
		_, err := s.PushRound(ctx, o)
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			o.Log.Warn("push notifications failed; retrying", "err", err)
			failing = true
		case err == nil && failing:
			o.Log.Info("push notifications again")
			failing = false
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// PushRound claims the push cursor (unless another instance holds it),
// pushes the notifications sealed after it to the devices of the users who
// have no WebSocket open anywhere, and moves the cursor past them. It
// returns how many messages Expo accepted. Pushes are best effort: a
// message Expo refuses is counted and not retried, and a device Expo no
// longer knows is removed. A notification older than 10 minutes (the
// pushers were down) is not pushed.
//
// Returns only internal errors (the database failed).
func (s *Service) PushRound(ctx context.Context, o PushOptions) (int, error) {
	if o.URL == "" {
		return 0, nil
	}
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, errs.Wrap(err, "push: begin")
	}
	defer tx.Rollback()
	var last int64
	err = tx.GetContext(ctx, &last, `SELECT last_seq FROM push_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED`)
	if notFound(err) {
		return 0, nil // another instance is pushing
	}
	if err != nil {
		return 0, errs.Wrap(err, "push: cursor")
	}
	var upper sql.NullInt64
	err = tx.GetContext(ctx, &upper, `SELECT max(seq) FROM (SELECT seq FROM notification_feed WHERE seq > $1 ORDER BY seq LIMIT $2) f`, last, pushBatch)
	if err != nil {
		return 0, errs.Wrap(err, "push: feed")
	}
	if !upper.Valid {
		return 0, nil
	}
	var rows []pushRow
	err = tx.SelectContext(ctx, &rows, `
		SELECT f.seq, n.id AS notification_id, n.user_id, n.message, d.id AS device_id, d.push_token
		FROM notification_feed f
		JOIN notifications n ON n.id = f.notification_id
		JOIN users u ON u.id = n.user_id AND u.is_active
		JOIN devices d ON d.user_id = n.user_id
		JOIN auth_tokens t ON t.jti = d.token_jti AND t.revoked_at IS NULL AND t.expires_at > now()
		WHERE f.seq > $1 AND f.seq <= $2 AND n.created_at > now() - $3::interval
		  AND NOT EXISTS (SELECT 1 FROM live_presence p WHERE p.user_id = n.user_id AND p.seen_at > now() - $4::interval)
		ORDER BY f.seq, d.id`, last, upper.Int64, pgInterval(pushMaxAge), pgInterval(presenceStale))
	if err != nil {
		return 0, errs.Wrap(err, "push: read")
	}
	if o.Live != nil {
		kept := rows[:0]
		for _, r := range rows {
			if !o.Live(r.UserID) {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	sent := 0
	for start := 0; start < len(rows); start += pushChunk {
		chunk := rows[start:min(start+pushChunk, len(rows))]
		ok, gone := s.sendPushes(ctx, o, chunk)
		sent += ok
		if len(gone) > 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM devices WHERE id = ANY($1::bigint[])`, pq.Array(gone)); err != nil {
				return sent, errs.Wrap(err, "push: forget devices")
			}
			s.pushes.gone.Add(int64(len(gone)))
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE push_cursor SET last_seq = $1 WHERE id = 1`, upper.Int64); err != nil {
		return sent, errs.Wrap(err, "push: move cursor")
	}
	return sent, errs.Wrap(tx.Commit(), "push: commit")
}

// sendPushes posts one chunk to the Expo push API and returns how many
// messages it accepted and the devices it reports as no longer registered.
func (s *Service) sendPushes(ctx context.Context, o PushOptions, rows []pushRow) (int, []int64) {
	msgs := make([]expoMessage, len(rows))
	for i, r := range rows {
		msgs[i] = expoMessage{To: r.PushToken, Title: pushTitle, Body: r.Message, Sound: "default", Priority: "high",
			ChannelID: "default", Data: map[string]any{"notification_id": r.NotificationID}}
	}
	tickets, err := postExpo(ctx, o, msgs)
	if err != nil {
		s.pushes.failed.Add(int64(len(rows)))
		if o.Log != nil {
			o.Log.Warn("push notifications not delivered to the push service", "messages", len(rows), "err", err)
		}
		return 0, nil
	}
	ok := 0
	var gone []int64
	for i, r := range rows {
		if i >= len(tickets) {
			s.pushes.failed.Add(1)
			continue
		}
		switch t := tickets[i]; {
		case t.Status == "ok":
			ok++
			s.pushes.sent.Add(1)
		case t.Details.Error == "DeviceNotRegistered":
			gone = append(gone, r.DeviceID)
			s.pushes.failed.Add(1)
		default:
			s.pushes.failed.Add(1)
		}
	}
	return ok, gone
}

// postExpo sends messages to the push API and returns its tickets, one per message.
func postExpo(ctx context.Context, o PushOptions, msgs []expoMessage) ([]expoTicket, error) {
	body, err := json.Marshal(msgs)
	if err != nil {
		return nil, err
	}
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: pushHTTPTimeout}
	}
	ctx, cancel := context.WithTimeout(ctx, pushHTTPTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode/100 != 2 {
		return nil, fmt.Errorf("push service answered %d", res.StatusCode)
	}
	var answer struct {
		Data []expoTicket `json:"data"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return nil, fmt.Errorf("push service: unreadable answer: %w", err)
	}
	return answer.Data, nil
}

// pgInterval writes d as a PostgreSQL interval.
func pgInterval(d time.Duration) string { return fmt.Sprintf("%d milliseconds", d.Milliseconds()) }
