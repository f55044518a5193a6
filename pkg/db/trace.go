package db

import (
	"context"
	"database/sql/driver"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Traced makes the pool record a span for every statement it runs and
// every commit and rollback (a commit waits for the synchronous standby:
// its span shows what that costs), as children of the span in the
// statement's context. The statement's text is recorded, its arguments
// never. A nil tracer leaves the pool as it is.
func Traced(tracer trace.Tracer) Option {
	return func(o *options) { o.tracer = tracer }
}

// tracedConnector wraps a connector's connections in tracedConn.
type tracedConnector struct {
	driver.Connector
	tracer trace.Tracer
}

func (c tracedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tracedConn{Conn: conn, tracer: c.tracer}, nil
}

// tracedConn passes everything to the driver's connection (lib/pq's), and
// records a span around statements, commits and rollbacks. Each optional
// interface a connection may have is passed on when it has it, and answered
// as database/sql expects when it does not (ErrSkip: do it another way).
type tracedConn struct {
	driver.Conn
	tracer trace.Tracer
}

const maxStatementText = 2000

func (c *tracedConn) start(ctx context.Context, query string) (context.Context, trace.Span) {
	op := strings.ToUpper(strings.Fields(strings.TrimSpace(query) + " ?")[0])
	text := query
	if len(text) > maxStatementText {
		text = text[:maxStatementText] + "…"
	}
	return c.tracer.Start(ctx, "SQL "+op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("db.system.name", "postgresql"),
		attribute.String("db.operation.name", op),
		attribute.String("db.query.text", text)))
}

func end(span trace.Span, err error) {
	if err != nil && err != driver.ErrSkip {
		span.RecordError(err)
		span.SetStatus(codes.Error, "")
	}
	span.End()
}

func (c *tracedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	ctx, span := c.start(ctx, query)
	res, err := e.ExecContext(ctx, query, args)
	end(span, err)
	return res, err
}

func (c *tracedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	ctx, span := c.start(ctx, query)
	rows, err := q.QueryContext(ctx, query, args)
	end(span, err)
	return rows, err
}

func (c *tracedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		return p.PrepareContext(ctx, query)
	}
	return c.Conn.Prepare(query)
}

func (c *tracedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	var tx driver.Tx
	var err error
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		tx, err = b.BeginTx(ctx, opts)
	} else {
		tx, err = c.Conn.Begin() //nolint:staticcheck // the driver has nothing else
	}
	if err != nil {
		return nil, err
	}
	return &tracedTx{Tx: tx, ctx: ctx, tracer: c.tracer}, nil
}

func (c *tracedConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *tracedConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *tracedConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *tracedConn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.Conn.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// tracedTx records its commit or rollback in the context it began in.
type tracedTx struct {
	driver.Tx
	ctx    context.Context
	tracer trace.Tracer
}

func (t *tracedTx) Commit() error {
	_, span := t.tracer.Start(t.ctx, "SQL COMMIT", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", "postgresql"), attribute.String("db.operation.name", "COMMIT")))
	err := t.Tx.Commit()
	end(span, err)
	return err
}

func (t *tracedTx) Rollback() error {
	_, span := t.tracer.Start(t.ctx, "SQL ROLLBACK", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", "postgresql"), attribute.String("db.operation.name", "ROLLBACK")))
	err := t.Tx.Rollback()
	end(span, err)
	return err
}
