// Package obs owns per-request observability: the request id (X-Request-Id,
// honoured when sane, else generated, always echoed), one structured log
// line per request, and a slog handler that stamps every log record made
// with a request's context with its id.
package obs
