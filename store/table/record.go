package table

import "fmt"

// Columns is a fixed list of attribute names, each at its position: the
// shape of the Records a reader wants its items in (see Query.Columns).
// It is made once (NewColumns) and never changes.
type Columns struct {
	names []string
	pos   map[string]int
}

// NewColumns returns the columns names, in that order. It panics on an
// empty or repeated name: columns are a program's constant.
func NewColumns(names ...string) *Columns {
	c := &Columns{names: names, pos: make(map[string]int, len(names))}
	for i, n := range names {
		if _, dup := c.pos[n]; dup || n == "" {
			panic(fmt.Sprintf("table: column %q is empty or repeated", n))
		}
		c.pos[n] = i
	}
	return c
}

// Len returns the number of columns.
func (c *Columns) Len() int { return len(c.names) }

// Name returns the attribute name of column i.
func (c *Columns) Name(i int) string { return c.names[i] }

// Index returns the column of attribute name, -1 when it has none.
func (c *Columns) Index(name string) int {
	if i, ok := c.pos[name]; ok {
		return i
	}
	return -1
}

// Record returns item it as a record of the columns: the one conversion
// of an Item to a Record, which a backend that decodes straight into
// records must agree with (the conformance tests hold it to that).
func (c *Columns) Record(it Item) Record {
	r := make(Record, len(c.names))
	for i, n := range c.names {
		r[i] = it[n]
	}
	return r
}

// Record is an item read in a Columns: the value of column i at i, the
// zero Value where the item has no such attribute (absent, or not
// projected by the index read). Unlike an Item it is no map: a page of
// records is a few allocations, not one map per item. Attributes outside
// the columns are not in it.
type Record []Value

// S returns the string of column i, or "" when it is absent or a number.
func (r Record) S(i int) string {
	s, _ := r[i].Str()
	return s
}

// N returns the number of column i, or 0 when it is absent or a string.
func (r Record) N(i int) int64 {
	n, _ := r[i].Num()
	return n
}
