package server

import (
	"bufio"
	"bytes"
	"context"

	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

// statement answers GET /api/user/statements?account_id=&from=&to=&format=
// with the statement as a download. Every refusal (bad input, another
// customer's account) is a JSON error answered before any byte of the
// statement: the service checks the query and the account, and reads the
// opening balance, before the handler returns. A CSV's rows are then
// streamed to the client as they are read; a PDF is built first, then sent.
func (s *Server) statement(c fiber.Ctx) error {
	// The body is written after this handler returns, while the request's
	// context ends when it returns (withDeadline): the statement's
	// transaction lives in a context of its own that keeps the request's
	// deadline. A statement still being written at the deadline is cut off
	// (a CSV then lacks its Closing balance line).
	ctx, cancel := detached(c.Context())
	st, err := s.svc.Statement(ctx, actor(c), bank.StatementQuery{
		AccountNumber: c.Query("account_id"), From: c.Query("from"), To: c.Query("to"), Format: c.Query("format")})
	if err != nil {
		cancel()
		return err
	}
	headers := func() {
		c.Set(fiber.HeaderContentType, st.ContentType())
		c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+st.FileName()+`"`)
		c.Set(fiber.HeaderCacheControl, "no-store")
	}
	if st.Format == bank.StatementPDF {
		// fpdf builds the whole document in memory anyway: build it before
		// answering, so that a PDF that cannot be built in time (its slot,
		// its rows) is a 503 timeout like any request's, not a 200 download
		// of nothing.
		var b bytes.Buffer
		err := st.Render(&b)
		st.Close()
		cancel()
		if err != nil {
			return err
		}
		headers()
		return c.Send(b.Bytes())
	}
	headers()
	rid := c.Locals(localRequestID)
	return c.SendStreamWriter(func(w *bufio.Writer) {
		defer cancel()
		defer st.Close()
		if err := st.Render(w); err != nil {
			s.log.Warn("statement cut short", "request_id", rid, "err", err)
			return
		}
		if err := w.Flush(); err != nil {
			s.log.Warn("statement not delivered", "request_id", rid, "err", err)
		}
	})
}

// detached is a context with parent's values and deadline that the end of
// the handler does not cancel.
func detached(parent context.Context) (context.Context, context.CancelFunc) {
	ctx := context.WithoutCancel(parent)
	if dl, ok := parent.Deadline(); ok {
		return context.WithDeadline(ctx, dl)
	}
	return context.WithCancel(ctx)
}
