package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Attribute names of the single-table design.
const (
	AttrPK     = "PK"
	AttrSK     = "SK"
	AttrGSIPK  = "GSIPK"  // PRODUCT#<pid>/<lang>/<rating>, or LEADERS[#<lang>] on stats items
	AttrGSI2PK = "GSI2PK" // PRODUCT#<pid>/<lang>
	AttrGSI3PK = "GSI3PK" // PRODUCT#<pid>/<rating>
	AttrGSI4PK = "GSI4PK" // PRODUCT#<pid>
	AttrGSISK  = "GSISK"  // sort key of every index
	AttrGSI5PK = "GSI5PK" // MODERATION#<queue>/<k>: only on comments a moderator must see
	AttrGSI6PK = "GSI6PK" // AUTHOR#<authorId>: comments written with moderation on

	AttrID        = "id"
	AttrProductID = "productId"
	AttrLanguage  = "language"
	AttrRating    = "rating"
	AttrAuthor    = "author"
	AttrTitle     = "title"
	AttrBody      = "body"
	AttrCreatedAt = "createdAt"
	AttrVersion   = "version"  // bumped by every update; guards read-modify-write
	AttrAuthorID  = "authorId" // optional: the authenticated creator's subject

	AttrStatus           = "status"           // absent: PUBLISHED (see Status)
	AttrReports          = "reports"          // open reports since the last review
	AttrModeratedAt      = "moderatedAt"      // the last moderation transition
	AttrModerationReason = "moderationReason" // its reason

	AttrCountTotal = "count_total"
)

// AttrCount returns the name of the counter of rating r ("count_1".."count_5").
func AttrCount(r int) string { return "count_" + strconv.Itoa(r) }

// Index names.
const (
	IndexByLangAndRating = "byLangAndRating"
	IndexByLang          = "byLang"
	IndexByRating        = "byRating"
	IndexAll             = "all"
	IndexModeration      = "moderation"
	IndexByAuthor        = "byAuthor"
)

// IndexDef declares one global secondary index.
type IndexDef struct {
	Name string
	Hash string // hash attribute; an item without it is absent from the index
	Sort string // sort attribute
	// Projection lists the non-key attributes copied into the index. Key
	// attributes (the table's and the index's) are always projected.
	Projection []string
}

// projected are the attributes every read of a comment or a leaderboard entry
// needs: exactly what a page shows, nothing the write path alone uses.
var projected = []string{
	AttrID, AttrProductID, AttrLanguage, AttrRating, AttrAuthor, AttrTitle,
	AttrBody, AttrCreatedAt, "count_5",
}

// Indexes are the table's four GSIs, all sorted by GSISK. Comments project
// into all four; the stats items overload byLangAndRating as the leaderboard.
var Indexes = []IndexDef{
	{Name: IndexByLangAndRating, Hash: AttrGSIPK, Sort: AttrGSISK, Projection: projected},
	{Name: IndexByLang, Hash: AttrGSI2PK, Sort: AttrGSISK, Projection: projected},
	{Name: IndexByRating, Hash: AttrGSI3PK, Sort: AttrGSISK, Projection: projected},
	{Name: IndexAll, Hash: AttrGSI4PK, Sort: AttrGSISK, Projection: projected},
}

// moderationProjected is what a moderator's or an author's list shows: a
// page's attributes and the moderation state.
var moderationProjected = append(append([]string(nil), projected[:len(projected)-1]...),
	AttrStatus, AttrReports, AttrModeratedAt, AttrModerationReason, AttrAuthorID)

// ModerationIndexes are the two sparse GSIs of moderation (docs/design.md
// §12): the queues, and each author's comments. Only comments written with
// moderation on carry their keys, so a table without them serves `off`
// mode as it is.
var ModerationIndexes = []IndexDef{
	{Name: IndexModeration, Hash: AttrGSI5PK, Sort: AttrGSISK, Projection: moderationProjected},
	{Name: IndexByAuthor, Hash: AttrGSI6PK, Sort: AttrGSISK, Projection: moderationProjected},
}

// AllIndexes are every GSI a table has: Indexes, then ModerationIndexes.
var AllIndexes = append(append([]IndexDef(nil), Indexes...), ModerationIndexes...)

// IndexByName returns the definition of the named index (of AllIndexes).
func IndexByName(name string) (IndexDef, bool) {
	for _, d := range AllIndexes {
		if d.Name == name {
			return d, true
		}
	}
	return IndexDef{}, false
}

const (
	commentPrefix = "COMMENT#"
	productPrefix = "PRODUCT#"
	statsSK       = "S"
	statsLangSK   = "S#"
	leadersPK     = "LEADERS"
	// timeLayout is fixed width (always 9 fractional digits) so that the
	// byte order of GSISK is the time order.
	timeLayout = "2006-01-02T15:04:05.000000000Z"
)

// CommentKey is the primary key of comment id.
func CommentKey(id string) Key { return Key{PK: commentPrefix + id, SK: commentPrefix + id} }

// StatsKey is the primary key of a product's stats item for language lang
// ("" for all languages).
func StatsKey(productID, lang string) Key {
	if lang == "" {
		return Key{PK: productPrefix + productID, SK: statsSK}
	}
	return Key{PK: productPrefix + productID, SK: statsLangSK + lang}
}

// ProductPK is the partition key of a product's stats items.
func ProductPK(productID string) string { return productPrefix + productID }

// LeadersPK is the leaderboard partition of byLangAndRating for lang ("" for
// all languages).
func LeadersPK(lang string) string {
	if lang == "" {
		return leadersPK
	}
	return leadersPK + "#" + lang
}

// LeadersSK is the sort key of a product on the leaderboard.
func LeadersSK(count5 int64, productID string) string {
	return fmt.Sprintf("%010d#%s", count5, productID)
}

// PartitionKey returns the index and hash value of the partition that holds
// the comments of product pid in language lang ("" for all) with rating r (0
// for all).
func PartitionKey(pid, lang string, r int) (index, hash string) {
	switch {
	case lang != "" && r != 0:
		return IndexByLangAndRating, productPrefix + pid + "/" + lang + "/" + strconv.Itoa(r)
	case lang != "":
		return IndexByLang, productPrefix + pid + "/" + lang
	case r != 0:
		return IndexByRating, productPrefix + pid + "/" + strconv.Itoa(r)
	default:
		return IndexAll, productPrefix + pid
	}
}

// SortKey is the GSISK of a comment: its creation time (UTC, fixed width)
// and its id. It is unique, and its byte order is the display order.
func SortKey(createdAt time.Time, id string) string {
	return createdAt.UTC().Format(timeLayout) + "#" + id
}

// parseSortKey splits a GSISK into its time and id, validating both.
func parseSortKey(sk string) (time.Time, string, error) {
	if len(sk) < len(timeLayout)+2 || sk[len(timeLayout)] != '#' {
		return time.Time{}, "", Errorf(EINVALID, "malformed sort key")
	}
	t, err := parseTime(sk[:len(timeLayout)])
	if err != nil {
		return time.Time{}, "", Errorf(EINVALID, "malformed sort key time")
	}
	id := sk[len(timeLayout)+1:]
	if err := ValidateID("comment id", id); err != nil {
		return time.Time{}, "", err
	}
	// time.Parse is lenient (it accepts "," before the fraction): only the
	// exact form SortKey writes is a sort key.
	if SortKey(t, id) != sk {
		return time.Time{}, "", Errorf(EINVALID, "malformed sort key")
	}
	return t, id, nil
}

// CommentIDFromPK returns the comment id of a base-table PK, and whether pk
// is a comment's.
func CommentIDFromPK(pk string) (string, bool) {
	return strings.CutPrefix(pk, commentPrefix)
}

// ProductIDFromPK returns the product id of a stats item's PK, and whether
// pk is a product's.
func ProductIDFromPK(pk string) (string, bool) {
	return strings.CutPrefix(pk, productPrefix)
}

// LangFromStatsSK returns the language of a stats item's SK ("" for the
// all-languages item), and whether sk is a stats SK.
func LangFromStatsSK(sk string) (string, bool) {
	if sk == statsSK {
		return "", true
	}
	return strings.CutPrefix(sk, statsLangSK)
}

// StatsLangPrefix is the SK prefix of a product's per-language stats items.
const StatsLangPrefix = statsLangSK
