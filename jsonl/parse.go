package jsonl

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"

	"github.com/acme/comments-gateway/internal/jsonscan"
	"github.com/acme/comments-gateway/store"
)

// record is one line, as read and as written: the fields in their
// documented order, authorId only when the comment has an owner, the
// moderation fields only when it has been moderated or is not published
// (a line without status is PUBLISHED), verifiedPurchase only when true
// and reply only when the comment has one. As read,
// which fields are present and not null is told by checkKeys, and the raw
// rating keeps its JSON type.
type record struct {
	ID        string          `json:"id"`
	ProductID string          `json:"productId"`
	Language  string          `json:"language"`
	Rating    json.RawMessage `json:"rating"`
	Author    string          `json:"author"`
	Title     string          `json:"title"`
	Body      string          `json:"body"`
	CreatedAt string          `json:"createdAt"`
	AuthorID  string          `json:"authorId,omitempty"`
	// Status is the moderation status, absent for PUBLISHED.
	Status           string `json:"status,omitempty"`
	ModeratedAt      string `json:"moderatedAt,omitempty"`
	ModerationReason string `json:"moderationReason,omitempty"`
	// VerifiedPurchase is written only when true.
	VerifiedPurchase bool `json:"verifiedPurchase,omitempty"`
	// Reply is the merchant's reply, absent when there is none.
	Reply *replyRecord `json:"reply,omitempty"`
}

// replyRecord is a line's reply, its times as createdAt's.
type replyRecord struct {
	Body      string `json:"body"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

// fieldNames are the fields of a line, in their documented order.
var fieldNames = [...]string{"id", "productId", "language", "rating", "author", "title", "body", "createdAt", "authorId",
	"status", "moderatedAt", "moderationReason", "verifiedPurchase", "reply"}

// maxAuthorIDLen bounds the optional authorId (a JWT subject), in
// characters.
const maxAuthorIDLen = 1024

// requiredFields are the fields of fieldNames every line has: all but id and
// authorId.
var requiredFields = fieldNames[1:8]

// Bits of fieldNames, as checkKeys reports them.
const (
	fieldID = 1 << iota
	fieldProductID
	fieldLanguage
	fieldRating
	fieldAuthor
	fieldTitle
	fieldBody
	fieldCreatedAt
	fieldAuthorID
	fieldStatus
	fieldModeratedAt
	fieldModerationReason
	fieldVerifiedPurchase
	fieldReply
)

// optionalFields are the fields a line may leave out or set to null.
const optionalFields = fieldID | fieldAuthorID | fieldStatus | fieldModeratedAt | fieldModerationReason |
	fieldVerifiedPurchase | fieldReply

// placeholderID stands in for a missing id while the rest is validated.
const placeholderID = "0"

// parser turns lines into comments. Its buffers are reused across lines.
type parser struct {
	br  bytes.Reader
	h   hash.Hash
	sum []byte
}

// parse decodes and validates line n. It reports whether the id was
// generated.
func (p *parser) parse(n int, line []byte) (*store.Comment, bool, error) {
	rec, set, err := p.decode(line)
	if err != nil {
		err.Line = n
		return nil, false, err
	}
	c, err := rec.comment(set)
	if err != nil {
		err.Line = n
		return nil, false, err
	}
	generated := set&fieldID == 0
	if generated {
		c.ID = p.newID(c)
	}
	return c, generated, nil
}

// lineError is a LineError of the line being parsed (parse sets Line).
func lineError(format string, args ...any) *LineError {
	return &LineError{Msg: fmt.Sprintf(format, args...)}
}

// decode decodes line, one JSON object with the fields of a comment, and
// returns it with the fields it sets (not null), all required ones among
// them.
func (p *parser) decode(line []byte) (rec record, set uint, _ *LineError) {
	if !utf8.Valid(line) {
		return rec, 0, lineError("not valid UTF-8")
	}
	if rec, set, ok := decodeFast(line); ok {
		return rec, set, nil
	}
	return p.decodeJSON(line)
}

// decodeJSON is decode by encoding/json and checkKeys, for a valid UTF-8
// line that decodeFast leaves: it names what is wrong.
func (p *parser) decodeJSON(line []byte) (rec record, set uint, _ *LineError) {
	p.br.Reset(line)
	dec := json.NewDecoder(&p.br)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return rec, 0, &LineError{Msg: decodeMessage(err), Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return rec, 0, lineError("unexpected data after the JSON object")
	}
	if i := jsonscan.SkipSpace(line, 0); line[i] != '{' { // valid JSON, so i < len(line)
		return rec, 0, lineError("expected a JSON object, got %s", jsonKind(line[i]))
	}
	set, msg := checkKeys(line)
	if msg != "" {
		return rec, 0, lineError("%s", msg)
	}
	var missing []string
	for i, name := range requiredFields {
		if set&(fieldProductID<<i) == 0 {
			missing = append(missing, name)
		}
	}
	switch len(missing) {
	case 0:
		return rec, set, nil
	case 1:
		return rec, 0, lineError("%s is required", missing[0])
	}
	return rec, 0, lineError("%s are required", strings.Join(missing, ", "))
}

// comment returns the comment of rec, whose fields set are set, validated
// (its language canonical); without an id (set has no fieldID) its ID is
// placeholderID.
func (rec *record) comment(set uint) (*store.Comment, *LineError) {
	c := &store.Comment{
		ID: placeholderID, ProductID: rec.ProductID, Language: rec.Language,
		Author: rec.Author, Title: rec.Title, Body: rec.Body,
	}
	if set&fieldAuthorID != 0 {
		c.AuthorID = rec.AuthorID
		if err := store.ValidateText("authorId", c.AuthorID, maxAuthorIDLen); err != nil {
			return nil, lineError("%s", store.ErrorMessage(err))
		}
	}
	if err := rec.moderation(set, c); err != nil {
		return nil, err
	}
	c.VerifiedPurchase = rec.VerifiedPurchase
	if set&fieldReply != 0 {
		r, err := rec.Reply.reply()
		if err != nil {
			return nil, err
		}
		c.Reply = r
	}
	if set&fieldID != 0 {
		c.ID = rec.ID
		if err := store.ValidateID("id", c.ID); err != nil {
			return nil, lineError("%s, got %s", store.ErrorMessage(err), quote(c.ID))
		}
	}
	if err := store.ValidateID("productId", c.ProductID); err != nil {
		return nil, lineError("%s, got %s", store.ErrorMessage(err), quote(c.ProductID))
	}
	rating, msg := parseRating(rec.Rating)
	if msg != "" {
		return nil, lineError("%s", msg)
	}
	c.Rating = rating
	t, err := time.Parse(time.RFC3339Nano, rec.CreatedAt)
	if err == nil && !rfc3339Tail(rec.CreatedAt) {
		err = errors.New("not RFC 3339")
	}
	if err != nil {
		return nil, &LineError{Err: err,
			Msg: fmt.Sprintf("createdAt must be an RFC 3339 time such as \"2024-05-01T12:34:56Z\", got %s", quote(rec.CreatedAt))}
	}
	c.CreatedAt = t
	if err := c.Validate(); err != nil { // canonicalises the language too
		return nil, &LineError{Msg: store.ErrorMessage(err), Err: err}
	}
	return c, nil
}

// moderation sets c's moderation fields from rec's (those of set).
func (rec *record) moderation(set uint, c *store.Comment) *LineError {
	if set&fieldStatus != 0 {
		st, err := store.ParseStatus(rec.Status)
		if err != nil {
			return lineError("%s", store.ErrorMessage(err))
		}
		c.Status = st
	}
	if set&fieldModeratedAt != 0 {
		t, err := time.Parse(time.RFC3339Nano, rec.ModeratedAt)
		if err != nil || !rfc3339Tail(rec.ModeratedAt) {
			return lineError("moderatedAt must be an RFC 3339 time such as \"2024-05-01T12:34:56Z\", got %s", quote(rec.ModeratedAt))
		}
		c.ModeratedAt = t.UTC()
	}
	if set&fieldModerationReason != 0 {
		c.ModerationReason = rec.ModerationReason
		if err := store.ValidateText("moderationReason", c.ModerationReason, store.MaxReasonLen); err != nil {
			return lineError("%s", store.ErrorMessage(err))
		}
	}
	return nil
}

// reply returns the store's form of r, validated.
func (r *replyRecord) reply() (*store.Reply, *LineError) {
	if err := store.ValidateReplyBody(r.Body); err != nil {
		return nil, lineError("reply.%s", store.ErrorMessage(err))
	}
	out := &store.Reply{Body: r.Body}
	for _, f := range []struct {
		name, v string
		t       *time.Time
	}{{"createdAt", r.CreatedAt, &out.CreatedAt}, {"updatedAt", r.UpdatedAt, &out.UpdatedAt}} {
		t, err := time.Parse(time.RFC3339Nano, f.v)
		if err != nil || !rfc3339Tail(f.v) {
			return nil, lineError("reply.%s must be an RFC 3339 time such as \"2024-05-01T12:34:56Z\", got %s", f.name, quote(f.v))
		}
		*f.t = t.UTC()
	}
	return out, nil
}

// newID returns the ULID of comment c, which has no id: its time is
// c.CreatedAt and its entropy a hash of c's content, so the same comment
// always gets the same id.
func (p *parser) newID(c *store.Comment) string {
	if p.h == nil {
		p.h = sha256.New()
	}
	p.h.Reset()
	var buf [binary.MaxVarintLen64]byte
	field := func(s string) {
		p.h.Write(binary.AppendUvarint(buf[:0], uint64(len(s))))
		io.WriteString(p.h, s)
	}
	field(c.ProductID)
	field(c.Language)
	field(strconv.Itoa(c.Rating))
	field(c.Author)
	field(c.Title)
	field(c.Body)
	field(c.CreatedAt.Format(time.RFC3339Nano))
	p.sum = p.h.Sum(p.sum[:0])
	var id ulid.ULID
	// Cannot fail: Validate bounded the time to 1970–9999, and the entropy
	// is long enough.
	_ = id.SetTime(ulid.Timestamp(c.CreatedAt))
	_ = id.SetEntropy(p.sum[:10])
	return id.String()
}

// rfc3339Tail checks what time.Parse lets through in a time it parsed with
// time.RFC3339Nano: the fraction must follow a '.', not a ',', and an offset
// must be at most ±23:59.
func rfc3339Tail(s string) bool {
	i := len("2006-01-02T15:04:05")
	if s[i] == ',' {
		return false
	}
	if s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
	}
	if s[i] == 'Z' {
		return true
	}
	// ±hh:mm, whose digits time.Parse checked
	return s[i+1:i+3] <= "23" && s[i+4:i+6] <= "59"
}

// parseRating returns the rating in raw, which must be a JSON number with an
// integer value (5 and 5.0 alike), or a message saying what is wrong. Range
// is checked by store.Comment.Validate.
func parseRating(raw json.RawMessage) (int, string) {
	s := string(bytes.TrimSpace(raw))
	if s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return 0, fmt.Sprintf("rating must be a number, got %s", jsonKind(s[0]))
	}
	if r, err := strconv.Atoi(s); err == nil {
		return r, ""
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1e9 {
		return int(f), ""
	}
	return 0, fmt.Sprintf("rating must be an integer from %d to %d, got %s", store.MinRating, store.MaxRating, s)
}

// decodeMessage turns an encoding/json error into a message for an operator.
func decodeMessage(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d: %s", syn.Offset, syn.Error())
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "invalid JSON: the line ends inside the object"
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("expected a JSON object, got %s", typ.Value)
		}
		return fmt.Sprintf("%s must be a string, got %s", typ.Field, typ.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.HasPrefix(msg, "unknown field ") {
		return msg + "; the fields are " + strings.Join(fieldNames[:], ", ")
	}
	return msg
}

// checkKeys returns the fields that line, one syntactically valid JSON
// object, sets to something other than null, or a message if it has a key
// that is not exactly one of fieldNames (encoding/json matches keys
// case-insensitively) or has a key twice (encoding/json keeps the last).
func checkKeys(line []byte) (set uint, msg string) {
	var seen uint
	i := jsonscan.SkipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return 0, "expected a JSON object"
	}
	i++
	for {
		i = jsonscan.SkipSpace(line, i)
		if i >= len(line) {
			return 0, "invalid JSON"
		}
		switch line[i] {
		case '}':
			return set, ""
		case ',':
			i = jsonscan.SkipSpace(line, i+1)
		}
		if i >= len(line) || line[i] != '"' {
			return 0, "invalid JSON"
		}
		j := jsonscan.SkipString(line, i)
		raw := line[i:j]
		k := fieldIndex(raw[1 : len(raw)-1])
		if k < 0 && bytes.IndexByte(raw, '\\') >= 0 {
			var key string // escaped: decode it
			if json.Unmarshal(raw, &key) == nil {
				k = fieldIndex([]byte(key))
			}
		}
		if k < 0 {
			var key string
			if json.Unmarshal(raw, &key) != nil {
				key = string(raw)
			}
			return 0, fmt.Sprintf("unknown field %s (field names are case-sensitive); the fields are %s", quote(key), strings.Join(fieldNames[:], ", "))
		}
		if seen&(1<<k) != 0 {
			return 0, fmt.Sprintf("field %q appears twice", fieldNames[k])
		}
		seen |= 1 << k
		i = jsonscan.SkipSpace(line, j)
		if i >= len(line) || line[i] != ':' {
			return 0, "invalid JSON"
		}
		i = jsonscan.SkipSpace(line, i+1)
		if i < len(line) && line[i] != 'n' { // not null
			set |= 1 << k
		}
		i = jsonscan.SkipValue(line, i)
	}
}

// fieldIndex returns the index of key in fieldNames, or -1.
func fieldIndex(key []byte) int {
	for i, name := range fieldNames {
		if string(key) == name { // no allocation
			return i
		}
	}
	return -1
}

// jsonKind names the kind of JSON value that starts with byte c.
func jsonKind(c byte) string {
	switch {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "number"
	}
	return "invalid JSON"
}

// quote quotes s for a message, shortened if long.
func quote(s string) string {
	const max = 80
	if utf8.RuneCountInString(s) <= max {
		return strconv.Quote(s)
	}
	r := []rune(s)
	return strconv.Quote(string(r[:max])) + "…"
}
