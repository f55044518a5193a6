package server

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"mime"
	"path"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v3"

	"meridian/server/web"
)

// placeholderPage is served at app routes when the web app was not built into the binary.
const placeholderPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Meridian</title></head>
<body style="font-family:sans-serif;margin:3rem"><h1>Meridian</h1>
<p>The API is running. The web app is not built into this binary: run <code>make build</code>.</p>
<p>API description: <a href="/api/openapi.json">/api/openapi.json</a></p></body></html>`

var gzCache sync.Map // path -> []byte, gzip of an embedded file

// web serves the embedded app: files as they are, app routes as index.html.
func (s *Server) web(c fiber.Ctx) error {
	p := strings.TrimPrefix(path.Clean("/"+c.Params("*")), "/")
	if p != "" && p != "." {
		if data, err := fs.ReadFile(web.Dist, "dist/"+p); err == nil {
			if strings.HasPrefix(p, "_expo/static/") || strings.HasPrefix(p, "assets/") {
				c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
			} else {
				c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
			}
			return sendFile(c, p, data)
		}
		if path.Ext(p) != "" || strings.HasPrefix(p, "_expo/") {
			return fiber.ErrNotFound // a missing asset is a 404, not the app
		}
	}
	c.Set(fiber.HeaderCacheControl, "no-cache, no-store, must-revalidate")
	index, err := fs.ReadFile(web.Dist, "dist/index.html")
	if err != nil {
		c.Type("html", "utf-8")
		return c.SendString(placeholderPage)
	}
	return sendFile(c, "index.html", index)
}

func sendFile(c fiber.Ctx, name string, data []byte) error {
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	c.Set(fiber.HeaderContentType, ctype)
	c.Set(fiber.HeaderVary, "Accept-Encoding")
	if len(data) > 1024 && compressible(ctype) && strings.Contains(c.Get(fiber.HeaderAcceptEncoding), "gzip") {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		return c.Send(gzipped(name, data))
	}
	return c.Send(data)
}

func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "javascript") || strings.Contains(ctype, "json") || strings.Contains(ctype, "svg")
}

func gzipped(name string, data []byte) []byte {
	if v, ok := gzCache.Load(name); ok {
		return v.([]byte)
	}
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write(data)
	w.Close()
	gzCache.Store(name, b.Bytes())
	return b.Bytes()
}
