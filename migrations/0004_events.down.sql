DROP TRIGGER users_deactivated ON users;
DROP FUNCTION users_announce_deactivated();
DROP TRIGGER auth_tokens_revoked ON auth_tokens;
DROP FUNCTION auth_tokens_announce_revoked();
DROP FUNCTION event_seal();
DROP FUNCTION audit_digest(bytea, bigint, bigint, text, text, text, text, timestamptz);
DROP FUNCTION audit_field(text);
DROP TABLE event_sealer;
DROP TABLE notification_feed;
DROP TABLE audit_chain;
DROP FUNCTION append_only_refuse();
ALTER TABLE notifications DROP COLUMN txid;
ALTER TABLE audit_log DROP COLUMN txid;

-- The announce triggers of 0001, as they were.
CREATE FUNCTION audit_log_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('meridian_audit', NEW.id::text);
    RETURN NULL;
END $$;
CREATE TRIGGER audit_log_announce AFTER INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_announce();

CREATE FUNCTION notifications_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('meridian_notifications', json_build_object(
        'id', NEW.id, 'message', NEW.message, 'user_id', NEW.user_id, 'created_at', NEW.created_at)::text);
    RETURN NULL;
END $$;
CREATE TRIGGER notifications_announce AFTER INSERT ON notifications
    FOR EACH ROW EXECUTE FUNCTION notifications_announce();
