DROP FUNCTION transfer_money_batch(bigint[], text[], text[], numeric[], text[], text[], text[], timestamptz[], timestamptz[], interval, numeric);
