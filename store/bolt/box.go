package bolt

import "unsafe"

// A boxer makes the interface values of the strings of the items a read
// decodes (store.Item holds its values as any) a chunk at a time. Go boxes
// a string into an interface by copying its header (pointer and length) to
// a new 16-byte allocation; a page of 20 comments made 220 of them, half of
// the allocations of a page read. A boxer instead copies the headers into a
// slice of strings that it allocates once per chunk, and points each
// interface value at its header there: what the runtime does, in one
// allocation for many values. A header is written once, before its value
// is made, and never changed after, as the runtime's copy is never changed;
// the chunk lives as long as any value that points into it.
//
// The nil *boxer boxes as Go does (one allocation per string).
type boxer struct {
	free  []string // the unused headers of the current chunk
	chunk int      // headers in the next chunk
}

// maxBoxChunk bounds a chunk (4 KiB of headers): a value keeps its whole
// chunk alive.
const maxBoxChunk = 256

// newBoxer returns a boxer for about n strings.
func newBoxer(n int) *boxer { return &boxer{chunk: min(max(n, 16), maxBoxChunk)} }

// str returns s as an interface value.
func (b *boxer) str(s string) any {
	if b == nil || s == "" { // Go boxes "" without allocating
		return s
	}
	if len(b.free) == 0 {
		b.free = make([]string, b.chunk)
		b.chunk = maxBoxChunk
	}
	p := &b.free[0]
	*p = s
	b.free = b.free[1:]
	return stringAt(p)
}

// eface is the layout of an interface value of type any: its dynamic type
// and a pointer to its value (runtime.eface).
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// stringAt returns the interface value of type string whose value is the
// header at p, which must not change afterwards.
func stringAt(p *string) any {
	v := any("") // the dynamic type: string
	(*eface)(unsafe.Pointer(&v)).data = unsafe.Pointer(p)
	return v
}
