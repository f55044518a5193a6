-- Deposits and withdrawals already in the ledger stay (it is append-only);
-- the old rule applies to new rows only.
ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check
    CHECK (kind IN ('transfer', 'request', 'opening', 'adjustment')) NOT VALID;

ALTER TABLE auth_tokens DROP COLUMN last_seen_at;
ALTER TABLE auth_tokens DROP COLUMN ip;
ALTER TABLE auth_tokens DROP COLUMN user_agent;
ALTER TABLE auth_tokens DROP COLUMN id;
