package bank

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
)

// Webhooks (contract §9), per the Standard Webhooks specification
// (standardwebhooks.com). A customer registers an https endpoint for some of
// WebhookEvents and gets its signing secret once. What happens is written
// as webhook_events rows by triggers, in the transaction that does it
// (migrations/0026); after commit webhook_seal() numbers them in commit
// order (webhook_feed); serve's dispatcher (RunWebhooks) then sends each
// endpoint its events one by one in seq order, each signed
// (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256
// of "id.timestamp.body">). Only a 2xx within 5 s counts: anything else is
// tried again with exponential backoff (5 s, doubling, at most an hour) for
// 24 hours, then the endpoint is marked failing and its owner told. The
// next event waits for the one before it, so an endpoint sees them in
// order; a delivery whose answer was lost is sent again (at least once:
// webhook-id stays the same, for the receiver to drop repeats). Nothing of
// it runs inside a money transaction.

// WebhookEvents are the events an endpoint may ask for.
var WebhookEvents = []string{
	"transaction.created",
	"money_request.created", "money_request.accepted", "money_request.declined", "money_request.expired",
	"scheduled_transfer.run",
}

// Webhook delivery's defaults (Settings may shorten them for tests).
const (
	DefaultWebhookRetryBase = 5 * time.Second
	DefaultWebhookRetryMax  = time.Hour
	DefaultWebhookRetryFor  = 24 * time.Hour
	webhookTimeout          = 5 * time.Second
	maxWebhooksPerUser      = 10
	webhookLease            = time.Minute
)

// Webhook is an endpoint as its owner sees it; Secret only when created.
type Webhook struct {
	ID        int64     `json:"id" db:"id"`
	URL       string    `json:"url" db:"url"`
	Events    []string  `json:"events" db:"-"`
	Status    string    `json:"status" db:"status"`
	CreatedAt time.Time `json:"created_at" db:"created_at"`
	Secret    string    `json:"secret,omitempty" db:"-"`
}

// WebhookInput is the body of POST /api/user/webhooks.
type WebhookInput struct {
	URL    string   `json:"url"`
	Events []string `json:"events"`
}

// WebhookDelivery is one attempt in an endpoint's delivery log.
type WebhookDelivery struct {
	EventID     int64     `json:"event_id" db:"event_id"`
	Event       string    `json:"event" db:"event"`
	StatusCode  *int      `json:"status_code" db:"status_code"`
	Attempt     int       `json:"attempt" db:"attempt"`
	DeliveredAt time.Time `json:"delivered_at" db:"delivered_at"`
	Error       *string   `json:"error" db:"error"`
}

var (
	errWebhookNotFound = errs.E(errs.NotFound, "webhook_not_found", "Webhook not found")
	errEventNotFound   = errs.E(errs.NotFound, "webhook_event_not_found", "That event was never sent to this webhook")
)

// webhooks is the service's webhook machinery.
type webhooks struct {
	box    sealBox
	client *http.Client
	poke   chan struct{}
	// recheck: an endpoint was made here; the dispatcher asks again at once
	// whether any exists.
	recheck atomic.Bool
	// What this process's dispatcher did, for /metrics.
	delivered, failed, markedFailing atomic.Int64
}

// WebhookStats is what this process's dispatcher did.
type WebhookStats struct{ Delivered, Failed, MarkedFailing int64 }

// WebhookStats reports the deliveries this process made (for /metrics).
func (s *Service) WebhookStats() WebhookStats {
	return WebhookStats{Delivered: s.hooks.delivered.Load(), Failed: s.hooks.failed.Load(), MarkedFailing: s.hooks.markedFailing.Load()}
}

func newWebhooks(key []byte, s Settings) *webhooks {
	return &webhooks{box: newSealBox(key), client: webhookClient(s.WebhookAllowPrivate, s.WebhookRootCAs), poke: make(chan struct{}, 1)}
}

// webhookClient sends deliveries: no proxy (it would go around the address
// check), no redirects (a 3xx is no 2xx), 5 s for the whole exchange, and
// every connection checked where it is made, after DNS, so a name that
// resolves elsewhere later (DNS rebinding) still reaches no private address.
func webhookClient(allowPrivate bool, roots *x509.CertPool) *http.Client {
	d := &net.Dialer{Timeout: webhookTimeout, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return err
		}
		if !allowPrivate && blockedAddr(ip) {
			return fmt.Errorf("%s is not a public address", ip)
		}
		return nil
	}}
	tr := &http.Transport{Proxy: nil, DialContext: d.DialContext, TLSHandshakeTimeout: webhookTimeout,
		TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: 2, IdleConnTimeout: time.Minute}
	return &http.Client{Transport: tr, Timeout: webhookTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var (
	sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork        = netip.MustParsePrefix("0.0.0.0/8")
	benchmarking       = netip.MustParsePrefix("198.18.0.0/15")
	broadcast          = netip.MustParseAddr("255.255.255.255")
)

// blockedAddr reports an address a webhook may not reach: loopback,
// private, link-local (the cloud metadata service 169.254.169.254 among
// them; fd00:ec2::254 is private), unspecified, multicast, shared or
// reserved.
func blockedAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || ip == broadcast ||
		sharedAddressSpace.Contains(ip) || thisNetwork.Contains(ip) || benchmarking.Contains(ip)
}

func errWebhookURL(why string) error {
	return &errs.Error{Kind: errs.Invalid, Code: "webhook_url_refused", Message: "url " + why, Fields: map[string]string{"url": "url " + why}}
}

// checkWebhookURL refuses a URL that is not https, or whose host is (or
// resolves to) an address blockedAddr names, unless allowPrivate.
func checkWebhookURL(ctx context.Context, raw string, allowPrivate bool) (string, error) {
	raw, err := clean("url", raw, 2048, true)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", errWebhookURL("must be an absolute https URL")
	}
	if u.Scheme != "https" {
		return "", errWebhookURL("must start with https://")
	}
	if u.User != nil {
		return "", errWebhookURL("must not hold a user name or password")
	}
	u.Fragment = ""
	host := u.Hostname()
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		addrs, err = net.DefaultResolver.LookupNetIP(rctx, "ip", host)
		cancel()
		if err != nil || len(addrs) == 0 {
			return "", errWebhookURL("names a host that does not resolve")
		}
	}
	if !allowPrivate {
		for _, ip := range addrs {
			if blockedAddr(ip) {
				return "", errWebhookURL("must reach a public address, not a loopback, private, link-local or metadata one")
			}
		}
	}
	return u.String(), nil
}

func checkWebhookEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, errs.Field("events", "events must name at least one event")
	}
	out := []string{}
	for _, e := range events {
		if !slices.Contains(WebhookEvents, e) {
			return nil, errs.Field("events", "Unknown event "+quoteShort(e)+"; events are "+strings.Join(WebhookEvents, ", "))
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// newWebhookSecret is whsec_ + base64 of 24 random bytes, the form the
// Standard Webhooks libraries read.
func newWebhookSecret() (string, error) {
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(raw), nil
}

func webhookAAD(id int64) []byte {
	return []byte("meridian webhook secret of endpoint " + strconv.FormatInt(id, 10))
}

// CreateWebhook registers an endpoint of the actor's for events; its first
// event is the first that happens after it.
//
// Returns customer_only (403), insufficient_scope (403), invalid_input,
// webhook_url_refused (400) or too_many_webhooks (422).
func (s *Service) CreateWebhook(ctx context.Context, a Actor, in WebhookInput) (Webhook, error) {
	if err := requireCustomer(a); err != nil {
		return Webhook{}, err
	}
	events, err := checkWebhookEvents(in.Events)
	if err != nil {
		return Webhook{}, err
	}
	u, err := checkWebhookURL(ctx, in.URL, s.settings.WebhookAllowPrivate)
	if err != nil {
		return Webhook{}, err
	}
	secret, err := newWebhookSecret()
	if err != nil {
		return Webhook{}, errs.Wrap(err, "webhook secret")
	}
	// Events sealed until now happened before the endpoint. webhook_seal
	// answers NULL while another seal runs (it never waits): ask again.
	var head int64
	for {
		var h sql.NullInt64
		if err := s.db.GetContext(ctx, &h, `SELECT webhook_seal()`); err != nil {
			return Webhook{}, errs.Wrap(err, "seal webhook events")
		}
		if h.Valid {
			head = h.Int64
			break
		}
		select {
		case <-ctx.Done():
			return Webhook{}, errs.Wrap(ctx.Err(), "seal webhook events")
		case <-time.After(5 * time.Millisecond):
		}
	}
	w := Webhook{URL: u, Events: events, Status: "active", Secret: secret}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var n int
		// The user's row is locked: two creations at once count each other.
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM webhooks WHERE user_id = (SELECT id FROM users WHERE id = $1 FOR UPDATE) AND deleted_at IS NULL`, a.UserID); err != nil {
			return errs.Wrap(err, "count webhooks")
		}
		if n >= maxWebhooksPerUser {
			return errs.E(errs.Unprocessable, "too_many_webhooks", fmt.Sprintf("You have %d webhooks already; delete one first", n))
		}
		if err := tx.GetContext(ctx, &w.ID, `SELECT nextval(pg_get_serial_sequence('webhooks', 'id'))`); err != nil {
			return errs.Wrap(err, "webhook id")
		}
		sealed, err := s.hooks.box.seal(webhookAAD(w.ID), []byte(secret))
		if err != nil {
			return errs.Wrap(err, "seal secret")
		}
		if err := tx.GetContext(ctx, &w.CreatedAt, `
			INSERT INTO webhooks (id, user_id, url, events, sealed_secret, cursor) OVERRIDING SYSTEM VALUE
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`, w.ID, a.UserID, u, pq.Array(events), sealed, head); err != nil {
			return errs.Wrap(err, "insert webhook")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "WEBHOOK_CREATE", Table: "webhooks",
			Description: fmt.Sprintf("Registered webhook %d for %s", w.ID, strings.Join(events, ", "))})
	})
	if err == nil {
		s.hooks.recheck.Store(true)
		s.pokeWebhooks()
	}
	return w, err
}

// ListWebhooks returns the actor's endpoints, newest first, without secrets.
//
// Returns customer_only (403).
func (s *Service) ListWebhooks(ctx context.Context, a Actor) ([]Webhook, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	var rows []struct {
		Webhook
		Events pq.StringArray `db:"events"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT id, url, events, status, created_at FROM webhooks
		WHERE user_id = $1 AND deleted_at IS NULL ORDER BY id DESC`, a.UserID); err != nil {
		return nil, errs.Wrap(err, "list webhooks")
	}
	out := make([]Webhook, len(rows))
	for i, r := range rows {
		out[i] = r.Webhook
		out[i].Events = []string(r.Events)
	}
	return out, nil
}

// ownWebhook returns the id of the actor's endpoint id, or webhook_not_found.
func (s *Service) ownWebhook(ctx context.Context, a Actor, id int64) error {
	if err := requireCustomer(a); err != nil {
		return err
	}
	var ok bool
	err := s.db.GetContext(ctx, &ok, `SELECT true FROM webhooks WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL`, id, a.UserID)
	if notFound(err) {
		return errWebhookNotFound
	}
	return errs.Wrap(err, "find webhook")
}

// DeleteWebhook stops an endpoint's deliveries for good.
//
// Returns customer_only (403) or webhook_not_found (404).
func (s *Service) DeleteWebhook(ctx context.Context, a Actor, id int64) error {
	if err := s.ownWebhook(ctx, a, id); err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET deleted_at = now() WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL`, id, a.UserID)
		if err != nil {
			return errs.Wrap(err, "delete webhook")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errWebhookNotFound
		}
		return audit(ctx, tx, a, AuditEntry{Action: "WEBHOOK_DELETE", Table: "webhooks", Description: fmt.Sprintf("Deleted webhook %d", id)})
	})
}

// WebhookDeliveries returns the endpoint's last 100 delivery attempts, newest first.
//
// Returns customer_only (403) or webhook_not_found (404).
func (s *Service) WebhookDeliveries(ctx context.Context, a Actor, id int64) ([]WebhookDelivery, error) {
	if err := s.ownWebhook(ctx, a, id); err != nil {
		return nil, err
	}
	out := []WebhookDelivery{}
	err := s.db.SelectContext(ctx, &out, `SELECT event_id, event, status_code, attempt, delivered_at, error
		FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id DESC LIMIT 100`, id)
	return out, errs.Wrap(err, "webhook deliveries")
}

// RedeliverWebhook sends an event this endpoint was sent (or is due) once
// more, soon, out of its order; an endpoint marked failing is made active
// again, and its retries start anew from the event it stopped at.
//
// Returns customer_only (403), webhook_not_found or webhook_event_not_found (404).
func (s *Service) RedeliverWebhook(ctx context.Context, a Actor, id, eventID int64) error {
	if err := s.ownWebhook(ctx, a, id); err != nil {
		return err
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `
			INSERT INTO webhook_redeliveries (webhook_id, event_id)
			SELECT w.id, f.event_id FROM webhooks w JOIN webhook_feed f ON f.user_id = w.user_id JOIN webhook_events e ON e.id = f.event_id
			WHERE w.id = $1 AND f.event_id = $2 AND e.type = ANY (w.events)
			ON CONFLICT DO NOTHING`, id, eventID)
		if err != nil {
			return errs.Wrap(err, "queue redelivery")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var queued bool
			if err := tx.GetContext(ctx, &queued, `SELECT EXISTS (SELECT 1 FROM webhook_redeliveries WHERE webhook_id = $1 AND event_id = $2)`, id, eventID); err != nil || !queued {
				return errEventNotFound
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhooks SET status = 'active', attempt = 0, next_attempt_at = now(), failing_since = NULL
			WHERE id = $1 AND status = 'failing'`, id); err != nil {
			return errs.Wrap(err, "reactivate webhook")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "WEBHOOK_REDELIVER", Table: "webhooks", Description: fmt.Sprintf("Asked webhook %d to redeliver event %d", id, eventID)})
	})
	if err == nil {
		s.pokeWebhooks()
	}
	return err
}

// PokeWebhooks wakes this process's dispatcher (never blocks): the hub
// calls it on every seal announced by any instance, since a transaction
// that wrote webhook events wrote audit rows too.
func (s *Service) PokeWebhooks() { s.pokeWebhooks() }

// pokeWebhooks wakes this process's dispatcher (never blocks).
func (s *Service) pokeWebhooks() {
	select {
	case s.hooks.poke <- struct{}{}:
	default:
	}
}

// webhookMessage is the body of a delivery.
type webhookMessage struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// claimed is an endpoint the dispatcher holds for a while (its lease).
type claimed struct {
	ID           int64          `db:"id"`
	UserID       int64          `db:"user_id"`
	URL          string         `db:"url"`
	Events       pq.StringArray `db:"events"`
	SealedSecret []byte         `db:"sealed_secret"`
	Cursor       int64          `db:"cursor"`
	Attempt      int            `db:"attempt"`
	FailingSince *time.Time     `db:"failing_since"`
	Lease        string         `db:"lease_id"`
}

type feedEvent struct {
	Seq       int64           `db:"seq"`
	ID        int64           `db:"id"`
	Type      string          `db:"type"`
	Data      json.RawMessage `db:"data"`
	CreatedAt time.Time       `db:"created_at"`
}

// RunWebhooks delivers webhooks until ctx ends: it seals the new events, then
// claims the endpoints that have something due (FOR UPDATE SKIP LOCKED and a
// lease, so instances share them and one endpoint is served by one instance
// at a time, in order), on each commit of this process and at least every
// interval.
func (s *Service) RunWebhooks(ctx context.Context, interval time.Duration, log *slog.Logger) {
	if interval <= 0 {
		interval = time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	var failing outage
	// Whether any endpoint exists, asked at most once an interval: with
	// none, no event is written (the triggers write only for users with
	// one), and the pokes of every seal cost no query. An endpoint made on
	// this instance wakes the dispatcher at once; one made on another is
	// seen within interval.
	var any bool
	var asked time.Time
	for {
		if time.Since(asked) >= interval || s.hooks.recheck.Swap(false) {
			err := s.db.GetContext(ctx, &any, `SELECT EXISTS (SELECT 1 FROM webhooks WHERE deleted_at IS NULL)`)
			asked = time.Now()
			any = any || err != nil // a failing database is reported by DeliverWebhooks
		}
		if any {
			failing.report(ctx, log, s.DeliverWebhooks(ctx), "delivering webhooks")
		}
		select {
		case <-ctx.Done():
			return
		case <-s.hooks.poke:
		case <-t.C:
		}
	}
}

// DeliverWebhooks runs one round of the dispatcher: seal, then deliver what
// is due, endpoints in parallel, each endpoint's events in order.
//
// Returns only internal errors (the database failed).
func (s *Service) DeliverWebhooks(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `SELECT webhook_seal()`); err != nil {
		return errs.Wrap(err, "seal webhook events")
	}
	var due []claimed
	err := s.db.SelectContext(ctx, &due, `
		UPDATE webhooks w SET lease_id = $1, lease_until = now() + make_interval(secs => $2)
		WHERE w.id IN (
			SELECT x.id FROM webhooks x
			WHERE x.deleted_at IS NULL AND (x.lease_until IS NULL OR x.lease_until < now())
			  AND ((x.status = 'active' AND x.next_attempt_at <= now() AND EXISTS (
					SELECT 1 FROM webhook_feed f JOIN webhook_events e ON e.id = f.event_id
					WHERE f.user_id = x.user_id AND f.seq > x.cursor AND e.type = ANY (x.events)))
				OR EXISTS (SELECT 1 FROM webhook_redeliveries r WHERE r.webhook_id = x.id))
			ORDER BY x.next_attempt_at LIMIT 32
			FOR UPDATE SKIP LOCKED)
		RETURNING w.id, w.user_id, w.url, w.events, w.sealed_secret, w.cursor, w.attempt, w.failing_since, w.lease_id`,
		uuid.NewString(), webhookLease.Seconds())
	if err != nil {
		return errs.Wrap(err, "claim webhooks")
	}
	var wg sync.WaitGroup
	errc := make(chan error, len(due))
	for _, c := range due {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.serveEndpoint(ctx, c); err != nil {
				errc <- err
			}
		}()
	}
	wg.Wait()
	close(errc)
	return <-errc
}

// serveEndpoint sends a claimed endpoint its redeliveries, then its due
// events in seq order until one fails, nothing is left, or the lease runs
// short; then gives the endpoint back.
func (s *Service) serveEndpoint(ctx context.Context, c claimed) error {
	deadline := time.Now().Add(webhookLease - 2*webhookTimeout)
	sealed, err := s.hooks.box.open(webhookAAD(c.ID), c.SealedSecret)
	if err != nil {
		return errs.Wrap(err, "webhook %d secret", c.ID)
	}
	secret, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(string(sealed), "whsec_"))
	if err != nil {
		return errs.Wrap(err, "webhook %d secret", c.ID)
	}
	defer s.db.ExecContext(context.WithoutCancel(ctx), `UPDATE webhooks SET lease_id = NULL, lease_until = NULL WHERE id = $1 AND lease_id = $2`, c.ID, c.Lease)
	var redo []feedEvent
	if err := s.db.SelectContext(ctx, &redo, `
		SELECT f.seq, e.id, e.type, e.data, e.created_at FROM webhook_redeliveries r
		JOIN webhook_events e ON e.id = r.event_id JOIN webhook_feed f ON f.event_id = e.id
		WHERE r.webhook_id = $1 ORDER BY f.seq`, c.ID); err != nil {
		return errs.Wrap(err, "redeliveries")
	}
	for _, ev := range redo {
		code, derr := s.send(ctx, c, secret, ev)
		if err := s.logDelivery(ctx, c, ev, 0, code, derr); err != nil {
			return err
		}
		if _, err := s.db.ExecContext(ctx, `DELETE FROM webhook_redeliveries WHERE webhook_id = $1 AND event_id = $2`, c.ID, ev.ID); err != nil {
			return errs.Wrap(err, "redelivered")
		}
	}
	var st struct {
		Status string    `db:"status"`
		Next   time.Time `db:"next_attempt_at"`
		Now    time.Time `db:"now"`
	}
	if err := s.db.GetContext(ctx, &st, `SELECT status, next_attempt_at, now() FROM webhooks WHERE id = $1`, c.ID); err != nil {
		return errs.Wrap(err, "webhook state")
	}
	if st.Status != "active" || st.Next.After(st.Now) {
		return nil
	}
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var ev feedEvent
		err := s.db.GetContext(ctx, &ev, `
			SELECT f.seq, e.id, e.type, e.data, e.created_at FROM webhook_feed f JOIN webhook_events e ON e.id = f.event_id
			WHERE f.user_id = $1 AND f.seq > $2 AND e.type = ANY ($3) ORDER BY f.seq LIMIT 1`, c.UserID, c.Cursor, c.Events)
		if notFound(err) {
			return nil
		}
		if err != nil {
			return errs.Wrap(err, "next webhook event")
		}
		code, derr := s.send(ctx, c, secret, ev)
		c.Attempt++
		if err := s.logDelivery(ctx, c, ev, c.Attempt, code, derr); err != nil {
			return err
		}
		if derr == nil {
			if _, err := s.db.ExecContext(ctx, `UPDATE webhooks SET cursor = $3, attempt = 0, failing_since = NULL, next_attempt_at = now()
				WHERE id = $1 AND lease_id = $2`, c.ID, c.Lease, ev.Seq); err != nil {
				return errs.Wrap(err, "advance webhook")
			}
			c.Cursor, c.Attempt, c.FailingSince = ev.Seq, 0, nil
			continue
		}
		return s.deliveryFailed(ctx, c)
	}
	return nil
}

// deliveryFailed schedules the next attempt of the endpoint's head event,
// or, 24 hours after its first failure, marks the endpoint failing and tells
// its owner (in one transaction).
func (s *Service) deliveryFailed(ctx context.Context, c claimed) error {
	backoff := s.settings.WebhookRetryBase
	for i := 1; i < c.Attempt && backoff < s.settings.WebhookRetryMax; i++ {
		backoff *= 2
	}
	backoff = min(backoff, s.settings.WebhookRetryMax)
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var giveUp bool
		err := tx.GetContext(ctx, &giveUp, `
			UPDATE webhooks SET attempt = $3, failing_since = coalesce(failing_since, now()),
				next_attempt_at = now() + make_interval(secs => $4),
				status = CASE WHEN coalesce(failing_since, now()) <= now() - make_interval(secs => $5) THEN 'failing' ELSE status END
			WHERE id = $1 AND lease_id = $2
			RETURNING status = 'failing'`, c.ID, c.Lease, c.Attempt, backoff.Seconds(), s.settings.WebhookRetryFor.Seconds())
		if notFound(err) {
			return nil // the lease ran out: another instance has it now
		}
		if err != nil || !giveUp {
			return errs.Wrap(err, "retry webhook")
		}
		s.hooks.markedFailing.Add(1)
		if err := notify(ctx, tx, c.UserID, fmt.Sprintf("Your webhook %s is failing: its deliveries have failed for %s; redeliver an event to try again", c.URL, s.settings.WebhookRetryFor)); err != nil {
			return err
		}
		return audit(ctx, tx, Actor{}, AuditEntry{Action: "WEBHOOK_FAILING", Table: "webhooks", Description: fmt.Sprintf("Webhook %d marked failing after %d attempts", c.ID, c.Attempt)})
	})
}

func (s *Service) logDelivery(ctx context.Context, c claimed, ev feedEvent, attempt int, code int, derr error) error {
	var status, msg any
	if code != 0 {
		status = code
	}
	if derr != nil {
		m := derr.Error()
		if len(m) > 255 {
			m = m[:255]
		}
		msg = strings.ToValidUTF8(m, "?")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO webhook_deliveries (webhook_id, event_id, event, attempt, status_code, error)
		VALUES ($1, $2, $3, $4, $5, $6)`, c.ID, ev.ID, ev.Type, attempt, status, msg)
	return errs.Wrap(err, "log delivery")
}

// send delivers one event, signed; only a 2xx answer is a delivery.
func (s *Service) send(ctx context.Context, c claimed, secret []byte, ev feedEvent) (int, error) {
	body, err := json.Marshal(webhookMessage{Type: ev.Type, Timestamp: ev.CreatedAt.UTC(), Data: ev.Data})
	if err != nil {
		return 0, err
	}
	id := "msg_" + strconv.FormatInt(ev.ID, 10)
	ts := strconv.FormatInt(s.now().Unix(), 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Meridian-Webhooks/1")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", ts)
	req.Header.Set("webhook-signature", "v1,"+SignWebhook(secret, id, ts, body))
	res, err := s.hooks.client.Do(req)
	if err != nil {
		s.hooks.failed.Add(1)
		return 0, fmt.Errorf("no answer: %w", err)
	}
	defer res.Body.Close()
	io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		s.hooks.failed.Add(1)
		return res.StatusCode, fmt.Errorf("answered %d", res.StatusCode)
	}
	s.hooks.delivered.Add(1)
	return res.StatusCode, nil
}

// SignWebhook is the Standard Webhooks signature: base64 of HMAC-SHA256,
// keyed by the secret's bytes, over "id.timestamp.body".
func SignWebhook(secret []byte, id, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(id + "." + timestamp + "."))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}
