package bolt

import (
	"sync"

	"github.com/acme/comments-gateway/store/table"
)

// sink is where decoding puts the attributes of an item it keeps: a new
// Item (cols nil), or rec, a Record of cols, which drops the attributes
// outside its columns. The decoding is one (decodeInto) whichever it
// fills, so the two cannot disagree. A concrete type rather than an
// interface, so that a sink stays on the stack.
type sink struct {
	it   table.Item
	keep *projection // of an Item: sizes it
	kn   *known      // of an Item: sizes it as the page's item before
	rec  table.Record
	cols *columns
}

// start is called before the attributes of an item of count attributes
// besides its key.
func (s *sink) start(count int) {
	if s.cols != nil {
		return
	}
	size := s.keep.size(count)
	if s.kn != nil && s.kn.size > 0 {
		size = s.kn.size
	}
	s.it = make(table.Item, size)
}

// put sets attribute name, whose code in dictNames is code (-1: none),
// and reports false when the item already had it.
func (s *sink) put(name string, code int, v table.Value) bool {
	if s.cols == nil {
		n := len(s.it)
		s.it[name] = v
		return len(s.it) != n
	}
	i := s.cols.index(name, code)
	if i < 0 {
		return true
	}
	had := s.rec[i].Kind() != table.KindNone
	s.rec[i] = v
	return !had
}

// columns is a table.Columns with the column of each name of dictNames
// looked up once (-1: none).
type columns struct {
	*table.Columns
	codes [len(dictNames)]int16
}

// index returns the column of attribute name, whose code is code (-1:
// none), or -1.
func (c *columns) index(name string, code int) int {
	if code >= 0 {
		return int(c.codes[code])
	}
	return c.Index(name)
}

// columnsCache holds the columns of every table.Columns queried: a
// program has a few, made once.
var columnsCache sync.Map // *table.Columns → *columns

// columnsOf returns the columns of tc.
func columnsOf(tc *table.Columns) *columns {
	if c, ok := columnsCache.Load(tc); ok {
		return c.(*columns)
	}
	c := &columns{Columns: tc}
	for code, name := range dictNames {
		c.codes[code] = int16(tc.Index(name))
	}
	columnsCache.Store(tc, c)
	return c
}

// recordArena hands out the records of a read, of columns cols, from blocks
// of values allocated a page at a time rather than one by one.
type recordArena struct {
	cols   *columns
	free   []table.Value
	shared *table.RecordArena // the query's (Query.Arena), where blocks come from
}

// next returns a new zero record; hint is how many more the read may
// take (the size of a new block).
func (a *recordArena) next(hint int) table.Record {
	w := a.cols.Len()
	if len(a.free) < w {
		a.free = a.shared.Block(w * max(hint, 1))
	}
	r := a.free[:w:w]
	a.free = a.free[w:]
	return r
}
