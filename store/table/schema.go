package table

import "strconv"

// Attribute names of the single-table design.
const (
	AttrPK     = "PK"
	AttrSK     = "SK"
	AttrGSIPK  = "GSIPK"  // PRODUCT#<pid>/<lang>/<rating>, or LEADERS[#<lang>] on stats items
	AttrGSI2PK = "GSI2PK" // PRODUCT#<pid>/<lang>
	AttrGSI3PK = "GSI3PK" // PRODUCT#<pid>/<rating>
	AttrGSI4PK = "GSI4PK" // PRODUCT#<pid>
	AttrGSISK  = "GSISK"  // sort key of all four indexes

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

// IndexByName returns the definition of the named index.
func IndexByName(name string) (IndexDef, bool) {
	for _, d := range Indexes {
		if d.Name == name {
			return d, true
		}
	}
	return IndexDef{}, false
}
