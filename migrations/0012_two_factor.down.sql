DROP TRIGGER two_factor_changed ON two_factor;
DROP FUNCTION two_factor_announce_changed();
DROP TABLE two_factor_challenges;
DROP TABLE two_factor_backup_codes;
DROP TABLE two_factor;
