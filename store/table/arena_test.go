package table

import "testing"

// TestRecordArenaLendsClearedBlocks: a block is n zero values, from the
// pool when n fits a pooled block; what a reader wrote is gone when the
// block is lent again after Free; a nil arena and a block larger than a
// pooled one allocate.
func TestRecordArenaLendsClearedBlocks(t *testing.T) {
	var a RecordArena
	for round := range 3 {
		for _, n := range []int{22, 462, arenaBlock, 7} {
			b := a.Block(n)
			if len(b) != n || cap(b) != n {
				t.Fatalf("round %d: Block(%d) has len %d, cap %d", round, n, len(b), cap(b))
			}
			for i := range b {
				if b[i].Kind() != KindNone {
					t.Fatalf("round %d: Block(%d)[%d] = %+v, want the zero Value", round, n, i, b[i])
				}
				b[i] = S("written by an earlier reader")
			}
		}
		if got := len(a.blocks); got != 4 {
			t.Errorf("round %d: the arena holds %d blocks, want 4", round, got)
		}
		a.Free()
		if len(a.blocks) != 0 {
			t.Errorf("round %d: %d blocks held after Free", round, len(a.blocks))
		}
	}
	if b := a.Block(arenaBlock + 1); len(b) != arenaBlock+1 || len(a.blocks) != 0 {
		t.Errorf("a block larger than a pooled one: len %d, %d blocks held; want it allocated", len(b), len(a.blocks))
	}
	var none *RecordArena
	if b := none.Block(3); len(b) != 3 {
		t.Errorf("a nil arena's Block(3) has len %d", len(b))
	}
	none.Free()
}
