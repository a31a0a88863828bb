package store

import (
	"strings"
	"time"

	"golang.org/x/text/language"

	"github.com/acme/comments-gateway/store/table"
)

// Limits on user input.
const (
	MaxIDLen     = 64
	maxAuthorLen = 100    // characters
	maxTitleLen  = 200    // characters
	MaxBodyLen   = 10_000 // characters
	MinRating    = 1
	MaxRating    = 5
)

// Comment is one product comment.
type Comment struct {
	ID        string
	ProductID string
	Language  string // canonical BCP 47 tag
	Rating    int    // 1..5
	Author    string
	Title     string
	Body      string
	CreatedAt time.Time // UTC
	Version   int64     // bumped by every update (0 for a new comment)
	// AuthorID is the authenticated subject (a JWT's sub) that created the
	// comment; "" for comments created otherwise, which no end user owns.
	// Stored only when set (attribute authorId), never projected to the
	// indexes: ownership checks read the item itself.
	AuthorID string
	// Status is the comment's moderation status: the zero Status,
	// StatusPublished, for a published comment (and every comment written
	// with moderation off).
	Status Status
	// Reports counts the reports since the last review (see ReportComment).
	Reports int64
	// ModeratedAt is when a moderator (or the report threshold) last moved
	// the comment (zero: never), and ModerationReason why.
	ModeratedAt      time.Time
	ModerationReason string
	// HelpfulCount and UnhelpfulCount are the settled counts of the
	// comment's helpful votes (attributes helpful, unhelpful; absent is 0).
	// The votes themselves are items of their own, counted exactly in the
	// comment's vote shards; these are folded from them after each vote.
	HelpfulCount   int64
	UnhelpfulCount int64
	// VerifiedPurchase marks a comment by a buyer of the product (attribute
	// verified, present only when true); only the merchant role sets it.
	VerifiedPurchase bool
	// Reply is the merchant's public reply, nil when there is none.
	Reply *Reply
}

// Reply is a merchant's public reply to a comment, stored on the comment's
// item as one attribute, reply (see Reply.encode).
type Reply struct {
	Body      string
	CreatedAt time.Time // UTC
	UpdatedAt time.Time // UTC
}

// HelpfulSortKey is the HSK of a comment, the sort key of the four helpful
// indexes: its helpful count, zero-padded to 10 digits, then its GSISK, so
// that the byte order is most helpful first, then newest, then id.
func (c *Comment) HelpfulSortKey() string { return HelpfulSortKey(c.HelpfulCount, c.SortKey()) }

// SortKey returns the comment's GSISK.
func (c *Comment) SortKey() string { return SortKey(c.CreatedAt, c.ID) }

// Stats are the rating counters of one product, for one language or all.
type Stats struct {
	ProductID string
	Language  string   // "" for all languages
	Counts    [6]int64 // Counts[r] for rating r in 1..5; Counts[0] unused
	Total     int64
	// Version changes with every change of the counts (each write ADDs 1;
	// rebuild-stats writes the old version + 1): a cursor's Position holds
	// the version its counts were derived under.
	Version int64
}

// Count returns the number of comments with rating r.
func (s *Stats) Count(r int) int64 {
	if r < MinRating || r > MaxRating {
		return 0
	}
	return s.Counts[r]
}

// ValidateID checks a product or comment id: 1–64 of [A-Za-z0-9_-]. The
// error is about the input named what.
func ValidateID(what, id string) error {
	bad := func() error {
		return Invalid(what, "%s must be 1 to %d characters of [A-Za-z0-9_-]", what, MaxIDLen)
	}
	if id == "" || len(id) > MaxIDLen {
		return bad()
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return bad()
		}
	}
	return nil
}

// canonicalLanguage is CanonicalLanguage without its cache.
func canonicalLanguage(tag string) (string, error) {
	if tag == "" || len(tag) > 35 {
		return "", Invalid("language", "language must be a BCP 47 tag such as \"en\" or \"pt-BR\"")
	}
	if strings.ContainsAny(tag, "_.@") {
		return "", localeError(tag)
	}
	// x/text canonicalises some tags with malformed extensions in more than
	// one step ("aa-u-00-00-u-00-00" → "aa-u-00-u-00-00" → "aa-u-00-u-00"),
	// and a few into forms it then refuses. A stored language must be its
	// own canonical form, or filtering by it would miss the comment: take
	// the fixed point, and refuse a tag that has none.
	s := tag
	for range 3 {
		t, err := language.Parse(s)
		if err != nil {
			return "", Invalid("language", "language %q is not a BCP 47 tag", tag)
		}
		c := t.String()
		if c == "und" {
			return "", Invalid("language", "language %q is undetermined", tag)
		}
		if c == s {
			return c, nil
		}
		s = c
	}
	return "", Invalid("language", "language %q has no stable canonical form", tag)
}

// localeError refuses a POSIX locale name (language_TERRITORY.codeset@modifier,
// what navigator-style code or $LANG gives) with the BCP 47 tag it means,
// when it has one.
func localeError(tag string) error {
	base, _, _ := strings.Cut(tag, ".")
	base, _, _ = strings.Cut(base, "@")
	if t, err := canonicalLanguage(strings.ReplaceAll(base, "_", "-")); err == nil {
		return Invalid("language", "language %q is not a BCP 47 tag: use %q", tag, t)
	}
	return Invalid("language", "language %q is not a BCP 47 tag such as \"en\" or \"pt-BR\"", tag)
}

// validateRating checks that r is in 1..5.
func validateRating(r int) error {
	if r < MinRating || r > MaxRating {
		e := Invalid("rating", "rating must be an integer from %d to %d, got %d", MinRating, MaxRating, r)
		e.Range = &Range{Min: MinRating, Max: MaxRating, Got: r}
		return e
	}
	return nil
}

// Validate checks every field of c and canonicalises its language and time.
// Every invalid field is reported: one error, or Errors for several.
func (c *Comment) Validate() error {
	var errs invalidList
	check := errs.add
	check(ValidateID("id", c.ID))
	check(ValidateID("productId", c.ProductID))
	lang, err := CanonicalLanguage(c.Language)
	check(err)
	check(validateRating(c.Rating))
	check(ValidateText("author", c.Author, maxAuthorLen))
	check(ValidateText("title", c.Title, maxTitleLen))
	check(validateMultilineText("body", c.Body, MaxBodyLen))
	if c.CreatedAt.IsZero() {
		check(Invalid("createdAt", "createdAt is required"))
	} else if y := c.CreatedAt.UTC().Year(); y < 1970 || y > 9999 {
		check(Invalid("createdAt", "createdAt must be between 1970 and 9999"))
	}
	if len(errs) > 0 {
		return errs.join()
	}
	c.Language = lang
	c.CreatedAt = c.CreatedAt.UTC()
	return nil
}

// Item returns the table item of c: with all four public index keys and
// its HSK (the sort key of their helpful twins) when it is published, and
// its moderation attributes (moderationAttrs).
func (c *Comment) Item() table.Item {
	k := CommentKey(c.ID)
	it := table.Item{
		table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK),
		table.AttrGSISK:     table.S(c.SortKey()),
		table.AttrID:        table.S(c.ID),
		table.AttrProductID: table.S(c.ProductID),
		table.AttrLanguage:  table.S(c.Language),
		table.AttrRating:    table.N(int64(c.Rating)),
		table.AttrAuthor:    table.S(c.Author),
		table.AttrTitle:     table.S(c.Title),
		table.AttrBody:      table.S(c.Body),
		table.AttrCreatedAt: table.S(c.CreatedAt.UTC().Format(timeLayout)),
		table.AttrVersion:   table.N(c.Version),
	}
	if c.AuthorID != "" {
		it[table.AttrAuthorID] = table.S(c.AuthorID)
	}
	if c.Status == StatusPublished {
		_, gsi1 := PartitionKey(c.ProductID, c.Language, c.Rating)
		_, gsi2 := PartitionKey(c.ProductID, c.Language, 0)
		_, gsi3 := PartitionKey(c.ProductID, "", c.Rating)
		_, gsi4 := PartitionKey(c.ProductID, "", 0)
		it[table.AttrGSIPK], it[table.AttrGSI2PK], it[table.AttrGSI3PK], it[table.AttrGSI4PK] = table.S(gsi1), table.S(gsi2), table.S(gsi3), table.S(gsi4)
		it[table.AttrHSK] = table.S(c.HelpfulSortKey())
	}
	if c.HelpfulCount != 0 {
		it[table.AttrHelpful] = table.N(c.HelpfulCount)
	}
	if c.UnhelpfulCount != 0 {
		it[table.AttrUnhelpful] = table.N(c.UnhelpfulCount)
	}
	if c.VerifiedPurchase {
		it[table.AttrVerified] = table.N(1)
	}
	if c.Reply != nil {
		it[table.AttrReply] = table.S(c.Reply.encode())
	}
	c.moderationAttrs(it)
	return it
}

// CommentFromItem decodes a comment item (from the table or an index). An
// index item has no id (table.Indexes do not project it): its PK gives it.
func CommentFromItem(it table.Item) (*Comment, error) {
	c := new(Comment)
	if err := commentFrom(commentColumns.Record(it), c); err != nil {
		return nil, err
	}
	return c, nil
}

// commentFrom decodes into c the comment whose item is record r, of
// commentColumns: the one rule of "item → comment" (record.go).
func commentFrom(r table.Record, c *Comment) error {
	t, err := parseTime(r.S(colCreatedAt))
	if err != nil {
		return Wrap(EINTERNAL, err, "corrupt comment item %q", r.S(colPK))
	}
	id := r.S(colID)
	if fromPK, ok := CommentIDFromPK(r.S(colPK)); ok && id == "" {
		id = fromPK
	}
	*c = Comment{
		ID:        id,
		ProductID: r.S(colProductID),
		Language:  r.S(colLanguage),
		Rating:    int(r.N(colRating)),
		Author:    r.S(colAuthor),
		Title:     r.S(colTitle),
		Body:      r.S(colBody),
		CreatedAt: t,
		Version:   r.N(colVersion),
		AuthorID:  r.S(colAuthorID),

		HelpfulCount:     r.N(colHelpful),
		UnhelpfulCount:   r.N(colUnhelpful),
		VerifiedPurchase: r.N(colVerified) == 1,
	}
	if err := c.readModeration(r); err != nil {
		return err
	}
	if s, ok := r[colReply].Str(); ok {
		reply, err := decodeReply(s)
		if err != nil {
			return Wrap(EINTERNAL, err, "corrupt reply on comment item %q", r.S(colPK))
		}
		c.Reply = reply
	}
	return nil
}

// StatsFromItem decodes a stats item; a nil item is all zeros.
func StatsFromItem(productID, lang string, it table.Item) *Stats {
	s := &Stats{ProductID: productID, Language: lang}
	if it == nil {
		return s
	}
	for r := MinRating; r <= MaxRating; r++ {
		s.Counts[r] = it.N(table.AttrCount(r))
	}
	s.Total = it.N(table.AttrCountTotal)
	s.Version = it.N(table.AttrVersion)
	return s
}

// Item returns s as the whole item of counter shard 0 of its product and
// language (rebuild-stats writes the counts there and zeroes the other
// shards). The leaderboard entry is another item (LeaderItem).
func (s *Stats) Item() table.Item {
	k := StatsKey(s.ProductID, s.Language)
	it := table.Item{table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK), table.AttrCountTotal: table.N(s.Total), table.AttrVersion: table.N(s.Version)}
	for r := MinRating; r <= MaxRating; r++ {
		it[table.AttrCount(r)] = table.N(s.Counts[r])
	}
	return it
}
