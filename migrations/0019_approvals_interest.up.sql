SET LOCAL lock_timeout = '10s';
-- Four eyes and interest (contract §8).

-- An administrator's action that needs a second administrator: a deposit,
-- withdrawal or reversal at or over approval_threshold, any raise of a
-- daily limit. payload is what to run once approved; result its answer.
CREATE TABLE approvals (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind         text NOT NULL CONSTRAINT approvals_kind_check CHECK (kind IN ('deposit', 'withdrawal', 'reversal', 'limit_raise')),
    payload      jsonb NOT NULL,
    summary      text NOT NULL,
    requested_by bigint REFERENCES users (id), -- NULL: the operator at the command line
    requested_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    status       text NOT NULL DEFAULT 'pending' CONSTRAINT approvals_status_check CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
    decided_by   bigint REFERENCES users (id),
    decided_at   timestamptz,
    reason       text,   -- a rejection's
    result       jsonb,  -- what the approved action answered
    request_key  text NOT NULL -- the asker's Idempotency-Key (or one the server made): asking again answers this row
);
CREATE INDEX approvals_pending_idx ON approvals (id) WHERE status = 'pending';
CREATE UNIQUE INDEX approvals_request_key ON approvals ((coalesce(requested_by, 0)), request_key);

-- Interest: each account's accrual day by day on its end-of-day balance,
-- exact to the 1/10000 of a cent; what each monthly posting paid (whole
-- cents) and carried on (the fraction); how far each account has accrued.
CREATE TABLE interest_accruals (
    account_id bigint NOT NULL REFERENCES accounts (id),
    day        date NOT NULL,
    balance    numeric(20, 2) NOT NULL,
    rate       numeric(7, 4) NOT NULL,
    accrued    numeric(20, 6) NOT NULL,
    PRIMARY KEY (account_id, day)
);
CREATE TABLE interest_payments (
    account_id bigint NOT NULL REFERENCES accounts (id),
    through    date NOT NULL, -- the last day it covers: a month's last, or the day before the account was closed
    paid       numeric(20, 2) NOT NULL,
    carried    numeric(20, 6) NOT NULL,
    posting_id bigint,        -- NULL: nothing to pay (less than a cent)
    paid_at    timestamptz NOT NULL, -- the 1st of the next month, 00:00 UTC; or when closing
    PRIMARY KEY (account_id, through)
);
CREATE TABLE interest_cursors (
    account_id      bigint PRIMARY KEY REFERENCES accounts (id),
    accrued_through date NOT NULL
);

-- Accounts of a type that pays interest today accrue from today on: the
-- bank never paid interest before (an account opened from now on accrues
-- from the day it opened).
INSERT INTO interest_cursors (account_id, accrued_through)
SELECT a.id, (now() AT TIME ZONE 'UTC')::date - 1
FROM accounts a JOIN account_types t ON t.id = a.account_type_id
WHERE a.class = 'customer' AND t.interest_rate > 0 AND a.closed_at IS NULL;
