package bank

import (
	"strconv"
	"strings"
	"sync"
	"time"
)

// sessionCache keeps the sessions Authenticate has verified in the database,
// so a request whose token was checked a moment ago costs no round trip.
//
// It may answer only while revocations are known to reach it: every change
// that ends a session or changes what it may do (sign-out, password reset,
// deactivation, a role change, a session ended from another device) is
// announced by PostgreSQL on RevokedChannel (triggers of migrations 0004 and
// 0007), and the WebSocket hub's listener hands each announcement to
// ForgetSession. While that listener is not connected the cache is off and
// empty: every request goes to the database, as without a cache. Changes
// made by this process are forgotten here directly, before the call returns,
// so this instance never answers from a stale entry; other instances hear of
// them within the announcement's delay (milliseconds). Entries also expire
// after sessionCacheTTL, a backstop should an announcement ever be missed.
type sessionCache struct {
	mu      sync.Mutex
	on      bool   // a listener is connected: revocations reach this process
	epoch   uint64 // bumped by every forget: a lookup that began before one must not store
	byToken map[string]cachedSession
}

type cachedSession struct {
	actor   Actor
	seen    *seenStamp // its last use this process knows of (sessions.go)
	expires time.Time  // the token's expiry or the TTL, whichever comes first
}

// sessionCacheTTL bounds how long a verified session is believed without
// asking the database again.
const sessionCacheTTL = 30 * time.Second

// sessionCacheMax caps the entries; past it the cache starts afresh.
const sessionCacheMax = 100_000

func newSessionCache() *sessionCache {
	return &sessionCache{byToken: map[string]cachedSession{}}
}

// get returns the cached session of token id jti, and the epoch to hand to
// put after a database lookup when there is none.
func (c *sessionCache) get(jti string, now time.Time) (cachedSession, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on {
		return cachedSession{}, c.epoch, false
	}
	e, ok := c.byToken[jti]
	if !ok || !now.Before(e.expires) {
		return cachedSession{}, c.epoch, false
	}
	return e, c.epoch, true
}

// put stores a session verified in the database by a lookup that began at
// epoch; it is dropped if anything was forgotten since.
func (c *sessionCache) put(a Actor, seen *seenStamp, epoch uint64, expires, now time.Time) {
	c.putKey(a.TokenID, a, seen, epoch, expires, now)
}

// putKey is put under another key than the token id: an access token
// (tokens.go) is found by the hash of its text. Forgetting its token id
// still drops it (forgetToken matches the actor's TokenID too).
func (c *sessionCache) putKey(key string, a Actor, seen *seenStamp, epoch uint64, expires, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on || c.epoch != epoch {
		return
	}
	if ttl := now.Add(sessionCacheTTL); ttl.Before(expires) {
		expires = ttl
	}
	if len(c.byToken) >= sessionCacheMax {
		c.byToken = map[string]cachedSession{}
	}
	c.byToken[key] = cachedSession{actor: a, seen: seen, expires: expires}
}

// forget drops the entries match selects.
func (c *sessionCache) forget(match func(jti string, a Actor) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	for jti, e := range c.byToken {
		if match(jti, e.actor) {
			delete(c.byToken, jti)
		}
	}
}

// setOn turns the cache on or off; either way it starts empty, since
// announcements made while no listener was connected were not heard.
func (c *sessionCache) setOn(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.on = on
	c.byToken = map[string]cachedSession{}
}

func (s *Service) forgetToken(jti string) {
	s.sessions.forget(func(id string, a Actor) bool { return id == jti || a.TokenID == jti })
}

func (s *Service) forgetUser(userID int64) {
	s.sessions.forget(func(_ string, a Actor) bool { return a.UserID == userID })
}

// ForgetSession applies an announcement of RevokedChannel to the session
// cache: a token id (revoked), "user:<id>" (deactivated) or "role:<id>"
// (role changed). The WebSocket hub's listener calls it for each one.
func (s *Service) ForgetSession(payload string) {
	if id, ok := parseUserAnnouncement(payload); ok {
		s.forgetUser(id)
		return
	}
	s.forgetToken(payload)
}

// SessionFeed tells the service whether revocation announcements reach it
// (the listener is connected). Only then does Authenticate answer from
// memory; a change either way empties the cache.
func (s *Service) SessionFeed(connected bool) { s.sessions.setOn(connected) }

// parseUserAnnouncement reads "user:<id>" or "role:<id>".
func parseUserAnnouncement(payload string) (int64, bool) {
	for _, prefix := range []string{"user:", "role:"} {
		if v, ok := strings.CutPrefix(payload, prefix); ok {
			id, err := strconv.ParseInt(v, 10, 64)
			return id, err == nil
		}
	}
	return 0, false
}
