package store

import (
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"
)

// Cursor formats. A cursor is opaque to clients and valid across filters,
// because GSISK is a unique position in every index, and it belongs to the
// order it was issued in:
//
//   - v1: base64url(0x01 ‖ GSISK), an OrderNewest cursor;
//   - v2: base64url(0x02 ‖ uvarint len(GSISK) ‖ GSISK ‖ position), an
//     OrderNewest cursor whose position tells how many comments of the
//     page's filter remain after it (see Position). A v2 cursor used with
//     another filter, product or language is a plain v1 cursor: its position
//     is ignored;
//   - v3: base64url(0x03 ‖ order ‖ order key ‖ uvarint len(GSISK) ‖ GSISK ‖
//     0x00, or 0x01 ‖ position), a cursor of any other order, where the
//     order key is the rating (one byte) in the rating orders, the helpful
//     count (uvarint) in OrderMostHelpful, and nothing in OrderOldest.
const (
	cursorV1 = 1
	cursorV2 = 2
	cursorV3 = 3
)

// maxHelpful bounds the helpful count of an HSK (10 digits).
const maxHelpful = 9_999_999_999

// maxPositionCounts bounds the counts a position carries: one per selected
// rating, or one for all ratings.
const maxPositionCounts = MaxRating - MinRating + 1

// Position is what a forward cursor knows about the comments after it: for
// the filter it was issued under (Filter, a hash of product, language and
// ratings), the number of matching comments older than the cursor, one count
// per selected rating (or a single count when every rating is selected), as
// of the stats item's Version. It is a hint: a page reads exactly the same
// comments with or without it. It only sizes the reads, and, when the stats
// read with the page still have the same version, lets the page know that
// more comments follow without reading one past the page.
type Position struct {
	Filter    uint32
	Version   int64
	Remaining []int64
}

// Cursor is a decoded cursor: a position in the list of one order.
type Cursor struct {
	Order   Order
	SortKey string    // the comment's GSISK
	Rating  int       // the comment's rating, in OrderHighestRating and OrderLowestRating
	Helpful int64     // the comment's helpful count, in OrderMostHelpful
	Pos     *Position // nil: none issued (backward pages, rating orders, v1)
}

// key is the cursor's position in the sort order of its order's merged
// partitions: the HSK in OrderMostHelpful, else the GSISK.
func (c Cursor) key() string {
	if c.Order == OrderMostHelpful {
		return HelpfulSortKey(c.Helpful, c.SortKey)
	}
	return c.SortKey
}

// Encode returns cursor c as a client sees it: v1 or v2 in OrderNewest, v3
// in the other orders.
func (c Cursor) Encode() string {
	if c.Order == OrderNewest {
		return EncodePositionCursor(c.SortKey, c.Pos)
	}
	var raw [cursorRawLen]byte
	b := append(raw[:0], cursorV3, byte(c.Order))
	switch {
	case c.Order.byRating():
		b = append(b, byte(c.Rating))
	case c.Order == OrderMostHelpful:
		b = binary.AppendUvarint(b, uint64(c.Helpful))
	}
	b = binary.AppendUvarint(b, uint64(len(c.SortKey)))
	b = append(b, c.SortKey...)
	if c.Pos == nil {
		return cursorString(append(b, 0))
	}
	return cursorString(appendPosition(append(b, 1), c.Pos))
}

// FilterHash binds a Position to product pid and filter f.
func FilterHash(pid string, f Filter) uint32 {
	h := fnv.New32a()
	h.Write([]byte(pid))
	h.Write([]byte{0})
	h.Write([]byte(f.Language))
	h.Write([]byte{0})
	var mask byte = 0x80 // all ratings
	if f.Ratings != nil && len(f.Ratings) < maxPositionCounts {
		mask = 0
		for _, r := range f.Ratings {
			mask |= 1 << r
		}
	}
	h.Write([]byte{mask})
	return h.Sum32()
}

// EncodeCursor returns the (v1) cursor of the comment with sort key sk.
func EncodeCursor(sk string) string {
	var raw [cursorRawLen]byte
	b := append(raw[:0], cursorV1)
	b = append(b, sk...)
	return cursorString(b)
}

// cursorRawLen bounds the bytes of a cursor that ParseCursor accepts (300
// base64 characters).
const cursorRawLen = 225

// cursorString returns b in base64 as a cursor: one allocation, the string
// (a page writes a cursor for each of its edges).
func cursorString(b []byte) string {
	var out [300]byte
	n := base64.RawURLEncoding.EncodedLen(len(b))
	if n > len(out) {
		return base64.RawURLEncoding.EncodeToString(b)
	}
	base64.RawURLEncoding.Encode(out[:n], b)
	return string(out[:n])
}

// EncodePositionCursor returns the cursor of the comment with sort key sk
// carrying position p (a v1 cursor when p is nil).
func EncodePositionCursor(sk string, p *Position) string {
	if p == nil {
		return EncodeCursor(sk)
	}
	var raw [cursorRawLen]byte
	b := append(raw[:0], cursorV2)
	b = binary.AppendUvarint(b, uint64(len(sk)))
	b = append(b, sk...)
	return cursorString(appendPosition(b, p))
}

// appendPosition appends the bytes of position p to b.
func appendPosition(b []byte, p *Position) []byte {
	b = binary.BigEndian.AppendUint32(b, p.Filter)
	b = binary.AppendUvarint(b, uint64(p.Version))
	b = append(b, byte(len(p.Remaining)))
	for _, n := range p.Remaining {
		b = binary.AppendUvarint(b, uint64(n))
	}
	return b
}

// DecodeCursor returns the sort key held by cursor c. Anything that is not a
// cursor this server issued is EINVALID.
func DecodeCursor(c string) (string, error) {
	cur, err := ParseCursor(c)
	return cur.SortKey, err
}

// ParseCursor decodes cursor c, with its position if it carries one.
// Anything that is not a cursor this server issued is EINVALID.
func ParseCursor(c string) (Cursor, error) {
	if c == "" {
		return Cursor{}, Errorf(EINVALID, "cursor must not be empty")
	}
	if len(c) > 300 {
		return Cursor{}, malformedCursor()
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 2 {
		return Cursor{}, malformedCursor()
	}
	var cur Cursor
	switch b[0] {
	case cursorV1:
		cur.SortKey = string(b[1:])
	case cursorV2:
		if cur, err = parseV2(b[1:]); err != nil {
			return Cursor{}, malformedCursor()
		}
	case cursorV3:
		if cur, err = parseV3(b[1:]); err != nil {
			return Cursor{}, malformedCursor()
		}
	default:
		return Cursor{}, Errorf(EINVALID, "unsupported cursor version")
	}
	if _, _, err := parseSortKey(cur.SortKey); err != nil {
		return Cursor{}, malformedCursor()
	}
	return cur, nil
}

// malformedCursor is the error of a cursor that does not decode: made when
// one does not, so that parsing a good cursor allocates no error.
func malformedCursor() error { return Errorf(EINVALID, "malformed cursor") }

// parseV2 decodes the body of a v2 cursor; every byte must be used.
func parseV2(b []byte) (Cursor, error) {
	sk, b, err := parseSortKeyBytes(b)
	if err != nil {
		return Cursor{}, err
	}
	pos, err := parsePosition(b)
	return Cursor{SortKey: sk, Pos: pos}, err
}

// parseV3 decodes the body of a v3 cursor; every byte must be used.
func parseV3(b []byte) (Cursor, error) {
	if len(b) < 1 || b[0] == byte(OrderNewest) || b[0] >= numOrders {
		return Cursor{}, malformedCursor()
	}
	cur := Cursor{Order: Order(b[0])}
	b = b[1:]
	switch {
	case cur.Order.byRating():
		if len(b) < 1 || validateRating(int(b[0])) != nil {
			return Cursor{}, malformedCursor()
		}
		cur.Rating = int(b[0])
		b = b[1:]
	case cur.Order == OrderMostHelpful:
		v, k := binary.Uvarint(b)
		if k <= 0 || v > maxHelpful {
			return Cursor{}, malformedCursor()
		}
		cur.Helpful = int64(v)
		b = b[k:]
	}
	var err error
	if cur.SortKey, b, err = parseSortKeyBytes(b); err != nil {
		return Cursor{}, err
	}
	switch {
	case len(b) == 1 && b[0] == 0:
		return cur, nil
	case len(b) > 1 && b[0] == 1:
		cur.Pos, err = parsePosition(b[1:])
		return cur, err
	}
	return Cursor{}, malformedCursor()
}

// parseSortKeyBytes decodes uvarint n ‖ n bytes, a non-empty sort key, and
// returns it with the bytes that follow it.
func parseSortKeyBytes(b []byte) (string, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n == 0 || n > uint64(len(b)-k) {
		return "", nil, malformedCursor()
	}
	b = b[k:]
	return string(b[:n]), b[n:], nil
}

// parsePosition decodes a position that takes all of b.
func parsePosition(b []byte) (*Position, error) {
	if len(b) < 4 {
		return nil, malformedCursor()
	}
	pos := &Position{Filter: binary.BigEndian.Uint32(b)}
	b = b[4:]
	v, k := binary.Uvarint(b)
	if k <= 0 || v > 1<<62 {
		return nil, malformedCursor()
	}
	pos.Version = int64(v)
	b = b[k:]
	if len(b) < 1 || b[0] < 1 || b[0] > maxPositionCounts {
		return nil, malformedCursor()
	}
	pos.Remaining = make([]int64, b[0])
	b = b[1:]
	for i := range pos.Remaining {
		v, k := binary.Uvarint(b)
		if k <= 0 || v > 1<<62 {
			return nil, malformedCursor()
		}
		pos.Remaining[i] = int64(v)
		b = b[k:]
	}
	if len(b) != 0 {
		return nil, malformedCursor()
	}
	return pos, nil
}

// positionRatings are the ratings a Position of filter f counts, in order:
// the selected ones, or {0} (all ratings together) when all are selected.
// The slice is f's own or shared: callers read it only.
func positionRatings(f Filter) []int {
	if f.Ratings == nil || len(f.Ratings) == maxPositionCounts {
		return allRatingsTogether
	}
	return f.Ratings
}

// allRatingsTogether is positionRatings of a filter of all ratings.
var allRatingsTogether = []int{0}
