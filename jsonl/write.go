package jsonl

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/acme/comments-gateway/store"
)

// Writer writes comments as JSON lines that Read reads back as the same
// comments: createdAt in UTC as RFC 3339 with as many fractional digits as
// it has, strings escaped only where JSON needs it. The same comments give
// the same bytes. Call Flush at the end.
type Writer struct {
	w      *bufio.Writer
	enc    *json.Encoder
	n      int    // comments written
	pos    int64  // bytes written
	rating []byte // the rating's JSON, reused
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 256<<10)
	wr := &Writer{w: bw}
	wr.enc = json.NewEncoder(countingWriter{bw, &wr.pos})
	wr.enc.SetEscapeHTML(false)
	return wr
}

// Write writes c as one line.
func (w *Writer) Write(c *store.Comment) error {
	w.n++
	w.rating = strconv.AppendInt(w.rating[:0], int64(c.Rating), 10)
	rec := record{
		ID: c.ID, ProductID: c.ProductID, Language: c.Language, Rating: w.rating,
		Author: c.Author, Title: c.Title, Body: c.Body,
		CreatedAt: c.CreatedAt.UTC().Format(time.RFC3339Nano), AuthorID: c.AuthorID,
		ModerationReason: c.ModerationReason, VerifiedPurchase: c.VerifiedPurchase,
	}
	if r := c.Reply; r != nil {
		rec.Reply = &replyRecord{Body: r.Body, CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339Nano), UpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339Nano)}
	}
	if c.Status != store.StatusPublished {
		rec.Status = c.Status.Name()
	}
	if !c.ModeratedAt.IsZero() {
		rec.ModeratedAt = c.ModeratedAt.UTC().Format(time.RFC3339Nano)
	}
	return w.enc.Encode(rec)
}

// Progress returns the comments and bytes written so far, for a Bar.
func (w *Writer) Progress() Progress {
	return Progress{Phase: Exporting, Lines: w.n, Comments: w.n, Bytes: w.pos, TotalBytes: -1, TotalComments: -1}
}

// Flush writes what is buffered.
func (w *Writer) Flush() error { return w.w.Flush() }

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n *int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}
