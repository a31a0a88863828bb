package jsonl

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// maxIDsInMemory bounds the ids the duplicate check keeps in memory (about
// 90 bytes each): past it they are written, sorted, to a temporary file (a
// run), and the runs are merged at the end of the check. An input of up to
// this many comments is checked in memory alone.
var maxIDsInMemory = 500_000

// seenID is where an id was seen: its line, and whether it was generated.
type seenID struct {
	line      int
	generated bool
}

// idSet finds the lines whose id an earlier line already has, in memory
// bounded by maxIDsInMemory ids whatever the input's size.
type idSet struct {
	dir  string
	mem  map[string]seenID
	runs []*os.File
	n    int // ids added
}

func newIDSet(dir string) *idSet { return &idSet{dir: dir, mem: make(map[string]seenID)} }

func (s *idSet) len() int { return s.n }

// add records id at line. A duplicate within the ids in memory is reported
// at once (dup), with the earlier one; one across runs is found by
// duplicates.
func (s *idSet) add(id string, at seenID) (prev seenID, dup bool, err error) {
	if prev, dup = s.mem[id]; dup {
		return prev, true, nil
	}
	// A copy: id may be part of a longer string (its line, see decodeFast)
	// that the set would otherwise keep.
	s.mem[strings.Clone(id)] = at
	s.n++
	if len(s.mem) >= maxIDsInMemory {
		err = s.spill()
	}
	return seenID{}, false, err
}

// spill writes the ids in memory to a new run, sorted, and forgets them.
func (s *idSet) spill() error {
	f, err := os.CreateTemp(s.dir, "jsonl-ids-*")
	if err != nil {
		return fmt.Errorf("duplicate id check: %w", err)
	}
	os.Remove(f.Name()) // unlinked: it goes with the descriptor
	s.runs = append(s.runs, f)
	w := bufio.NewWriter(f)
	ids := make([]string, 0, len(s.mem))
	for id := range s.mem {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var buf []byte
	for _, id := range ids {
		at := s.mem[id]
		buf = binary.AppendUvarint(buf[:0], uint64(len(id)))
		buf = append(buf, id...)
		buf = binary.AppendUvarint(buf, uint64(at.line)<<1|b2u(at.generated))
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("duplicate id check: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("duplicate id check: %w", err)
	}
	clear(s.mem)
	return nil
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// duplicates reports to bad every line whose id is on an earlier line of
// another run (add reported those within one run's ids), naming the first
// line with that id. Without runs there are none left to find.
func (s *idSet) duplicates(bad func(*LineError)) error {
	if len(s.runs) == 0 {
		return nil
	}
	h := &runHeap{}
	for _, f := range s.runs {
		r := &runReader{r: bufio.NewReader(f)}
		if err := r.next(); err != nil {
			return err
		}
		if !r.done {
			h.rs = append(h.rs, r)
		}
	}
	mem := &runReader{}
	for id, at := range s.mem {
		mem.rest = append(mem.rest, entry{id, at})
	}
	slices.SortFunc(mem.rest, func(x, y entry) int { return strings.Compare(x.id, y.id) })
	if err := mem.next(); err == nil && !mem.done {
		h.rs = append(h.rs, mem)
	}
	heap.Init(h)
	var id string
	var occurrences []seenID // of id, at most one a run
	flush := func() {
		slices.SortFunc(occurrences, func(x, y seenID) int { return x.line - y.line })
		for _, at := range occurrences[min(1, len(occurrences)):] {
			bad(duplicateError(id, occurrences[0], at))
		}
	}
	for h.Len() > 0 {
		r := h.rs[0]
		e := r.cur
		if err := r.next(); err != nil {
			return err
		}
		if r.done {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
		if e.id != id {
			flush()
			id, occurrences = e.id, occurrences[:0]
		}
		occurrences = append(occurrences, e.at)
	}
	flush()
	return nil
}

// close releases the runs.
func (s *idSet) close() {
	for _, f := range s.runs {
		f.Close()
	}
	s.runs = nil
}

// entry is one id of a run.
type entry struct {
	id string
	at seenID
}

// runReader reads a run (from r) or the sorted ids in memory (rest).
type runReader struct {
	r    *bufio.Reader
	rest []entry
	cur  entry
	done bool
}

func (r *runReader) next() error {
	if r.r == nil {
		if len(r.rest) == 0 {
			r.done = true
			return nil
		}
		r.cur, r.rest = r.rest[0], r.rest[1:]
		return nil
	}
	n, err := binary.ReadUvarint(r.r)
	if errors.Is(err, io.EOF) {
		r.done = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("duplicate id check: %w", err)
	}
	id := make([]byte, n)
	if _, err := io.ReadFull(r.r, id); err != nil {
		return fmt.Errorf("duplicate id check: %w", err)
	}
	v, err := binary.ReadUvarint(r.r)
	if err != nil {
		return fmt.Errorf("duplicate id check: %w", err)
	}
	r.cur = entry{string(id), seenID{line: int(v >> 1), generated: v&1 == 1}}
	return nil
}

// runHeap orders the runs by their current id.
type runHeap struct{ rs []*runReader }

func (h *runHeap) Len() int           { return len(h.rs) }
func (h *runHeap) Less(i, j int) bool { return h.rs[i].cur.id < h.rs[j].cur.id }
func (h *runHeap) Swap(i, j int)      { h.rs[i], h.rs[j] = h.rs[j], h.rs[i] }
func (h *runHeap) Push(x any)         { h.rs = append(h.rs, x.(*runReader)) }
func (h *runHeap) Pop() any {
	r := h.rs[len(h.rs)-1]
	h.rs = h.rs[:len(h.rs)-1]
	return r
}

// duplicateError is the error of line b, whose id line a already has.
func duplicateError(id string, a, b seenID) *LineError {
	if a.generated && b.generated {
		return &LineError{Line: b.line, Msg: fmt.Sprintf("same comment as line %d (neither has an id, so both would get id %s)", a.line, id)}
	}
	return &LineError{Line: b.line, Msg: fmt.Sprintf("duplicate id %q, also on line %d", id, a.line)}
}
