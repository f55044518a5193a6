SET LOCAL lock_timeout = '10s';
DROP TABLE interest_cursors;
DROP TABLE interest_payments;
DROP TABLE interest_accruals;
DROP TABLE approvals;
