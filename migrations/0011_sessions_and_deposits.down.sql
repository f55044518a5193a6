ALTER TABLE auth_tokens DROP COLUMN last_seen_at;
ALTER TABLE auth_tokens DROP COLUMN ip;
ALTER TABLE auth_tokens DROP COLUMN user_agent;
ALTER TABLE auth_tokens DROP COLUMN id;
