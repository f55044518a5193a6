-- Every serve instance keeps the sessions it verified a moment ago in memory
-- (pkg/bank/sessioncache.go), so a request costs no database round trip for
-- its token. Whatever changes what a session may do is announced on
-- meridian_revoked, so each instance forgets it at once: a revoked token and
-- a deactivated user already are (0004); a changed role and a reactivation
-- are too from now on, as "role:<id>" (the WebSocket keeps its connections:
-- a role change does not end a session, it changes what it may do).
CREATE FUNCTION users_announce_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('meridian_revoked', 'role:' || NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER users_changed AFTER UPDATE OF role_id, is_active, full_name ON users
    FOR EACH ROW WHEN (OLD.role_id IS DISTINCT FROM NEW.role_id
        OR (NOT OLD.is_active AND NEW.is_active)
        OR OLD.full_name IS DISTINCT FROM NEW.full_name)
    EXECUTE FUNCTION users_announce_changed();
