DROP TRIGGER users_changed ON users;
DROP FUNCTION users_announce_changed();
