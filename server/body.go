package server

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"strings"

	"github.com/gofiber/fiber/v3"

	"meridian/pkg/errs"
)

var (
	errBodyTooLarge        = errs.E(errs.TooLarge, "body_too_large", "The request body is larger than 1 MiB")
	errUnsupportedEncoding = fiber.NewError(fiber.StatusUnsupportedMediaType, "unsupported encoding")
	errBadEncoding         = errs.E(errs.Invalid, "invalid_encoding", "The request body does not match its Content-Encoding")
)

// maxEncodings bounds how many Content-Encoding layers one body may have.
const maxEncodings = 2

// requestBody returns the request body, decoded from its Content-Encoding
// (identity, gzip or deflate) and never larger than bodyLimit once decoded:
// a small compressed body that would expand past it (a gzip bomb) stops at
// bodyLimit+1 bytes and answers 413. Fiber's c.Body() decodes too, but
// turns every failure into the error's text as the body; this keeps them apart.
func requestBody(c fiber.Ctx) ([]byte, error) {
	body := c.BodyRaw()
	header := strings.ToLower(c.Get(fiber.HeaderContentEncoding))
	if strings.TrimSpace(header) == "" {
		return body, nil
	}
	var layers []string
	for _, l := range strings.Split(header, ",") {
		if l = strings.TrimSpace(l); l != "" && l != "identity" {
			layers = append(layers, l)
		}
	}
	if len(layers) > maxEncodings {
		return nil, errUnsupportedEncoding
	}
	// The last encoding applied is listed last, so it is undone first.
	for i := len(layers) - 1; i >= 0; i-- {
		var r io.Reader
		var err error
		switch layers[i] {
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(bytes.NewReader(body))
		case "deflate":
			r, err = zlib.NewReader(bytes.NewReader(body))
		default:
			return nil, errUnsupportedEncoding
		}
		if err != nil {
			return nil, errBadEncoding
		}
		body, err = io.ReadAll(io.LimitReader(r, bodyLimit+1))
		if len(body) > bodyLimit {
			return nil, errBodyTooLarge
		}
		if err != nil {
			return nil, errBadEncoding
		}
	}
	return body, nil
}
