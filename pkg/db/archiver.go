package db

import (
	"context"
	"database/sql"
	"time"

	"github.com/jmoiron/sqlx"
)

// Archiver is what PostgreSQL tells of its WAL archiving (pg_stat_archiver
// and the settings), on the embedded database and on an external one alike
// (pgBackRest's archive-push is an archive_command too).
type Archiver struct {
	Mode     string `json:"archive_mode"` // off, on, always
	Archived int64  `json:"archived_count"`
	Failed   int64  `json:"failed_count"`
	// LastArchived and LastFailed are zero when nothing was archived (or
	// failed) since the statistics were reset.
	LastArchived    time.Time `json:"last_archived_time,omitzero"`
	LastArchivedWAL string    `json:"last_archived_wal,omitempty"`
	LastFailed      time.Time `json:"last_failed_time,omitzero"`
	LastFailedWAL   string    `json:"last_failed_wal,omitempty"`
	// CurrentWAL is the segment being written now (empty on a standby).
	CurrentWAL string `json:"current_wal,omitempty"`
}

// Failing reports whether the latest attempt to archive failed.
func (a Archiver) Failing() bool {
	return !a.LastFailed.IsZero() && a.LastFailed.After(a.LastArchived)
}

// ArchiverStatus reads pg_stat_archiver (any role may).
func ArchiverStatus(ctx context.Context, q sqlx.QueryerContext) (Archiver, error) {
	var a Archiver
	var lastArchived, lastFailed sql.NullTime
	var archivedWAL, failedWAL, current sql.NullString
	err := q.QueryRowxContext(ctx, `
		SELECT current_setting('archive_mode'), archived_count, failed_count,
			last_archived_time, last_archived_wal, last_failed_time, last_failed_wal,
			CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_walfile_name(pg_current_wal_lsn()) END
		FROM pg_stat_archiver`).Scan(&a.Mode, &a.Archived, &a.Failed, &lastArchived, &archivedWAL, &lastFailed, &failedWAL, &current)
	a.LastArchived, a.LastArchivedWAL = lastArchived.Time, archivedWAL.String
	a.LastFailed, a.LastFailedWAL = lastFailed.Time, failedWAL.String
	a.CurrentWAL = current.String
	return a, err
}
