-- posting_legs returns every ledger row (leg) of the posting that the row
-- p_id belongs to, in id order, with the posting's id: its first row's.
-- Postings since migrations/0018 name it in posting_id. Before, a transfer
-- or an accepted request wrote two rows, DEBIT then CREDIT, with ids one
-- apart and the same accounts, amount and time; a deposit, withdrawal,
-- opening balance or adjustment wrote one row, whose other leg 0018 added on
-- the vault, naming it in posting_id. No rows: no such ledger row.
CREATE OR REPLACE FUNCTION posting_legs(p_id bigint)
    RETURNS TABLE (posting bigint, id bigint, account_id bigint, transaction_type text, amount numeric,
        from_account_id bigint, to_account_id bigint, kind text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    r transactions;
    p bigint;
BEGIN
    SELECT * INTO r FROM transactions t WHERE t.id = p_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    p := r.posting_id;
    IF p IS NULL AND EXISTS (SELECT 1 FROM transactions t WHERE t.posting_id = r.id) THEN
        p := r.id; -- a one-row posting of before 0018, and the leg 0018 gave it
    END IF;
    IF p IS NOT NULL THEN
        RETURN QUERY SELECT p, t.id, t.account_id, t.transaction_type, t.amount, t.from_account_id, t.to_account_id, t.kind
            FROM transactions t WHERE t.posting_id = p OR t.id = p ORDER BY t.id;
        RETURN;
    END IF;
    -- A two-row payment of before 0018: the row beside it.
    RETURN QUERY SELECT least(r.id, t.id), t.id, t.account_id, t.transaction_type, t.amount, t.from_account_id, t.to_account_id, t.kind
        FROM transactions t
        WHERE (t.id = r.id OR (t.id IN (r.id - 1, r.id + 1) AND t.posting_id IS NULL AND t.from_account_id = r.from_account_id
            AND t.to_account_id = r.to_account_id AND t.amount = r.amount AND t.kind = r.kind AND t.created_at = r.created_at
            AND t.transaction_type <> r.transaction_type))
        ORDER BY t.id;
END $$;
