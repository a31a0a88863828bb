package jsonl

import (
	"bufio"
	"encoding/json"
	"io"
	"time"

	"github.com/acme/comments-gateway/store"
)

// writtenLine is one comment as Writer writes it: the fields in their documented
// order, authorId only when the comment has an owner.
type writtenLine struct {
	ID        string `json:"id"`
	ProductID string `json:"productId"`
	Language  string `json:"language"`
	Rating    int    `json:"rating"`
	Author    string `json:"author"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	CreatedAt string `json:"createdAt"`
	AuthorID  string `json:"authorId,omitempty"`
}

// Writer writes comments as JSON lines that Read reads back as the same
// comments: createdAt in UTC as RFC 3339 with as many fractional digits as
// it has, strings escaped only where JSON needs it. The same comments give
// the same bytes. Call Flush at the end.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
	n   int   // comments written
	pos int64 // bytes written
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
	return w.enc.Encode(writtenLine{
		ID: c.ID, ProductID: c.ProductID, Language: c.Language, Rating: c.Rating,
		Author: c.Author, Title: c.Title, Body: c.Body,
		CreatedAt: c.CreatedAt.UTC().Format(time.RFC3339Nano), AuthorID: c.AuthorID,
	})
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
