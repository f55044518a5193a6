// Package migrations holds Meridian's numbered SQL migrations, embedded in
// the binary. NNNN_name.up.sql applies a step; NNNN_name.down.sql undoes it.
package migrations

import "embed"

// FS holds the migration files.
//
//go:embed *.sql
var FS embed.FS
