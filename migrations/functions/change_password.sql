-- change_password is the only way a password hash changes (pkg/bank
-- ResetPassword): the runtime role may insert a new user's credentials but
-- never update them (pkg/db RuntimeGrants). It sets p_user's hash, ends the
-- user's other sessions (every token but p_keep, which may be NULL) and
-- writes the audit row, in the caller's transaction. The old password is
-- checked by the caller (bcrypt, in Go) before it is called.
CREATE OR REPLACE FUNCTION change_password(p_user bigint, p_hash text, p_keep uuid) RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
    IF p_hash IS NULL OR p_hash !~ '^\$2[aby]\$[0-9]{2}\$.{53}$' THEN
        RAISE EXCEPTION 'change_password: not a bcrypt hash' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE credentials SET password_hash = p_hash, updated_at = now() WHERE user_id = p_user;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'change_password: user % has no credentials', p_user USING ERRCODE = 'no_data_found';
    END IF;
    UPDATE auth_tokens SET revoked_at = now() WHERE user_id = p_user AND jti IS DISTINCT FROM p_keep AND revoked_at IS NULL;
    INSERT INTO audit_log (actor_user_id, action_type, table_name, description)
    VALUES (p_user, 'PASSWORD_RESET', 'credentials', 'Password changed; other sessions signed out');
END $$;
