SET LOCAL lock_timeout = '5s';
-- Push notifications to phones (pkg/bank devices.go, pusher.go).
--
-- devices: a phone's Expo push token, registered by the app after sign-in
-- and tied to that session (auth_tokens.jti): a session that ends (sign-out,
-- revoked from another device, expired, the user deactivated) sends no more
-- pushes, whether or not the app could say so. A push token belongs to one
-- session at a time: registering it again moves it (a phone handed to
-- another customer never receives the first one's notifications).
CREATE TABLE devices (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES users (id),
    token_jti  uuid NOT NULL REFERENCES auth_tokens (jti) ON DELETE CASCADE,
    push_token text NOT NULL UNIQUE CHECK (length(push_token) BETWEEN 1 AND 255),
    platform   text NOT NULL CHECK (platform IN ('ios', 'android')),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX devices_user_idx ON devices (user_id);
CREATE INDEX devices_token_idx ON devices (token_jti);

-- push_cursor: the newest notification_feed seq the pusher has handled. One
-- row, claimed FOR UPDATE SKIP LOCKED by one serve instance at a time, so
-- every notification is considered for a push once, however many instances
-- run. It starts at the feed's head: what was stored before is not pushed.
CREATE TABLE push_cursor (
    id       smallint PRIMARY KEY CHECK (id = 1),
    last_seq bigint NOT NULL
);
INSERT INTO push_cursor (id, last_seq) SELECT 1, notif_seq FROM event_sealer WHERE id = 1;

-- live_presence: which users have a WebSocket open on which serve instance,
-- refreshed by each instance every few seconds (stale rows, of an instance
-- that died, are ignored). A user with a live socket gets the notification
-- there, not as a push.
CREATE TABLE live_presence (
    user_id  bigint NOT NULL,
    instance uuid NOT NULL,
    seen_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, instance)
);
