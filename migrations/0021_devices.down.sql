SET LOCAL lock_timeout = '5s';
DROP TABLE live_presence;
DROP TABLE push_cursor;
DROP TABLE devices;
