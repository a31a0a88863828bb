package bolt

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store/table"
)

// sep separates the parts of a bucket key. No key attribute value contains
// it, so the byte order of the keys is the order of (part1, part2, ...).
const sep = 0

// baseKey is the key of item k in the items bucket: PK + "\x00" + SK.
func baseKey(k table.Key) []byte {
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

// An index entry (format 2) is a key with an empty value (but for the
// mark of a twin's base index, passValue):
//
//	entry = partition:uvarint sort "\x00" tail
//	sort  = bytes                              (a partition of strings)
//	      | seconds:5 nanos:4 rest             (a partition of times)
//	      | count:5 seconds:5 nanos:4 rest     (a partition of counted times)
//	tail  = 0x02                               the table key is derived
//	      | (0x01 | 0x03) PK "\x00" SK
//
// The partition is the number the partitions bucket gives the entry's
// partition name: the hash key value, followed by "\x00" and the sort
// attribute for an index not sorted by GSISK (the helpful twins share
// their hash values with the public indexes, but not their sort values).
// A query always names one partition, so the order of the partitions does
// not matter, and a uvarint is never the prefix of another. Entries of a
// partition are in sort order, ties by table key, as on DynamoDB.
//
// A comment's sort value (GSISK) is its createdAt in fixed width, "#" and
// its id. A partition whose sort values all have that form (isTimeSort)
// holds them as 9 bytes of big-endian seconds (from year 0) and
// nanoseconds followed by what follows the "#": fixed width and big-endian
// keep the order of the strings, in 19 fewer bytes. A comment's HSK is its
// helpful count in 10 digits, "#" and its GSISK (isCountedSort): a
// partition of counted times holds the count as 5 big-endian bytes before
// the time, 30 bytes fewer than the string. The first entry decides a
// partition's kind, recorded with its number; an entry of another form
// turns the partition into one of strings (toStrings), a rewrite that the
// comments of the single-table design never cause.
//
// The tail says which item the entry is of, compactly for a comment: its
// table key, COMMENT#id twice, is derived from the id that ends its sort
// value (0x02). Other items spell their key out, after 0x01 when it is
// below the derived key of their sort value and 0x03 when above, so that
// ties keep the table key order.
const (
	tailBefore  byte = 1
	tailDerived byte = 2
	tailAfter   byte = 3
)

// Kinds of partition, recorded after the number in the partitions bucket.
const (
	kindStrings byte = 's'
	kindTimes   byte = 't'
	kindCounted byte = 'c'
)

// timeSortLen is the length of the time that begins a comment's sort
// value, and timeKeyLen that of its encoding in an entry key; countSortLen
// is the length of the count and "#" that begin an HSK, and countKeyLen
// that of the count's encoding.
const (
	timeSortLen  = len(table.TimeLayout)
	timeKeyLen   = 9
	countSortLen = 11
	countKeyLen  = 5
	maxCount     = 9_999_999_999
	// timeBias makes the seconds of year 0 zero, so that they are unsigned
	// and those of year 9999 fit in 5 bytes.
	timeBias = 62167219200
)

// entryRef is an index entry before it has a key: the name of its
// partition (partitionName), its sort value and its item's table key; and,
// in the base index of a helpful twin, whether its item is outside the
// twin's zero tail (pass: the entry's value is passValue).
type entryRef struct {
	hash, sort, pk, sk string
	pass               bool
}

// value is the value of entry e: passValue for an entry a read of a zero
// tail passes by, else empty.
func (e entryRef) value() []byte {
	if e.pass {
		return passValue
	}
	return noValue
}

// noValue is the value of an index entry, but for passValue.
var noValue = []byte{}

// passValue is the value of an entry of a helpful twin's base index whose
// item is not of the twin's zero tail (it has a helpful vote, or no HSK):
// a read of the zero tail passes it by without reading the item (twin.go).
// An entry written before it existed has no value and is read as before.
var passValue = []byte{'p'}

// partitionName is the name in the partitions bucket of the partition of
// hash value hash in an index sorted by sortAttr.
func partitionName(hash, sortAttr string) string {
	if sortAttr == table.AttrGSISK {
		return hash
	}
	return hash + "\x00" + sortAttr
}

// isTimeSort reports whether sort has the form of a comment's sort value:
// a time in the fixed-width form, "#" and at least one byte.
func isTimeSort(sort string) bool {
	if len(sort) < timeSortLen+2 || sort[timeSortLen] != '#' {
		return false
	}
	_, _, ok := table.ParseFixedTime(sort[:timeSortLen])
	return ok
}

// parseCount returns the count that begins a counted sort value: 10
// decimal digits and "#".
func parseCount(sort string) (uint64, bool) {
	if len(sort) < countSortLen || sort[countSortLen-1] != '#' {
		return 0, false
	}
	var n uint64
	for _, c := range []byte(sort[:countSortLen-1]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// isCountedSort reports whether sort has the form of a comment's HSK: a
// count (parseCount) and a comment's sort value.
func isCountedSort(sort string) bool {
	_, ok := parseCount(sort)
	return ok && isTimeSort(sort[countSortLen:])
}

// sortKind is the kind of a partition whose first sort value is sort.
func sortKind(sort string) byte {
	switch {
	case isTimeSort(sort):
		return kindTimes
	case isCountedSort(sort):
		return kindCounted
	}
	return kindStrings
}

// partition is one partition of an index as a transaction sees it.
type partition struct {
	prefix []byte // its number: the first bytes of its entries' keys
	kind   byte   // how its sort values are held
}

// headLen is the length of the fixed-width head that begins an encoded
// sort value of the partition (before what follows the time's "#").
func (p partition) headLen() int {
	switch p.kind {
	case kindTimes:
		return timeKeyLen
	case kindCounted:
		return countKeyLen + timeKeyLen
	}
	return 0
}

// appendSort appends the encoding of sort in the partition, or fails when a
// partition of times (counted or not) cannot hold it.
func (p partition) appendSort(b []byte, sort string) ([]byte, bool) {
	switch p.kind {
	case kindTimes:
		if !isTimeSort(sort) {
			return b, false
		}
	case kindCounted:
		n, ok := parseCount(sort)
		if !ok || !isTimeSort(sort[countSortLen:]) {
			return b, false
		}
		b = append(b, byte(n>>32), byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		sort = sort[countSortLen:]
	default:
		return append(b, sort...), true
	}
	secs, nanos, _ := table.ParseFixedTime(sort[:timeSortLen])
	u := uint64(secs + timeBias)
	b = append(b, byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
	b = binary.BigEndian.AppendUint32(b, uint32(nanos))
	return append(b, sort[timeSortLen+1:]...), true
}

// key returns the key of entry e in the partition, or false when the
// partition cannot hold its sort value.
func (p partition) key(e entryRef) ([]byte, bool) {
	b := make([]byte, 0, len(p.prefix)+len(e.sort)+len(e.pk)+len(e.sk)+3)
	b, ok := p.appendSort(append(b, p.prefix...), e.sort)
	if !ok {
		return nil, false
	}
	b = append(b, sep)
	if isDerivedKey(e.pk, e.sort) && isDerivedKey(e.sk, e.sort) {
		return append(b, tailDerived), true
	}
	d := derivedTableKey(e.sort)
	switch {
	case e.pk < d || e.pk == d && e.sk < d:
		b = append(b, tailBefore)
	default:
		b = append(b, tailAfter)
	}
	b = append(b, e.pk...)
	b = append(b, sep)
	return append(b, e.sk...), true
}

// decode returns the sort value of entry key k of the partition and the
// items-bucket key of its item (which may alias k).
func (p partition) decode(k []byte) (string, []byte, bool) {
	ik, enc, _, ok := p.itemKey(k, nil)
	if !ok {
		return "", nil, false
	}
	var e entryItem
	p.readEntry(&e, enc, ik, nil)
	return e.sort, ik, true
}

// split splits entry key k of the partition into its encoded sort value
// and its tail.
func (p partition) split(k []byte) (enc, tail []byte, ok bool) {
	if !bytes.HasPrefix(k, p.prefix) {
		return nil, nil, false
	}
	k = k[len(p.prefix):]
	from := p.headLen()
	if from > 0 {
		if len(k) < from || binary.BigEndian.Uint32(k[from-4:from]) >= 1e9 ||
			p.kind == kindCounted && uint40(k) > maxCount {
			return nil, nil, false
		}
	}
	i := bytes.IndexByte(k[from:], sep)
	if i < 0 || from+i+1 >= len(k) {
		return nil, nil, false
	}
	return k[:from+i], k[from+i+1:], true
}

// uint40 is the big-endian number of the first 5 bytes of b.
func uint40(b []byte) uint64 {
	return uint64(b[0])<<32 | uint64(b[1])<<24 | uint64(b[2])<<16 | uint64(b[3])<<8 | uint64(b[4])
}

// derivedTableKey is the table key (PK and SK alike) that the tail of an
// entry with sort value sort may leave out.
func derivedTableKey(sort string) string {
	return commentPrefix + sort[strings.LastIndexByte(sort, '#')+1:]
}

// isDerivedKey reports whether k is derivedTableKey(sort), without
// building it.
func isDerivedKey(k, sort string) bool {
	id := sort[strings.LastIndexByte(sort, '#')+1:]
	rest, ok := strings.CutPrefix(k, commentPrefix)
	return ok && rest == id
}

// partitions gives each partition of the indexes (partitionName) a number
// and a kind (see the entry layout above). Numbers are never reused nor removed.
type partitions struct {
	b *bbolt.Bucket
	// known, if not nil, remembers the partitions got or put (a writer's,
	// within its transaction: a chunk of a bulk load puts thousands of
	// entries into a few hundred partitions).
	known map[string]partition
}

// get returns partition hash, or false when it has no number.
func (ps partitions) get(hash string) (partition, bool) {
	if p, ok := ps.known[hash]; ok {
		return p, true
	}
	v := ps.b.Get([]byte(hash))
	if len(v) < 2 {
		return partition{}, false
	}
	p := partition{prefix: bytes.Clone(v[:len(v)-1]), kind: v[len(v)-1]}
	if ps.known != nil {
		ps.known[hash] = p
	}
	return p, true
}

// create numbers partition hash (in a write transaction), of the kind of
// its first sort value.
func (ps partitions) create(hash, firstSort string) (partition, error) {
	seq, err := ps.b.NextSequence()
	if err != nil {
		return partition{}, err
	}
	p := partition{prefix: binary.AppendUvarint(nil, seq), kind: sortKind(firstSort)}
	return p, ps.put(hash, p)
}

// put records partition hash.
func (ps partitions) put(hash string, p partition) error {
	if ps.known != nil {
		ps.known[hash] = p
	}
	return ps.b.Put([]byte(hash), append(bytes.Clone(p.prefix), p.kind))
}
