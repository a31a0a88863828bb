package bolt

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/acme/comments-gateway/store"
)

// The value encoding, version 1:
//
//	value = version:byte(1) count:uvarint attr*count
//	attr  = name tag:byte v
//	name  = len:uvarint(>0) bytes | 0 code:byte (dictNames[code])
//	v     = 's' len:uvarint bytes | 'n' zigzag-varint
//
// The attributes that the bucket key holds are not repeated in the value:
// an item's value lacks PK and SK, an index entry's lacks PK, SK and the
// index's hash and sort attributes. Decoding takes them from the key.
// Attributes of an item are in name order; those of an index entry in the
// index's attribute order. The decoder does not depend on the order.
const (
	codecVersion byte = 1
	tagString    byte = 's'
	tagNumber    byte = 'n'
)

// dictNames are the attribute names of the single-table design, encoded as
// one code byte (their index) instead of their bytes. Files hold the codes:
// the list is append-only, and holds literals rather than the store
// constants so that renaming a constant changes no file's meaning.
var dictNames = [...]string{
	"PK", "SK", "GSIPK", "GSI2PK", "GSI3PK", "GSI4PK", "GSISK",
	"id", "productId", "language", "rating", "author", "title", "body", "createdAt", "version",
	"count_total", "count_1", "count_2", "count_3", "count_4", "count_5",
}

// dictCode maps a name of dictNames to its code.
var dictCode = func() map[string]byte {
	m := make(map[string]byte, len(dictNames))
	for i, n := range dictNames {
		m[n] = byte(i)
	}
	return m
}()

// uvarintLen is the length of the uvarint encoding of x.
func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// nameLen is the encoded length of an attribute name.
func nameLen(name string) int {
	if _, ok := dictCode[name]; ok {
		return 2
	}
	return uvarintLen(uint64(len(name))) + len(name)
}

// attrLen is the encoded length of one attribute, or -1 when v is neither a
// string nor an int64 or the name is empty.
func attrLen(name string, v any) int {
	if name == "" {
		return -1
	}
	n := nameLen(name) + 1
	switch v := v.(type) {
	case string:
		return n + uvarintLen(uint64(len(v))) + len(v)
	case int64:
		return n + uvarintLen(uint64(v<<1)^uint64(v>>63))
	default:
		return -1
	}
}

func appendAttr(b []byte, name string, v any) []byte {
	if c, ok := dictCode[name]; ok {
		b = append(b, 0, c)
	} else {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
	}
	switch v := v.(type) {
	case string:
		b = append(b, tagString)
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	case int64:
		b = append(b, tagNumber)
		b = binary.AppendVarint(b, v)
	}
	return b
}

// encodeItem encodes the value of a whole item: all its attributes but PK
// and SK. It fails with EINVALID on a value that is neither a string nor an
// int64.
func encodeItem(it store.Item) ([]byte, error) {
	var buf [32]string
	names := buf[:0]
	size := 1
	for name, v := range it {
		if name == store.AttrPK || name == store.AttrSK {
			continue
		}
		n := attrLen(name, v)
		if n < 0 {
			if name == "" {
				return nil, store.Errorf(store.EINVALID, "attribute name must not be empty")
			}
			return nil, store.ValidateValue(name, v)
		}
		size += n
		names = append(names, name)
	}
	size += uvarintLen(uint64(len(names)))
	slices.Sort(names)
	b := make([]byte, 0, size)
	b = append(b, codecVersion)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, name := range names {
		b = appendAttr(b, name, it[name])
	}
	return b, nil
}

// encodeAttrs encodes the attributes of it named in names (distinct), in that
// order, skipping those it lacks. The values must have been validated.
func encodeAttrs(it store.Item, names []string) []byte {
	size, count := 1, 0
	for _, name := range names {
		if v, ok := it[name]; ok {
			size += attrLen(name, v)
			count++
		}
	}
	size += uvarintLen(uint64(count))
	b := make([]byte, 0, size)
	b = append(b, codecVersion)
	b = binary.AppendUvarint(b, uint64(count))
	for _, name := range names {
		if v, ok := it[name]; ok {
			b = appendAttr(b, name, v)
		}
	}
	return b
}

// decodeItem decodes the item stored at key k of the items bucket.
func decodeItem(k, v []byte) (store.Item, error) {
	ks := string(k)
	i := strings.IndexByte(ks, sep)
	if i < 0 {
		return nil, errCorrupt
	}
	it, err := decodeAttrs(v, 2)
	if err != nil {
		return nil, err
	}
	it[store.AttrPK], it[store.AttrSK] = ks[:i], ks[i+1:]
	return it, nil
}

// decodeEntry decodes the index entry stored at key k of ix's bucket.
func (ix *index) decodeEntry(k, v []byte) (store.Item, error) {
	ks := string(k)
	var parts [4]string
	for p := range 3 {
		i := strings.IndexByte(ks, sep)
		if i < 0 {
			return nil, errCorrupt
		}
		parts[p], ks = ks[:i], ks[i+1:]
	}
	parts[3] = ks
	it, err := decodeAttrs(v, 4)
	if err != nil {
		return nil, err
	}
	it[ix.def.Hash], it[ix.def.Sort] = parts[0], parts[1]
	it[store.AttrPK], it[store.AttrSK] = parts[2], parts[3]
	return it, nil
}

// decodeAttrs decodes an encoded value into a new item with room for extra
// more attributes. The item does not alias b (bbolt's memory is valid only
// during its transaction): all its strings share one copy of b.
func decodeAttrs(b []byte, extra int) (store.Item, error) {
	if len(b) == 0 || b[0] != codecVersion {
		return nil, errCorrupt
	}
	s := string(b[1:])
	count, i, ok := readUvarint(s, 0)
	// Every attribute takes at least 3 bytes: a bound for corrupt counts.
	if !ok || count > uint64(len(s)/3+1) {
		return nil, errCorrupt
	}
	it := make(store.Item, int(count)+extra)
	for range count {
		var n uint64
		if n, i, ok = readUvarint(s, i); !ok || n >= uint64(len(s)-i) {
			return nil, errCorrupt
		}
		var name string
		if n == 0 {
			c := int(s[i])
			if c >= len(dictNames) {
				return nil, errCorrupt
			}
			name = dictNames[c]
			i++
		} else {
			name = s[i : i+int(n)]
			i += int(n)
		}
		if i >= len(s) {
			return nil, errCorrupt
		}
		tag := s[i]
		i++
		switch tag {
		case tagString:
			if n, i, ok = readUvarint(s, i); !ok || n > uint64(len(s)-i) {
				return nil, errCorrupt
			}
			it[name] = s[i : i+int(n)]
			i += int(n)
		case tagNumber:
			if n, i, ok = readUvarint(s, i); !ok {
				return nil, errCorrupt
			}
			x := int64(n >> 1)
			if n&1 != 0 {
				x = ^x
			}
			it[name] = x
		default:
			return nil, errCorrupt
		}
	}
	if i != len(s) {
		return nil, errCorrupt
	}
	return it, nil
}

// readUvarint reads a uvarint from s at i; it returns the value, the index
// past it, and false on a truncated or overlong encoding.
func readUvarint(s string, i int) (uint64, int, bool) {
	var x uint64
	var shift uint
	for j := 0; j < binary.MaxVarintLen64; j++ {
		if i >= len(s) {
			return 0, i, false
		}
		c := s[i]
		i++
		if c < 0x80 {
			if j == binary.MaxVarintLen64-1 && c > 1 {
				return 0, i, false
			}
			return x | uint64(c)<<shift, i, true
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, i, false
}

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

// indexKey is the key of an index entry: hash, sort, PK and SK, separated by
// "\x00".
func indexKey(hash, sort, pk, sk string) []byte {
	b := make([]byte, 0, len(hash)+len(sort)+len(pk)+len(sk)+3)
	b = append(b, hash...)
	b = append(b, sep)
	b = append(b, sort...)
	b = append(b, sep)
	b = append(b, pk...)
	b = append(b, sep)
	return append(b, sk...)
}

// pkOf returns the PK part of a key of the items bucket.
func pkOf(k []byte) []byte {
	for i, c := range k {
		if c == sep {
			return k[:i]
		}
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
