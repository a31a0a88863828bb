package table

import "sync"

// RecordArena lends the room of one reader's Records from blocks that
// outlive the reader. A reader that reads records and drops them all at
// once (a page, whose records become its comments) makes one, names it in
// each of its queries (Query.Arena) and Frees it once it reads none of
// their records again; the blocks, cleared, then serve a later reader.
// Without an arena a backend allocates its records.
//
// A backend takes whole blocks (Block) and hands out their records
// itself; queries of one reader may take blocks concurrently. The zero
// RecordArena is ready to use, and a nil one lends nothing.
type RecordArena struct {
	mu     sync.Mutex
	blocks []*[]Value
	one    [2]*[]Value // the room of blocks for the usual reader
}

// arenaBlock is the number of values in a pooled block: a page of 20
// comments and the one past it, in the 22 columns of a comment, fit one.
const arenaBlock = 512

var arenaBlocks = sync.Pool{New: func() any { b := make([]Value, arenaBlock); return &b }}

// Block returns n zero values: from a pooled block when n fits one and a
// is not nil, else newly allocated.
func (a *RecordArena) Block(n int) []Value {
	if a == nil || n > arenaBlock {
		return make([]Value, n)
	}
	b := arenaBlocks.Get().(*[]Value)
	*b = (*b)[:n] // what is lent, and what Free clears
	a.mu.Lock()
	if a.blocks == nil {
		a.blocks = a.one[:0]
	}
	a.blocks = append(a.blocks, b)
	a.mu.Unlock()
	return (*b)[:n:n]
}

// Free gives the arena's blocks back to the pool, cleared: the values it
// lent of each (the rest of a block was never lent, so is still zero). No
// record the arena lent may be read after it; the arena may lend again.
func (a *RecordArena) Free() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, b := range a.blocks {
		clear(*b)
		*b = (*b)[:arenaBlock]
		arenaBlocks.Put(b)
		a.blocks[i] = nil
	}
	a.blocks = a.blocks[:0]
}
