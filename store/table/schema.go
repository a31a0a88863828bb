package table

import (
	"slices"
	"strconv"
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

	AttrHSK       = "HSK"       // <helpful, 10 digits>#<GSISK>: sort key of the helpful indexes
	AttrHelpful   = "helpful"   // settled count of helpful votes (absent: 0)
	AttrUnhelpful = "unhelpful" // settled count of not-helpful votes (absent: 0)
	AttrVerified  = "verified"  // 1 on a verified purchase, absent otherwise
	AttrReply     = "reply"     // the merchant's reply (absent: none): <createdAt><updatedAt><body>, times in TimeLayout

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

	IndexHelpfulByLangAndRating = "helpfulByLangAndRating"
	IndexHelpfulByLang          = "helpfulByLang"
	IndexHelpfulByRating        = "helpfulByRating"
	IndexHelpfulAll             = "helpfulAll"
)

// IndexDef declares one global secondary index.
type IndexDef struct {
	Name string
	Hash string // hash attribute; an item without it is absent from the index
	Sort string // sort attribute
	// ProjectAll copies every attribute of an item into the index
	// (DynamoDB's projection type ALL); Projection is then empty.
	ProjectAll bool
	// Projection lists the non-key attributes copied into the index
	// (projection type INCLUDE). Key attributes (the table's and the
	// index's) are always projected.
	Projection []string
}

// MaxProjected is DynamoDB's limit on the NonKeyAttributes of all the
// INCLUDE indexes of a table, summed, an attribute projected into two
// indexes counted twice (docs/design.md §3.1).
const MaxProjected = 100

// commentProjected are the attributes of a comment a page shows: its
// fields, helpful counts, verified purchase and the merchant's reply
// (docs/design.md §3.3), no more, as DynamoDB limits the attributes all
// indexes project (MaxProjected). Not the id, which a comment's PK gives;
// nothing only the write path uses (version, authorId, the moderation
// state).
var commentProjected = []string{
	AttrProductID, AttrLanguage, AttrRating, AttrAuthor, AttrTitle, AttrBody, AttrCreatedAt,
	AttrHelpful, AttrUnhelpful, AttrVerified, AttrReply,
}

// leaderProjected are the attributes of byLangAndRating, which the stats
// items overload as the leaderboard: a page's comments and a leaderboard
// entry's count_5.
var leaderProjected = append(slices.Clone(commentProjected), "count_5")

// Indexes are the table's four GSIs, all sorted by GSISK. Comments project
// into all four; the stats items overload byLangAndRating as the leaderboard.
var Indexes = []IndexDef{
	{Name: IndexByLangAndRating, Hash: AttrGSIPK, Sort: AttrGSISK, Projection: leaderProjected},
	{Name: IndexByLang, Hash: AttrGSI2PK, Sort: AttrGSISK, Projection: commentProjected},
	{Name: IndexByRating, Hash: AttrGSI3PK, Sort: AttrGSISK, Projection: commentProjected},
	{Name: IndexAll, Hash: AttrGSI4PK, Sort: AttrGSISK, Projection: commentProjected},
}

// ModerationIndexes are the two sparse GSIs of moderation (docs/design.md
// §12): the queues, and each author's comments. Only comments written with
// moderation on carry their keys, so a table without them serves `off`
// mode as it is. They project every attribute (a moderator's list shows
// a page's attributes and the moderation state): few items, and no count
// against MaxProjected.
var ModerationIndexes = []IndexDef{
	{Name: IndexModeration, Hash: AttrGSI5PK, Sort: AttrGSISK, ProjectAll: true},
	{Name: IndexByAuthor, Hash: AttrGSI6PK, Sort: AttrGSISK, ProjectAll: true},
}

// HelpfulIndexes are the twins of Indexes sorted by HSK instead of GSISK:
// the same partitions (hash attributes), in MOST_HELPFUL order
// (docs/design.md, votes). Only published comments carry HSK, so the
// twins hold no leaderboard entries and project no count_5.
var HelpfulIndexes = []IndexDef{
	{Name: IndexHelpfulByLangAndRating, Hash: AttrGSIPK, Sort: AttrHSK, Projection: commentProjected},
	{Name: IndexHelpfulByLang, Hash: AttrGSI2PK, Sort: AttrHSK, Projection: commentProjected},
	{Name: IndexHelpfulByRating, Hash: AttrGSI3PK, Sort: AttrHSK, Projection: commentProjected},
	{Name: IndexHelpfulAll, Hash: AttrGSI4PK, Sort: AttrHSK, Projection: commentProjected},
}

// AllIndexes are every GSI a table has: Indexes, ModerationIndexes, then
// HelpfulIndexes.
var AllIndexes = slices.Concat(Indexes, ModerationIndexes, HelpfulIndexes)

// IndexByName returns the definition of the named index (of AllIndexes).
func IndexByName(name string) (IndexDef, bool) {
	for _, d := range AllIndexes {
		if d.Name == name {
			return d, true
		}
	}
	return IndexDef{}, false
}
