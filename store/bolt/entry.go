package bolt

import (
	"bytes"
	"encoding/binary"
	"strings"

	"github.com/acme/comments-gateway/store/table"
)

// known is what an index entry tells of the item it points to, so that
// decoding the item need not build it again: the item's sort value under
// the index (the entry holds it), its hash value (the partition's, which
// the query names) and, in a partition of times, the time that begins the
// sort value (after its count, in a partition of counted times). The entry
// is written with the item in one transaction, from the item's own values,
// so these are exactly the item's.
type known struct {
	sortAttr, sort string
	hashAttr, hash string
	times          bool  // sort holds the time secs, nanos at timeAt
	timeAt         int   // 0, or countSortLen after a count
	secs, nanos    int64 // since 1970
	// size is the attributes the page's item before this one decoded to
	// (0: none yet): the room its item is made with, as the items of a
	// page are alike.
	size int
}

// value returns the item's value of attribute name when the entry holds
// it.
func (kn *known) value(name string) (string, bool) {
	switch {
	case kn == nil:
		return "", false
	case name == kn.sortAttr:
		return kn.sort, true
	case name == kn.hashAttr:
		return kn.hash, true
	}
	return "", false
}

// time returns table.FormatFixedTime(secs, nanos) when it is the time the
// sort value holds: a substring of it, built once for both.
func (kn *known) time(secs, nanos int64) (string, bool) {
	if kn == nil || !kn.times || secs != kn.secs || nanos != kn.nanos {
		return "", false
	}
	return kn.sort[kn.timeAt : kn.timeAt+timeSortLen], true
}

// entryItem is an index entry read: what it tells of its item, and the
// item's table key.
type entryItem struct {
	known
	pk, sk string
}

// itemKey returns the items-bucket key of the item of entry key k of the
// partition, and the encoded sort value, both valid as long as k and
// buf: a key that the entry leaves out is built in buf. It returns buf,
// and false on a malformed entry.
func (p partition) itemKey(k, buf []byte) (ik, enc, _ []byte, ok bool) {
	enc, tail, ok := p.split(k)
	if !ok {
		return nil, nil, buf, false
	}
	switch tail[0] {
	case tailDerived:
		if len(tail) != 1 {
			return nil, nil, buf, false
		}
		// The id: what follows the last "#" of the sort value, which in a
		// partition of times is at the latest the one after the time; the
		// table key is COMMENT#id twice.
		rest := enc[p.headLen():]
		id := rest[bytes.LastIndexByte(rest, '#')+1:]
		buf = append(append(buf[:0], commentPrefix...), id...)
		buf = append(append(append(buf, sep), commentPrefix...), id...)
		return buf, enc, buf, true
	case tailBefore, tailAfter:
		if bytes.IndexByte(tail[1:], sep) < 0 {
			return nil, nil, buf, false
		}
		return tail[1:], enc, buf, true
	}
	return nil, nil, buf, false
}

// readEntry sets e (all but the attribute names and the hash value, which
// are the index's and the query's) from the encoded sort value enc and the
// items-bucket key ik of an entry of the partition, and returns v, the
// item's value: the three copied into one new string.
func (p partition) readEntry(e *entryItem, enc, ik, v []byte) string {
	var t [countSortLen + len(table.TimeLayout) + 1]byte
	// time is the sort value's head in a partition of times: its count and
	// "#" (counted), its time and "#".
	time := t[:0]
	e.times, e.timeAt = p.kind != kindStrings, 0
	switch p.kind {
	case kindCounted:
		time = appendCount(time, uint40(enc))
		e.timeAt, enc = countSortLen, enc[countKeyLen:]
		fallthrough
	case kindTimes:
		e.secs, e.nanos = int64(uint40(enc))-timeBias, int64(binary.BigEndian.Uint32(enc[5:timeKeyLen]))
		time = append(table.AppendFixedTime(time, e.secs, e.nanos), '#')
		enc = enc[timeKeyLen:]
	}
	var b strings.Builder
	b.Grow(len(time) + len(enc) + len(ik) + len(v))
	b.Write(time)
	b.Write(enc)
	b.Write(ik)
	b.Write(v)
	s := b.String()
	sortEnd, keyEnd := len(time)+len(enc), len(time)+len(enc)+len(ik)
	e.sort = s[:sortEnd]
	e.pk, e.sk, _ = strings.Cut(s[sortEnd:keyEnd], "\x00")
	return s[keyEnd:]
}

// appendCount appends n in 10 decimal digits, zero-padded, and "#": the
// head of an HSK.
func appendCount(b []byte, n uint64) []byte {
	var d [countSortLen]byte
	d[countSortLen-1] = '#'
	for i := countSortLen - 2; i >= 0; i-- {
		d[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, d[:]...)
}
