package bolt

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store"
)

// sep separates the parts of a bucket key. No key attribute value contains
// it, so the byte order of the keys is the order of (part1, part2, ...).
const sep = 0

// baseKey is the key of item k in the items bucket: PK + "\x00" + SK.
func baseKey(k store.Key) []byte {
	b := make([]byte, 0, len(k.PK)+1+len(k.SK))
	b = append(b, k.PK...)
	b = append(b, sep)
	return append(b, k.SK...)
}

// splitBaseKey returns the PK and SK of a key of the items bucket.
func splitBaseKey(k []byte) (pk, sk string, ok bool) {
	i := bytes.IndexByte(k, sep)
	if i < 0 {
		return "", "", false
	}
	ks := string(k)
	return ks[:i], ks[i+1:], true
}

// pkOf returns the PK part of a key of the items bucket.
func pkOf(k []byte) []byte {
	if i := bytes.IndexByte(k, sep); i >= 0 {
		return k[:i]
	}
	return k
}

// prefixEnd returns the smallest byte string greater than every string that
// begins with p, or nil when there is none (p is all 0xff).
func prefixEnd(p []byte) []byte {
	end := slices.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// An index entry (format 2) is a key with an empty value:
//
//	entry = partition:uvarint sort "\x00" tail
//	tail  = 0x02                          the table key is derived
//	      | (0x01 | 0x03) PK "\x00" SK
//
// The partition is the number the partitions bucket gives the entry's hash
// key value: a query always names one hash value, so the order of the
// partitions does not matter, and a uvarint is never the prefix of another.
// Entries of a partition are in sort order, ties by table key, as on
// DynamoDB. The tail says which item the entry is of, compactly for a
// comment: the sort value of a comment (GSISK) ends with "#" and its id, so
// its table key, COMMENT#id twice, is derived from it (0x02). Other items
// spell their key out, after 0x01 when it is below the derived key of
// their sort value and 0x03 when above, so that ties keep the table key
// order.
const (
	tailBefore  byte = 1
	tailDerived byte = 2
	tailAfter   byte = 3
)

// derivedTableKey is the table key (PK and SK alike) that the tail of an
// entry with sort value sort may leave out.
func derivedTableKey(sort string) string {
	return commentPrefix + sort[strings.LastIndexByte(sort, '#')+1:]
}

// appendEntrySuffix appends the part of an entry's key after the partition
// number: sort, "\x00" and the tail for table key pk, sk.
func appendEntrySuffix(b []byte, sort, pk, sk string) []byte {
	b = append(b, sort...)
	b = append(b, sep)
	d := derivedTableKey(sort)
	switch {
	case pk == d && sk == d:
		return append(b, tailDerived)
	case pk < d || pk == d && sk < d:
		b = append(b, tailBefore)
	default:
		b = append(b, tailAfter)
	}
	b = append(b, pk...)
	b = append(b, sep)
	return append(b, sk...)
}

// entryKey returns the key of an entry in partition part: part followed by
// its suffix.
func entryKey(part []byte, sort, pk, sk string) []byte {
	b := make([]byte, 0, len(part)+len(sort)+len(pk)+len(sk)+3)
	return appendEntrySuffix(append(b, part...), sort, pk, sk)
}

// entryItemKey returns the items-bucket key of the item an entry key is of.
func entryItemKey(k []byte) ([]byte, bool) {
	_, n := binary.Uvarint(k)
	if n <= 0 {
		return nil, false
	}
	i := bytes.IndexByte(k[n:], sep)
	if i < 0 || n+i+1 >= len(k) {
		return nil, false
	}
	sort, tail := k[n:n+i], k[n+i+1:]
	switch tail[0] {
	case tailDerived:
		if len(tail) != 1 {
			return nil, false
		}
		d := derivedTableKey(string(sort))
		return baseKey(store.Key{PK: d, SK: d}), true
	case tailBefore, tailAfter:
		if bytes.IndexByte(tail[1:], sep) < 0 {
			return nil, false
		}
		return bytes.Clone(tail[1:]), true
	}
	return nil, false
}

// partitions gives each hash key value of the indexes a number (see the
// entry layout above). Numbers are never reused nor removed.
type partitions struct {
	b   *bbolt.Bucket
	new map[string][]byte // numbered in this transaction
}

// get returns the number of partition hash, or nil when it has none.
func (p *partitions) get(hash string) []byte {
	if n, ok := p.new[hash]; ok {
		return n
	}
	return p.b.Get([]byte(hash))
}

// number returns the number of partition hash, giving it one if need be
// (in a write transaction).
func (p *partitions) number(hash string) ([]byte, error) {
	if n := p.get(hash); n != nil {
		return n, nil
	}
	seq, err := p.b.NextSequence()
	if err != nil {
		return nil, err
	}
	n := binary.AppendUvarint(nil, seq)
	if err := p.b.Put([]byte(hash), n); err != nil {
		return nil, err
	}
	if p.new == nil {
		p.new = map[string][]byte{}
	}
	p.new[hash] = n
	return n, nil
}
