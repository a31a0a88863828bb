package bolt

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/acme/comments-gateway/store/table"
)

// The value encoding of format 1 (still read: files are migrated from it)
// and formats 2 to 4 (3 added HSK and helpful to dictNames, which a
// program of format 2 cannot read; 4 changed the index buckets alone):
//
//	value = version:byte(1|2) count:uvarint attr*count
//	attr  = name tag:byte v
//	name  = len:uvarint(>0) bytes | 0 code:byte (dictNames[code])
//	v     = 's' len:uvarint bytes | 'n' zigzag-varint
//	      | 't' seconds:zigzag-varint nanos:uvarint   (version 2)
//	      | 'd'                                       (version 2)
//
// The attributes that the bucket key holds are not repeated in the value:
// an item's value lacks PK and SK (and a format-1 index entry's lacked the
// index's keys too). Attributes are in name order. Version 2 adds two
// tags that make a comment's value about half the size:
//
//   - 't' is a string in the fixed-width UTC form of a comment's createdAt
//     ("2006-01-02T15:04:05.000000000Z"), held as seconds and nanoseconds
//     since 1970;
//   - 'd' is an attribute derived from the others by one of the rules of
//     derivations (the comment's id from its PK, GSISK from createdAt and
//     id, HSK from helpful and those, the four index hash keys from
//     productId, language and rating):
//     the encoder writes 'd' only where the rule gives exactly the value
//     the item has, so decoding restores it byte for byte.
const (
	codecV1   byte = 1
	codecV2   byte = 2
	tagString byte = 's'
	tagNumber byte = 'n'
	tagTime   byte = 't'
	tagDerive byte = 'd'
)

// codecVersion is the version of the values Table writes.
const codecVersion = codecV2

// dictNames are the attribute names of the single-table design, encoded as
// one code byte (their index) instead of their bytes. Files hold the codes:
// the list is append-only, and holds literals rather than the store
// constants so that renaming a constant changes no file's meaning.
var dictNames = [...]string{
	"PK", "SK", "GSIPK", "GSI2PK", "GSI3PK", "GSI4PK", "GSISK",
	"id", "productId", "language", "rating", "author", "title", "body", "createdAt", "version",
	"count_total", "count_1", "count_2", "count_3", "count_4", "count_5",
	"HSK", "helpful",
}

// dictCode maps a name of dictNames to its code.
var dictCode = func() map[string]byte {
	m := make(map[string]byte, len(dictNames))
	for i, n := range dictNames {
		m[n] = byte(i)
	}
	return m
}()

func appendName(b []byte, name string) []byte {
	if c, ok := dictCode[name]; ok {
		return append(b, 0, c)
	}
	b = binary.AppendUvarint(b, uint64(len(name)))
	return append(b, name...)
}

// appendAttr appends one attribute, of an item whose derivation sources are
// src, in the version-2 encoding. It fails with EINVALID on the zero Value
// or an empty name.
func appendAttr(b []byte, name string, val table.Value, src sources) ([]byte, error) {
	if name == "" {
		return nil, table.Errorf(table.EINVALID, "attribute name must not be empty")
	}
	if v, ok := val.Str(); ok {
		b = appendName(b, name)
		if d, ok := derivations[name]; ok && d.matches(v, src) {
			return append(b, tagDerive), nil
		}
		if secs, nanos, ok := table.ParseFixedTime(v); ok {
			b = append(b, tagTime)
			b = binary.AppendVarint(b, secs)
			return binary.AppendUvarint(b, uint64(nanos)), nil
		}
		b = append(b, tagString)
		b = binary.AppendUvarint(b, uint64(len(v)))
		return append(b, v...), nil
	}
	if v, ok := val.Num(); ok {
		b = appendName(b, name)
		b = append(b, tagNumber)
		return binary.AppendVarint(b, v), nil
	}
	return nil, table.ValidateValue(name, val)
}

// encodeItem encodes the value of a whole item: all its attributes but PK
// and SK. It fails with EINVALID on the zero Value.
func encodeItem(it table.Item) ([]byte, error) {
	var buf [32]string
	names := buf[:0]
	size := 2
	for name, v := range it {
		if name == table.AttrPK || name == table.AttrSK {
			continue
		}
		names = append(names, name)
		s, _ := v.Str()
		size += len(name) + 12 + len(s)
	}
	slices.Sort(names)
	src := sourcesOf(it, it.S(table.AttrPK))
	b := make([]byte, 0, size)
	b = append(b, codecVersion)
	b = binary.AppendUvarint(b, uint64(len(names)))
	var err error
	for _, name := range names {
		if b, err = appendAttr(b, name, it[name], src); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// decodeItem decodes the item stored at key k of the items bucket.
func decodeItem(k, v []byte) (table.Item, error) {
	return decodeProjected(k, v, nil)
}

// decodeProjected decodes the item stored at key k of the items bucket,
// keeping only the attributes in keep (all when keep is nil). The item does
// not alias k or v (bbolt's memory is valid only during its transaction):
// its strings share one copy of both.
func decodeProjected(k, v []byte, keep *projection) (table.Item, error) {
	pk, sk, val, err := copyStored(k, v)
	if err != nil {
		return nil, err
	}
	return decodeKeyed(pk, sk, val, keep, nil)
}

// copyStored copies key k and value v of the items bucket into one new
// string, and returns the item's PK, SK and value in it.
func copyStored(k, v []byte) (pk, sk, val string, err error) {
	var b strings.Builder
	b.Grow(len(k) + len(v))
	b.Write(k)
	b.Write(v)
	kv := b.String()
	pk, sk, ok := strings.Cut(kv[:len(k)], "\x00")
	if !ok {
		return "", "", "", errCorrupt
	}
	return pk, sk, kv[len(k):], nil
}

// decodeKeyed decodes value v, a copy of the stored one, of the item whose
// table key is pk and sk, keeping only the attributes in keep (all when
// keep is nil); kn (nil: nothing) is what the index entry that led to the
// item tells of it.
func decodeKeyed(pk, sk, v string, keep *projection, kn *known) (table.Item, error) {
	out := sink{keep: keep, kn: kn}
	if err := decodeInto(&out, pk, sk, v, keep, kn); err != nil {
		return nil, err
	}
	if kn != nil {
		kn.size = len(out.it) // the room the page's next item is made with
	}
	return out.it, nil
}

// decodeInto decodes value v of the item whose table key is pk and sk, as
// decodeKeyed does, into out: the one decoding of an item, whether into an
// Item or a Record.
func decodeInto(out *sink, pk, sk, v string, keep *projection, kn *known) error {
	if err := decodeValue(v, pk, keep, kn, out); err != nil {
		return err
	}
	if keep.has(table.AttrPK, codePK) {
		out.put(table.AttrPK, codePK, table.S(pk))
	}
	if keep.has(table.AttrSK, codeSK) {
		out.put(table.AttrSK, codeSK, table.S(sk))
	}
	return nil
}

// Codes of the table key attributes in dictNames.
const (
	codePK = 0
	codeSK = 1
)

// decodeValue decodes an encoded value (either version) into out, keeping
// the attributes in keep (all when keep is nil). pk is the item's PK, the
// source of derived attributes; kn is decodeKeyed's. The item's strings
// are substrings of v, or kn's.
func decodeValue(v string, pk string, keep *projection, kn *known, out *sink) error {
	if len(v) == 0 || (v[0] != codecV1 && v[0] != codecV2) {
		return errCorrupt
	}
	v2 := v[0] == codecV2
	s := v[1:]
	count, i, ok := readUvarint(s, 0)
	// Every attribute takes at least 2 bytes: a bound for corrupt counts.
	if !ok || count > uint64(len(s)/2+1) {
		return errCorrupt
	}
	out.start(int(count))
	src := sources{pk: pk}
	var derived derivedSet
	for range count {
		var name string
		var code int
		if name, code, i, ok = readName(s, i); !ok || i >= len(s) {
			return errCorrupt
		}
		tag := s[i]
		if tag == tagDerive && v2 {
			j := deriveIndex(name, code)
			if j < 0 || derived.has(j) {
				return errCorrupt
			}
			derived |= 1 << j
			i++
			continue
		}
		var val table.Value
		if val, i, ok = readValue(s, i+1, tag, v2, kn); !ok {
			return errCorrupt
		}
		src.set(name, val)
		if keep.has(name, code) && !out.put(name, code, val) {
			return errCorrupt // a duplicate name
		}
	}
	if i != len(s) {
		return errCorrupt
	}
	if derived != 0 {
		return derive(out, src, derived, keep, kn)
	}
	return nil
}

// readValue reads the value of tag at i of s (v2: of a version-2
// encoding), other than 'd'. A time that the index entry kn holds too is
// kn's string rather than a new one.
func readValue(s string, i int, tag byte, v2 bool, kn *known) (table.Value, int, bool) {
	var n uint64
	var ok bool
	switch {
	case tag == tagString:
		if n, i, ok = readUvarint(s, i); !ok || n > uint64(len(s)-i) {
			return table.Value{}, i, false
		}
		return table.S(s[i : i+int(n)]), i + int(n), true
	case tag == tagNumber:
		if n, i, ok = readUvarint(s, i); !ok {
			return table.Value{}, i, false
		}
		return table.N(zigzag(n)), i, true
	case tag == tagTime && v2:
		var nanos uint64
		if n, i, ok = readUvarint(s, i); !ok {
			return table.Value{}, i, false
		}
		if nanos, i, ok = readUvarint(s, i); !ok || nanos >= 1e9 {
			return table.Value{}, i, false
		}
		if t, ok := kn.time(zigzag(n), int64(nanos)); ok {
			return table.S(t), i, true
		}
		return table.S(table.FormatFixedTime(zigzag(n), int64(nanos))), i, true
	}
	return table.Value{}, i, false
}

// readName reads an attribute name from s at i, and its code (-1 when it
// is spelled out).
func readName(s string, i int) (string, int, int, bool) {
	n, i, ok := readUvarint(s, i)
	if !ok || n >= uint64(len(s)-i) {
		return "", -1, i, false
	}
	if n == 0 {
		c := int(s[i])
		if c >= len(dictNames) {
			return "", -1, i, false
		}
		return dictNames[c], c, i + 1, true
	}
	return s[i : i+int(n)], -1, i + int(n), true
}

// projection is a set of attribute names that a decoding keeps; nil keeps
// all. Names of dictNames are looked up by their code.
type projection struct {
	codes [len(dictNames)]bool
	names map[string]bool
}

// size is the number of attributes a decoding keeps of an item of count
// attributes besides its key.
func (p *projection) size(count int) int {
	if p == nil {
		return min(count, 16) + 2
	}
	return len(p.names)
}

// newProjection returns the projection of names.
func newProjection(names []string) *projection {
	p := &projection{names: map[string]bool{}}
	for _, n := range names {
		p.names[n] = true
		if c, ok := dictCode[n]; ok {
			p.codes[c] = true
		}
	}
	return p
}

// has reports whether the projection keeps name, whose code is code (-1:
// none).
func (p *projection) has(name string, code int) bool {
	if p == nil {
		return true
	}
	if code >= 0 {
		return p.codes[code]
	}
	return p.names[name]
}

// zigzag decodes a zigzag-encoded varint.
func zigzag(n uint64) int64 {
	x := int64(n >> 1)
	if n&1 != 0 {
		x = ^x
	}
	return x
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

// keyAttr returns the string value of key attribute name of it, checked.
func keyAttr(it table.Item, name string, max int) (string, error) {
	v, ok := it[name]
	if !ok {
		return "", table.Errorf(table.EINVALID, "key attribute %s is missing", name)
	}
	s, ok := v.Str()
	if !ok {
		return "", table.Errorf(table.EINVALID, "key attribute %s must be a string, not %v", name, v.Kind())
	}
	return s, table.ValidateKeyValue(name, s, max)
}
