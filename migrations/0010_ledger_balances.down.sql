DROP VIEW ledger_balances;
