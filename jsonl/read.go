package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/acme/comments-gateway/store"
)

// Defaults of Options.
const (
	DefaultBatchSize    = 5000
	DefaultMaxLineBytes = 1 << 20  // 1 MiB
	DefaultBufferBytes  = 64 << 20 // 64 MiB
	DefaultMaxBadLines  = 10
)

// progressEvery is how many lines Read checks between Progress calls.
const progressEvery = 1024

// Options tune Read. The zero value is ready to use.
type Options struct {
	// BatchSize is the most comments delivered to fn at once;
	// DefaultBatchSize when zero.
	BatchSize int
	// MaxLineBytes is the longest line accepted, without its line ending;
	// DefaultMaxLineBytes when zero.
	MaxLineBytes int
	// Progress, if set, is called from Read's goroutine as the input is
	// checked and loaded, every thousand lines or so and after every batch.
	// (*Bar).Update fits.
	Progress func(Progress)
	// BufferBytes is the largest input whose checked comments Read keeps in
	// memory to deliver them without reading the input again;
	// DefaultBufferBytes when zero, and negative never to keep them.
	BufferBytes int64
	// TempDir is where an input that cannot be re-read (a pipe) and is
	// larger than BufferBytes is spooled while it is checked; os.TempDir()
	// when empty.
	TempDir string
	// MaxBadLines is the most bad lines the error of Read lists (it counts
	// them all); DefaultMaxBadLines when zero.
	MaxBadLines int
}

// Summary describes one Read.
type Summary struct {
	Lines        int           // lines read, blank lines included
	Bytes        int64         // bytes read
	Comments     int           // comments delivered to fn (checked, when fn is nil)
	GeneratedIDs int           // comments whose id Read generated
	Products     int           // distinct product ids in the input
	Languages    int           // distinct languages, after canonicalisation
	Elapsed      time.Duration // the whole Read, fn's work included
}

// Read parses JSON lines of comments from r and delivers them to fn in
// batches, in input order. Each non-blank line is one JSON object:
//
//	{"id":"01J…","productId":"P0001","language":"en","rating":5,"author":"Ann",
//	 "title":"Great","body":"Works well.","createdAt":"2024-05-01T12:34:56.789Z"}
//
// Every field but id is required; no other field is allowed, field names are
// case-sensitive and may not repeat, and values have their JSON types
// (rating a number with an integer value). createdAt is RFC 3339, fractional
// seconds optional, any offset (stored as UTC); the language is
// canonicalised ("EN-gb" → "en-GB"); every field is validated by
// store.Comment.Validate. A missing or null id is generated: a ULID with the
// comment's createdAt and entropy hashed from the comment's content, so
// re-reading the same input gives the same ids, and two identical comments
// without ids are reported as duplicates. Blank lines, a UTF-8 byte order
// mark and CRLF line endings are accepted.
//
// Bad-line policy: all or nothing. Read first checks the whole input —
// syntax, fields, and that no id occurs twice — and calls fn only when every
// line is good. A bad line therefore loads nothing at all, from a file or
// from a stream (stdin): the operator fixes the lines and runs the same
// import again, with no half-imported data to find and remove first and
// nothing counted twice in the stats. The check goes on past a bad line,
// so that one run finds them all: the error is a *BadLinesError listing
// the first Options.MaxBadLines, each a *LineError naming its line ("line
// 17: rating must be an integer from 1 to 5, got 7"), and their count; a
// duplicate id names an earlier line with that id. Only an error reading
// the input stops the check.
//
// Memory: the comments of an input of at most Options.BufferBytes are kept
// from the check and delivered from memory. A larger input is read a second
// time and parsed again: r itself if it is seekable (a regular file, also as
// redirected stdin), otherwise (a pipe) a copy that the check spooled to a
// temporary file in Options.TempDir, so that memory stays bounded by the set
// of ids, not by the size of the input; and that set is bounded too: past
// maxIDsInMemory ids it goes to sorted runs in Options.TempDir, merged at
// the end of the check (idset.go). The input must not change while
// Read runs; if a second reading differs, Read fails with "input changed
// while it was read", possibly after delivering batches.
//
// If fn returns an error, Read stops and returns it, wrapped with the line
// range of the batch; the batches before it were delivered, and whether
// they stay loaded is up to fn's store. fn owns each batch slice and its
// comments. A nil fn only checks the input.
//
// The Summary is filled in as far as Read got, also when it fails.
func Read(r io.Reader, opts Options, fn func(batch []*store.Comment) error) (Summary, error) {
	start := time.Now()
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if opts.BufferBytes == 0 {
		opts.BufferBytes = DefaultBufferBytes
	}
	if opts.MaxBadLines <= 0 {
		opts.MaxBadLines = DefaultMaxBadLines
	}
	rd := &reader{opts: opts}
	sum, err := rd.read(r, fn)
	sum.Elapsed = time.Since(start)
	return sum, err
}

// reader is the state of one Read.
type reader struct {
	opts Options
	sum  Summary
	// kept are the comments of the first pass and their line numbers while
	// the input is at most opts.BufferBytes; keep says whether they are all
	// there.
	kept      []*store.Comment
	keptLines []int32
	keep      bool
	// products and langs are the distinct values of the first pass.
	products, langs map[string]struct{}
}

func (rd *reader) read(r io.Reader, fn func([]*store.Comment) error) (Summary, error) {
	src, err := openSource(r, fn != nil, rd.opts)
	if err != nil {
		return rd.sum, err
	}
	defer src.close()

	rd.keep = fn != nil && rd.opts.BufferBytes > 0 && src.size <= rd.opts.BufferBytes
	checked, err := rd.check(src.first, src.size)
	if err != nil || fn == nil {
		rd.sum.Comments = checked
		return rd.sum, err
	}
	var next func() (*store.Comment, int, error)
	if rd.keep {
		next = rd.fromMemory()
	} else {
		second, err := src.rewind(rd.sum.Bytes)
		if err != nil {
			return rd.sum, err
		}
		var stop func()
		next, stop = rd.fromInput(second)
		defer stop()
	}
	err = rd.load(next, checked, fn)
	return rd.sum, err
}

// check is the first pass: it parses and validates every line and checks ids
// for duplicates, and returns the number of comments. It reads the whole
// input, past bad lines, unless reading fails.
func (rd *reader) check(r io.Reader, size int64) (int, error) {
	ids := newIDSet(rd.opts.TempDir)
	defer ids.close()
	bad := &badLines{max: rd.opts.MaxBadLines}
	st := newStream(r, rd.opts.MaxLineBytes)
	defer st.close()
	report := func() {
		if rd.opts.Progress != nil {
			rd.opts.Progress(Progress{Phase: Checking, Lines: rd.sum.Lines, Bytes: rd.sum.Bytes, TotalBytes: size, Comments: ids.len(), TotalComments: -1})
		}
	}
	report()
	rd.products, rd.langs = make(map[string]struct{}), make(map[string]struct{})
	var readErr error
	for {
		pl, err := st.next()
		if errors.Is(err, io.EOF) {
			break
		}
		rd.sum.Lines, rd.sum.Bytes = pl.line, pl.bytes
		if pl.fatal() {
			readErr = pl.err
			break
		}
		if pl.line%progressEvery == 0 {
			report()
		}
		if err := rd.checkLine(pl, ids, bad); err != nil {
			return 0, err
		}
	}
	rd.sum.Products, rd.sum.Languages = len(rd.products), len(rd.langs)
	report()
	if err := ids.duplicates(bad.add); err != nil {
		return 0, err
	}
	if err := errors.Join(bad.err(), readErr); err != nil {
		return 0, err
	}
	return ids.len(), nil
}

// checkLine takes one line of the first pass: a bad line or a duplicate id
// goes to bad, a good comment to ids, the distinct values and (while they
// fit) the comments kept. The error is one of the duplicate check's own.
func (rd *reader) checkLine(pl parsedLine, ids *idSet, bad *badLines) error {
	var le *LineError
	if errors.As(pl.err, &le) { // fatal() is false
		bad.add(le)
		rd.dropKept() // nothing will be loaded
		return nil
	}
	if pl.blank {
		return nil
	}
	c, generated := pl.c, pl.generated
	at := seenID{line: pl.line, generated: generated}
	prev, dup, err := ids.add(c.ID, at)
	if err != nil {
		return err
	}
	if dup {
		bad.add(duplicateError(c.ID, prev, at))
		rd.dropKept()
		return nil
	}
	if rd.keep {
		if pl.bytes <= rd.opts.BufferBytes {
			rd.kept = append(rd.kept, c)
			rd.keptLines = append(rd.keptLines, int32(pl.line))
		} else {
			rd.dropKept() // too big: read it again
		}
	}
	if generated {
		rd.sum.GeneratedIDs++
	}
	rd.products[c.ProductID] = struct{}{}
	rd.langs[c.Language] = struct{}{}
	return nil
}

// dropKept stops keeping the comments of the first pass.
func (rd *reader) dropKept() { rd.keep, rd.kept, rd.keptLines = false, nil, nil }

// fromMemory returns the comments kept by the first pass one by one, with
// their line numbers, and io.EOF at the end.
func (rd *reader) fromMemory() func() (*store.Comment, int, error) {
	i := 0
	return func() (*store.Comment, int, error) {
		if i == len(rd.kept) {
			rd.kept, rd.keptLines = nil, nil
			return nil, 0, io.EOF
		}
		c, n := rd.kept[i], int(rd.keptLines[i])
		rd.kept[i] = nil // fn owns it now
		i++
		return c, n, nil
	}
}

// fromInput returns the comments of r, the checked input read again, one by
// one with their line numbers, and io.EOF at the end; stop stops the read.
func (rd *reader) fromInput(r io.Reader) (next func() (*store.Comment, int, error), stop func()) {
	st := newStream(r, rd.opts.MaxLineBytes)
	return func() (*store.Comment, int, error) {
		for {
			pl, err := st.next()
			if errors.Is(err, io.EOF) {
				return nil, 0, io.EOF
			}
			if pl.err != nil {
				return nil, 0, fmt.Errorf("input changed while it was read: %w", pl.err)
			}
			if !pl.blank {
				return pl.c, pl.line, nil
			}
		}
	}, st.close
}

// load is the second pass: it delivers the total comments that next returns
// to fn in batches.
func (rd *reader) load(next func() (*store.Comment, int, error), total int, fn func([]*store.Comment) error) error {
	report := func() {
		if rd.opts.Progress != nil {
			rd.opts.Progress(Progress{Phase: Loading, Lines: rd.sum.Lines, Bytes: rd.sum.Bytes, TotalBytes: rd.sum.Bytes, Comments: rd.sum.Comments, TotalComments: total})
		}
	}
	report()
	batch := make([]*store.Comment, 0, min(rd.opts.BatchSize, total))
	first, last := 0, 0 // lines of batch[0] and of the last comment read
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := fn(batch); err != nil {
			return fmt.Errorf("loading the batch of lines %d–%d: %w", first, last, err)
		}
		rd.sum.Comments += len(batch)
		batch = make([]*store.Comment, 0, min(rd.opts.BatchSize, total-rd.sum.Comments))
		report()
		return nil
	}
	for {
		c, n, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			first = n
		}
		last = n
		batch = append(batch, c)
		if len(batch) == rd.opts.BatchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if rd.sum.Comments != total {
		return fmt.Errorf("input changed while it was read: %d comments checked, %d loaded", total, rd.sum.Comments)
	}
	return nil
}

// LineError is a bad input line. Read finds bad lines before it delivers
// anything (but see "input changed" in Read).
type LineError struct {
	Line int    // 1-based line number
	Msg  string // what is wrong, fit for an operator
	Err  error  // the underlying error, if any
}

// Error returns "line N: reason".
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Unwrap returns the underlying error.
func (e *LineError) Unwrap() error { return e.Err }

// scanner splits its input into lines of at most max bytes.
type scanner struct {
	br    *bufio.Reader
	max   int
	line  int   // number of the line last returned
	bytes int64 // bytes consumed, line endings included
	eof   bool
}

func newScanner(r io.Reader, max int) *scanner {
	// Room for the longest line and a CRLF: a fuller buffer is too long a line.
	return &scanner{br: bufio.NewReaderSize(r, max+2), max: max}
}

// next returns the next line without its line ending, io.EOF at the end, or
// an error. The line is valid until the next call.
func (s *scanner) next() ([]byte, error) {
	if s.eof {
		return nil, io.EOF
	}
	b, err := s.br.ReadSlice('\n')
	switch {
	case err == nil:
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, s.skipLong(len(b))
	case errors.Is(err, io.EOF):
		s.eof = true
		if len(b) == 0 {
			return nil, io.EOF
		}
	default:
		return nil, fmt.Errorf("reading line %d: %w", s.line+1, err)
	}
	s.line++
	s.bytes += int64(len(b))
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if s.line == 1 && len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		b = b[3:] // UTF-8 byte order mark
	}
	if len(b) > s.max {
		return nil, &LineError{Line: s.line, Msg: fmt.Sprintf("line is longer than %d bytes", s.max)}
	}
	return b, nil
}

// skipLong consumes the rest of a line longer than the buffer, whose first
// n bytes next read, and returns its LineError (or the error that stopped
// the reading), so that the lines after it are read.
func (s *scanner) skipLong(n int) error {
	s.line++
	s.bytes += int64(n)
	for {
		b, err := s.br.ReadSlice('\n')
		s.bytes += int64(len(b))
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			s.eof = true
		default:
			return fmt.Errorf("reading line %d: %w", s.line, err)
		}
		return &LineError{Line: s.line, Msg: fmt.Sprintf("line is longer than %d bytes", s.max)}
	}
}

// isBlank reports whether line is empty or only spaces and tabs.
func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// source is the input of a Read: a first pass, and a way to read the same
// bytes again.
type source struct {
	first  io.Reader
	size   int64 // bytes in the input, -1 when unknown
	rewind func(n int64) (io.Reader, error)
	close  func()
}

// openSource prepares r for two passes. A seekable r is re-read from where
// it started; anything else is copied to a spool during the first pass. With
// replay false only one pass is needed.
func openSource(r io.Reader, replay bool, opts Options) (*source, error) {
	if off, size, ok := seekable(r); ok {
		sk := r.(io.Seeker)
		return &source{
			first: r,
			size:  size,
			rewind: func(n int64) (io.Reader, error) {
				if _, err := sk.Seek(off, io.SeekStart); err != nil {
					return nil, fmt.Errorf("rewinding the input: %w", err)
				}
				return io.LimitReader(r, n), nil
			},
			close: func() {},
		}, nil
	}
	if !replay {
		return &source{first: r, size: -1, close: func() {}}, nil
	}
	sp := &spool{limit: max(opts.BufferBytes, 0), dir: opts.TempDir}
	return &source{
		first:  io.TeeReader(r, sp),
		size:   -1,
		rewind: sp.reader,
		close:  sp.close,
	}, nil
}

// spool keeps a copy of what the first pass reads from a pipe: in memory up
// to limit bytes (when the comments are kept too and the copy is not needed
// in the end), beyond that in a temporary file. Its Write never fails, so
// that the first pass reports the input's own errors first; a failure to
// spool is reported when the copy is read.
type spool struct {
	limit int64
	dir   string
	mem   memSpool
	f     *os.File
	w     *bufio.Writer
	err   error
}

func (s *spool) Write(p []byte) (int, error) {
	switch {
	case s.err != nil:
	case s.f == nil && s.mem.n+int64(len(p)) <= s.limit:
		s.mem.write(p)
	default:
		if s.f == nil {
			if s.f, s.err = os.CreateTemp(s.dir, "comments-import-*.jsonl"); s.err != nil {
				break
			}
			s.w = bufio.NewWriterSize(s.f, 256<<10)
			s.err = s.mem.writeTo(s.w)
			s.mem = memSpool{}
		}
		if s.err == nil {
			_, s.err = s.w.Write(p)
		}
	}
	return len(p), nil
}

// reader returns the first n bytes of the copy.
func (s *spool) reader(n int64) (io.Reader, error) {
	if s.err != nil {
		return nil, fmt.Errorf("spooling the input: %w", s.err)
	}
	if s.f == nil {
		return s.mem.reader(n), nil
	}
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("spooling the input: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("spooling the input: %w", err)
	}
	return io.LimitReader(s.f, n), nil
}

// memSpool is the part of a spool in memory: chunks of memChunk bytes, so
// that it takes what it holds, not the up to twice as much of a slice grown
// by append (64 MiB of a pipe were up to 128 MiB of heap).
type memSpool struct {
	chunks [][]byte
	n      int64
}

// memChunk is the size of a memSpool's chunks.
const memChunk = 1 << 20

func (m *memSpool) write(p []byte) {
	m.n += int64(len(p))
	for len(p) > 0 {
		if len(m.chunks) == 0 || len(m.chunks[len(m.chunks)-1]) == memChunk {
			m.chunks = append(m.chunks, make([]byte, 0, memChunk))
		}
		last := &m.chunks[len(m.chunks)-1]
		k := min(len(p), memChunk-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
}

// reader returns the first n bytes held.
func (m *memSpool) reader(n int64) io.Reader {
	rs := make([]io.Reader, len(m.chunks))
	for i, c := range m.chunks {
		rs[i] = bytes.NewReader(c)
	}
	return io.LimitReader(io.MultiReader(rs...), n)
}

// writeTo writes what it holds to w.
func (m *memSpool) writeTo(w io.Writer) error {
	for _, c := range m.chunks {
		if _, err := w.Write(c); err != nil {
			return err
		}
	}
	return nil
}

// close removes the temporary file, if any.
func (s *spool) close() {
	s.mem = memSpool{}
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}

// seekable reports whether r can be re-read from its current offset off, and
// the bytes from there to its end (-1 when unknown).
func seekable(r io.Reader) (off, size int64, ok bool) {
	sk, isSeeker := r.(io.Seeker)
	if !isSeeker {
		return 0, -1, false
	}
	if f, isFile := r.(*os.File); isFile {
		// Pipes and terminals are *os.File too; only regular files rewind.
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return 0, -1, false
		}
	}
	off, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, -1, false
	}
	end, err := sk.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, -1, false
	}
	if _, err := sk.Seek(off, io.SeekStart); err != nil {
		return 0, -1, false
	}
	return off, end - off, true
}
