// Package web embeds the exported Expo web app (written into dist/ by
// `make build`). Until it is built, dist/ holds only a placeholder.
package web

import "embed"

// Dist is the exported web app.
//
//go:embed all:dist
var Dist embed.FS
