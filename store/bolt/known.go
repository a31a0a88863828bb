package bolt

import (
	"encoding/binary"
	"strings"
)

// known is what an index entry tells of the item it points to, so that
// decoding the item need not build it again: the item's sort value under
// the index (the entry holds it), its hash value (the partition's, which
// the query names) and, in a partition of times, the time that begins the
// sort value. The entry is written with the item in one transaction, from
// the item's own values, so these are exactly the item's.
type known struct {
	sortAttr, sort string
	hashAttr, hash string
	times          bool  // sort begins with the time secs, nanos
	secs, nanos    int64 // since 1970
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

// time returns formatFixedTime(secs, nanos) when it is the time that
// begins the sort value: a substring of it, built once for both.
func (kn *known) time(secs, nanos int64) (string, bool) {
	if kn == nil || !kn.times || secs != kn.secs || nanos != kn.nanos {
		return "", false
	}
	return kn.sort[:timeSortLen], true
}

// entryItem is an index entry read: what it tells of its item, the item's
// table key, and its key in the items bucket.
type entryItem struct {
	known
	pk, sk string
	ik     []byte // valid until the next read into the same buffer
}

// readEntry reads entry key k of partition p into e (all but the
// attribute names and the hash value, which are the index's and the
// query's), building the item's items-bucket key in buf or pointing it
// into k: e.ik is valid until the next call with buf and as long as k. It
// returns buf, and false on a malformed entry.
func (p partition) readEntry(e *entryItem, k []byte, buf []byte) ([]byte, bool) {
	enc, tail, ok := p.split(k)
	if !ok {
		return buf, false
	}
	e.times = p.times
	if p.times {
		u := uint64(enc[0])<<32 | uint64(enc[1])<<24 | uint64(enc[2])<<16 | uint64(enc[3])<<8 | uint64(enc[4])
		e.secs, e.nanos = int64(u)-timeBias, int64(binary.BigEndian.Uint32(enc[5:timeKeyLen]))
		buf = append(appendFixedTime(buf[:0], e.secs, e.nanos), '#')
		buf = append(buf, enc[timeKeyLen:]...)
		e.sort = string(buf)
	} else {
		e.sort = string(enc)
	}
	switch tail[0] {
	case tailDerived:
		if len(tail) != 1 {
			return buf, false
		}
		// The id: what follows the last "#" of the sort value, which in a
		// partition of times is at the latest the one after the time; the
		// table key is COMMENT#id twice.
		e.pk = commentPrefix + e.sort[strings.LastIndexByte(e.sort, '#')+1:]
		e.sk = e.pk
		buf = append(append(append(buf[:0], e.pk...), sep), e.sk...)
		e.ik = buf
		return buf, true
	case tailBefore, tailAfter:
		e.ik = tail[1:]
		e.pk, e.sk, ok = splitBaseKey(e.ik)
		return buf, ok
	}
	return buf, false
}
