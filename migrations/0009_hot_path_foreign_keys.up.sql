-- Foreign keys the money path pays for without gaining anything.
--
-- Every foreign key check is a query of its own that takes FOR KEY SHARE on
-- the referenced row. A transfer wrote eleven of them (four per ledger row,
-- one each for the notification, the audit row and the idempotency key). Of
-- these, the ones that point at users rows are worse than redundant: a
-- recipient who receives from many senders at once (a merchant) has its users
-- row share-locked by all of them, which PostgreSQL records as a multixact on
-- that row, one more write per transfer on a row everybody touches.
--
-- What stays true without them, and why:
--   transactions.account_id keeps its key: every ledger row belongs to an
--     account, and that account is the row the transfer has locked already.
--   transactions.from_account_id / to_account_id are the two accounts of the
--     payment, each the account_id of one of its two rows, both locked.
--   transactions.user_id, notifications.user_id, audit_log.actor_user_id and
--     idempotency_keys.user_id name users: users are never deleted (no code
--     path or grant deletes one), and each id is the one just read under
--     lock, or the signed-in user.
ALTER TABLE transactions DROP CONSTRAINT transactions_from_account_id_fkey;
ALTER TABLE transactions DROP CONSTRAINT transactions_to_account_id_fkey;
ALTER TABLE transactions DROP CONSTRAINT transactions_user_id_fkey;
ALTER TABLE notifications DROP CONSTRAINT notifications_user_id_fkey;
ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_user_id_fkey;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_user_id_fkey;
