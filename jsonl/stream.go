package jsonl

import (
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/acme/comments-gateway/store"
)

// A parse stream reads lines in one goroutine and parses them in blocks in
// as many goroutines as there are CPUs, and hands them back in input order,
// so that Read's passes use every core and see exactly what a parse line
// by line would: the same comments, and the bad lines in input order.

// Sizes of a stream's blocks: at most blockLines lines, and a block
// that has reached blockBytes takes no more lines.
const (
	blockLines = 256
	blockBytes = 256 << 10
)

// parsedLine is one line of the input as parsed, or the error that ends
// the input.
type parsedLine struct {
	line      int   // its number; with a read error, the lines read before
	bytes     int64 // the bytes read through it, line ending included
	blank     bool  // nothing to parse
	c         *store.Comment
	generated bool  // the id of c was generated
	err       error // a bad line (*LineError), or a read error: the stream ends there
}

// fatal reports whether pl ends the input: an error reading it, as opposed
// to a bad line (a *LineError, never wrapped), after which the input goes
// on.
func (pl *parsedLine) fatal() bool {
	var le *LineError
	return pl.err != nil && !errors.As(pl.err, &le)
}

// block is a run of lines, parsed by one worker.
type block struct {
	buf   []byte // the lines, one after the other
	ends  []int  // where each line ends in buf
	lines []parsedLine
	done  chan struct{} // closed when lines are parsed
}

// stream is the parse of one pass over an input.
type stream struct {
	order chan *block   // the blocks in input order
	stop  chan struct{} // closed by close
	wg    sync.WaitGroup
	cur   *block // the block next reads from
	i     int
	ended bool // next returned a line with an error
}

// newStream starts parsing r, whose lines are at most max bytes.
func newStream(r io.Reader, max int) *stream {
	workers := runtime.GOMAXPROCS(0)
	s := &stream{order: make(chan *block, 4*workers), stop: make(chan struct{})}
	jobs := make(chan *block, workers)
	s.wg.Add(1 + workers)
	go func() {
		defer s.wg.Done()
		defer close(jobs)
		defer close(s.order)
		s.split(newScanner(r, max), jobs)
	}()
	for range workers {
		go func() {
			defer s.wg.Done()
			var p parser
			for b := range jobs {
				b.parse(&p)
			}
		}()
	}
	return s
}

// split reads the lines of sc into blocks, and sends each to the workers
// and to the reader, until the input ends or the stream is closed.
func (s *stream) split(sc *scanner, jobs chan<- *block) {
	for {
		b := &block{done: make(chan struct{}), buf: getBuf(), ends: make([]int, 0, blockLines), lines: make([]parsedLine, 0, blockLines)}
		var end bool
		for len(b.lines) < blockLines && len(b.buf) < blockBytes {
			line, err := sc.next()
			if errors.Is(err, io.EOF) {
				end = true
				break
			}
			pl := parsedLine{line: sc.line, bytes: sc.bytes, err: err, blank: err == nil && isBlank(line)}
			b.lines = append(b.lines, pl)
			b.buf = append(b.buf, line...)
			b.ends = append(b.ends, len(b.buf))
			if pl.fatal() {
				end = true
				break
			}
		}
		select {
		case s.order <- b:
		case <-s.stop:
			return
		}
		select {
		case jobs <- b:
		case <-s.stop:
			return
		}
		if end {
			return
		}
	}
}

// parse parses the lines of the block.
func (b *block) parse(p *parser) {
	defer close(b.done)
	from := 0
	for i := range b.lines {
		pl := &b.lines[i]
		line := b.buf[from:b.ends[i]]
		from = b.ends[i]
		if pl.err != nil || pl.blank {
			continue
		}
		pl.c, pl.generated, pl.err = p.parse(pl.line, line)
	}
	putBuf(b.buf) // the parsed lines do not refer to it
	b.buf = nil
}

// bufs are blocks' buffers for reuse: a pass reads its whole input through
// them.
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, blockBytes+4096); return &b }}

func getBuf() []byte { return (*bufs.Get().(*[]byte))[:0] }

func putBuf(b []byte) {
	if cap(b) <= 2*blockBytes { // not one grown by a very long line
		bufs.Put(&b)
	}
}

// next returns the next line of the input, io.EOF at its end. A line with
// a read error is the last.
func (s *stream) next() (parsedLine, error) {
	if s.ended {
		return parsedLine{}, io.EOF
	}
	for s.cur == nil || s.i == len(s.cur.lines) {
		b, ok := <-s.order
		if !ok {
			return parsedLine{}, io.EOF
		}
		<-b.done
		s.cur, s.i = b, 0
	}
	pl := s.cur.lines[s.i]
	s.cur.lines[s.i].c = nil // the caller owns it now
	s.i++
	s.ended = pl.fatal()
	return pl, nil
}

// close stops the stream and waits for its goroutines: the input is no
// longer read when it returns.
func (s *stream) close() {
	close(s.stop)
	for b := range s.order { // unblock the splitter and let it end
		_ = b
	}
	s.wg.Wait()
}
