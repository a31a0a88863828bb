package bolt

import (
	"strconv"
	"time"

	"github.com/acme/comments-gateway/store"
)

// The rules of the 'd' tag (see codec.go): attributes of a comment that the
// encoder need not store because they follow from others. They hold
// literals rather than the store's functions so that a change of the key
// design changes no file's meaning: the encoder writes 'd' only where a rule
// gives exactly the item's value, and a rule, once written, never changes.
var derivations = map[string]func(*sources) (string, bool){
	"id": func(s *sources) (string, bool) {
		if len(s.pk) > len(commentPrefix) && s.pk[:len(commentPrefix)] == commentPrefix {
			return s.pk[len(commentPrefix):], true
		}
		return "", false
	},
	"GSISK": func(s *sources) (string, bool) {
		return s.createdAt + "#" + s.id, s.hasCreatedAt && s.hasID
	},
	"GSI4PK": func(s *sources) (string, bool) {
		return productPrefix + s.productID, s.hasProductID
	},
	"GSI2PK": func(s *sources) (string, bool) {
		return productPrefix + s.productID + "/" + s.language, s.hasProductID && s.hasLanguage
	},
	"GSI3PK": func(s *sources) (string, bool) {
		return productPrefix + s.productID + "/" + strconv.FormatInt(s.rating, 10), s.hasProductID && s.hasRating
	},
	"GSIPK": func(s *sources) (string, bool) {
		return productPrefix + s.productID + "/" + s.language + "/" + strconv.FormatInt(s.rating, 10),
			s.hasProductID && s.hasLanguage && s.hasRating
	},
}

// deriveOrder is the order in which decoding applies the rules: id first,
// as GSISK follows from it.
var deriveOrder = [...]string{"id", "GSISK", "GSI4PK", "GSI2PK", "GSI3PK", "GSIPK"}

const (
	commentPrefix = "COMMENT#"
	productPrefix = "PRODUCT#"
)

// sources are the attributes the rules read.
type sources struct {
	pk, id, createdAt, productID, language                    string
	rating                                                    int64
	hasID, hasCreatedAt, hasProductID, hasLanguage, hasRating bool
}

// sourcesOf returns the sources of item it, whose PK is pk.
func sourcesOf(it store.Item, pk string) sources {
	s := sources{pk: pk}
	s.id, s.hasID = it["id"].(string)
	s.createdAt, s.hasCreatedAt = it["createdAt"].(string)
	s.productID, s.hasProductID = it["productId"].(string)
	s.language, s.hasLanguage = it["language"].(string)
	s.rating, s.hasRating = it["rating"].(int64)
	return s
}

// derive sets the attributes named in names (each with a rule) of it, an
// item decoded so far, whose PK is pk. A rule whose sources are missing
// means a corrupt value.
func derive(it store.Item, pk string, names []string) error {
	src := sourcesOf(it, pk)
	for _, name := range deriveOrder {
		if !contains(names, name) {
			continue
		}
		v, ok := derivations[name](&src)
		if !ok {
			return errCorrupt
		}
		it[name] = v
		if name == "id" {
			src.id, src.hasID = v, true
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fixedTimeLayout is the form of a comment's createdAt: UTC, always nine
// fractional digits.
const fixedTimeLayout = "2006-01-02T15:04:05.000000000Z"

// parseFixedTime returns the seconds and nanoseconds since 1970 of s when s
// is a time in exactly the form fixedTimeLayout writes.
func parseFixedTime(s string) (int64, int64, bool) {
	if len(s) != len(fixedTimeLayout) || s[len(s)-1] != 'Z' || s[10] != 'T' || s[19] != '.' {
		return 0, 0, false
	}
	t, err := time.Parse(fixedTimeLayout, s)
	if err != nil {
		return 0, 0, false
	}
	secs, nanos := t.Unix(), int64(t.Nanosecond())
	if formatFixedTime(secs, nanos) != s {
		return 0, 0, false
	}
	return secs, nanos, true
}

// formatFixedTime formats a time given as seconds and nanoseconds since
// 1970 in the form fixedTimeLayout.
func formatFixedTime(secs, nanos int64) string {
	var buf [48]byte
	return string(time.Unix(secs, nanos).UTC().AppendFormat(buf[:0], fixedTimeLayout))
}
