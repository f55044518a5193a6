-- set_user_role is the only way a user's role changes (pkg/bank AssignRole,
-- Register): the runtime role may neither update users.role_id nor insert
-- a user with another role than the default, User (pkg/db RuntimeGrants).
-- It checks who asks: p_actor an active administrator, or, with p_actor
-- NULL, a session of the schema's owner (the operator at the command line,
-- whose `meridian` connects as the owner for this; the runtime role is not
-- one), or anyone making the first administrator of a bank that has none. It never leaves no active administrator (the backstop of pkg/bank's
-- last_admin, which locks the administrators first), and writes the audit
-- row, in the caller's transaction. Returns the role the user had.
CREATE OR REPLACE FUNCTION set_user_role(p_actor bigint, p_user bigint, p_role text) RETURNS text
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    new_id smallint;
    old_name text;
    target_email text;
BEGIN
    IF p_actor IS NULL THEN
        -- The operator: connected as the owner, or making the first
        -- administrator of a bank that never had one (the demo seed on a
        -- database where only the runtime role connects). Once a user holds
        -- the role, it stays held by someone: role_id changes only here.
        IF NOT pg_has_role(session_user, current_user, 'MEMBER')
            AND EXISTS (SELECT 1 FROM users u JOIN roles r ON r.id = u.role_id WHERE r.name = 'Admin') THEN
            RAISE EXCEPTION 'set_user_role: only an administrator, or the operator connected as the schema''s owner, assigns roles'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    ELSIF NOT EXISTS (SELECT 1 FROM users u JOIN roles r ON r.id = u.role_id WHERE u.id = p_actor AND r.name = 'Admin' AND u.is_active) THEN
        RAISE EXCEPTION 'set_user_role: user % is no active administrator', p_actor USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT r.id INTO new_id FROM roles r WHERE r.name = p_role;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'set_user_role: no role %', p_role USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT r.name, u.email INTO old_name, target_email FROM users u JOIN roles r ON r.id = u.role_id WHERE u.id = p_user FOR UPDATE OF u;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'set_user_role: no user %', p_user USING ERRCODE = 'no_data_found';
    END IF;
    UPDATE users SET role_id = new_id WHERE id = p_user;
    IF old_name = 'Admin' AND p_role <> 'Admin'
        AND NOT EXISTS (SELECT 1 FROM users u JOIN roles r ON r.id = u.role_id WHERE r.name = 'Admin' AND u.is_active) THEN
        RAISE EXCEPTION 'set_user_role: no active administrator would be left' USING ERRCODE = 'check_violation';
    END IF;
    INSERT INTO audit_log (actor_user_id, action_type, table_name, description)
    VALUES (p_actor, 'ROLE_ASSIGN', 'users', 'Assigned role ' || p_role || ' to ' || target_email || ' (id ' || p_user || '), was ' || old_name
        || CASE WHEN p_actor IS NULL THEN ' (via CLI)' ELSE '' END);
    RETURN old_name;
END $$;
