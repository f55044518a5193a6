DROP TRIGGER transactions_totals ON transactions;
DROP FUNCTION ledger_totals_add();
DROP TABLE ledger_totals;
