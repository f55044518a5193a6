-- Scheduled and recurring transfers (contract §6). A customer asks for a
-- transfer to run once or every day, week or month from run_at, until an
-- optional end; serve's scheduler (pkg/bank scheduled.go) runs each due
-- occurrence as a normal transfer and records it in scheduled_transfer_runs.
--
-- Accounts are kept by id, not by number: a renamed account is still the
-- one the customer chose. anchor_day is the day of the month a monthly
-- series was started on (the 31st runs on the last day of shorter months
-- and on the 31st again when the month has one). next_run_at is NULL once
-- the series is completed or cancelled.
CREATE TABLE scheduled_transfers (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id         bigint NOT NULL REFERENCES users (id),
    from_account_id bigint NOT NULL REFERENCES accounts (id),
    to_account_id   bigint NOT NULL REFERENCES accounts (id),
    amount          numeric(20, 2) NOT NULL CHECK (amount > 0),
    description     text NOT NULL DEFAULT '' CHECK (length(description) <= 255),
    frequency       text NOT NULL CHECK (frequency IN ('once', 'daily', 'weekly', 'monthly')),
    anchor_day      smallint NOT NULL CHECK (anchor_day BETWEEN 1 AND 31),
    next_run_at     timestamptz,
    until           timestamptz,
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'cancelled')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'active') = (next_run_at IS NOT NULL))
);
CREATE INDEX scheduled_transfers_user_idx ON scheduled_transfers (user_id, id);
-- The scheduler's claim: active series whose next occurrence is due.
CREATE INDEX scheduled_transfers_due_idx ON scheduled_transfers (next_run_at, id) WHERE status = 'active';

-- One row per occurrence that ran, whatever its outcome. The unique key is
-- the last guard of "exactly once": the run row, the transfer and the
-- advance of next_run_at commit in one transaction.
CREATE TABLE scheduled_transfer_runs (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scheduled_id   bigint NOT NULL REFERENCES scheduled_transfers (id),
    run_at         timestamptz NOT NULL,
    status         text NOT NULL CHECK (status IN ('succeeded', 'failed')),
    reason         text CHECK (length(reason) <= 255), -- why a failed run was refused; NULL when it succeeded
    transaction_id bigint, -- the DEBIT ledger row of a succeeded run; NULL when it failed
    created_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT scheduled_transfer_runs_occurrence_key UNIQUE (scheduled_id, run_at),
    CHECK ((status = 'succeeded') = (transaction_id IS NOT NULL)),
    CHECK ((status = 'failed') = (reason IS NOT NULL))
);
