DROP TABLE scheduled_transfer_runs;
DROP TABLE scheduled_transfers;
