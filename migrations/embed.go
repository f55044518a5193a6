// Package migrations holds Meridian's SQL migrations, embedded in the
// binary. NNNN_name.up.sql applies a numbered step; NNNN_name.down.sql
// undoes it. functions/<name>.sql holds one database function (or a few
// that belong together) whole: `migrate up` applies the file again whenever
// its text changes, after every numbered step, so a rule's history is the
// `git log` of its one file (a repeatable migration, as Flyway's R__ files).
// A numbered migration never calls a function kept there.
package migrations

import "embed"

// FS holds the migration files.
//
//go:embed *.sql functions/*.sql
var FS embed.FS
