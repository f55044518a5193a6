package server

import (
	"context"
	"log/slog"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/db"
)

var ctxBG = context.Background()

func openDB(url string) (*sqlx.DB, error) { return db.Open(ctxBG, url) }

// quiet discards the logs of servers under test.
var quiet = slog.New(slog.DiscardHandler)
