package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/acme/comments-gateway/store/table"
)

const (
	commentPrefix = "COMMENT#"
	productPrefix = "PRODUCT#"
	statsSK       = "S"
	statsLangSK   = "S#"
	leadersPK     = "LEADERS"
	// timeLayout is fixed width (always 9 fractional digits) so that the
	// byte order of GSISK is the time order.
	timeLayout = table.TimeLayout
)

// CommentKey is the primary key of comment id.
func CommentKey(id string) table.Key {
	return table.Key{PK: commentPrefix + id, SK: commentPrefix + id}
}

// StatsKey is the primary key of a product's stats item for language lang
// ("" for all languages).
func StatsKey(productID, lang string) table.Key {
	if lang == "" {
		return table.Key{PK: productPrefix + productID, SK: statsSK}
	}
	return table.Key{PK: productPrefix + productID, SK: statsLangSK + lang}
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
		return table.IndexByLangAndRating, productPrefix + pid + "/" + lang + "/" + strconv.Itoa(r)
	case lang != "":
		return table.IndexByLang, productPrefix + pid + "/" + lang
	case r != 0:
		return table.IndexByRating, productPrefix + pid + "/" + strconv.Itoa(r)
	default:
		return table.IndexAll, productPrefix + pid
	}
}

// SortKey is the GSISK of a comment: its creation time (UTC, fixed width)
// and its id. It is unique, and its byte order is the display order.
func SortKey(createdAt time.Time, id string) string {
	return createdAt.UTC().Format(timeLayout) + "#" + id
}

// HelpfulSortKey is the HSK of a comment with helpful votes and GSISK gsisk:
// the count zero-padded to 10 digits, then "#", then the GSISK. Its byte
// order is the MOST_HELPFUL order read descending.
func HelpfulSortKey(helpful int64, gsisk string) string {
	return fmt.Sprintf("%010d#%s", helpful, gsisk)
}

// splitHSK returns the helpful count and the GSISK of HSK hsk (as
// HelpfulSortKey writes it; a malformed one gives a GSISK no cursor
// accepts).
func splitHSK(hsk string) (helpful int64, gsisk string) {
	count, gsisk, _ := strings.Cut(hsk, "#")
	helpful, _ = strconv.ParseInt(count, 10, 64)
	return helpful, gsisk
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
	var b [len(timeLayout)]byte
	if string(t.UTC().AppendFormat(b[:0], timeLayout)) != sk[:len(timeLayout)] {
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

// parseTime parses a time of the table: by hand when it has exactly the
// form table.TimeLayout writes, else as time.Parse does (which then says what is
// wrong with it).
func parseTime(s string) (time.Time, error) {
	if secs, nanos, ok := table.ParseFixedTime(s); ok {
		return time.Unix(secs, nanos).UTC(), nil
	}
	return time.Parse(table.TimeLayout, s)
}
