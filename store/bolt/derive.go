package bolt

import (
	"strconv"
	"strings"

	"github.com/acme/comments-gateway/store/table"
)

// The rules of the 'd' tag (see codec.go): attributes of a comment that the
// encoder need not store because they follow from others. They hold
// literals rather than the store's functions so that a change of the key
// design changes no file's meaning: the encoder writes 'd' only where a rule
// gives exactly the item's value, and a rule, once written, never changes.
// Each rule derives the value (decoding) and tells, without allocating,
// whether a value is the derived one (encoding).
var derivations = map[string]rule{
	"id": {
		ready: func(s sources) bool {
			id, ok := strings.CutPrefix(s.pk, commentPrefix)
			return ok && id != ""
		},
		derive: func(s sources) string { return s.pk[len(commentPrefix):] },
		matches: func(v string, s sources) bool {
			id, ok := strings.CutPrefix(s.pk, commentPrefix)
			return ok && id != "" && id == v
		},
	},
	"GSISK": {
		ready:  func(s sources) bool { return s.hasCreatedAt && s.hasID },
		derive: func(s sources) string { return s.createdAt + "#" + s.id },
		matches: func(v string, s sources) bool {
			rest, ok := strings.CutPrefix(v, s.createdAt)
			return ok && s.hasCreatedAt && s.hasID && rest == "#"+s.id
		},
	},
	// HSK: the helpful count (absent: 0) in 10 digits, "#" and GSISK.
	"HSK": {
		ready:  func(s sources) bool { return s.hasCreatedAt && s.hasID && s.helpful >= 0 && s.helpful <= maxCount },
		derive: func(s sources) string { return string(appendCount(nil, uint64(s.helpful))) + s.createdAt + "#" + s.id },
		matches: func(v string, s sources) bool {
			n, ok := parseCount(v)
			if !ok || int64(n) != s.helpful || !s.hasCreatedAt || !s.hasID {
				return false
			}
			rest, ok := strings.CutPrefix(v[countSortLen:], s.createdAt)
			return ok && rest == "#"+s.id
		},
	},
	"GSI4PK": partitionRule(false, false),
	"GSI2PK": partitionRule(true, false),
	"GSI3PK": partitionRule(false, true),
	"GSIPK":  partitionRule(true, true),
}

// rule is one derivation: whether the sources it needs are there, the
// value it derives from them (when they are), and whether a value is that
// one.
type rule struct {
	ready   func(sources) bool
	derive  func(sources) string
	matches func(string, sources) bool
}

// partitionRule is the rule of an index hash key: PRODUCT#<productId>, then
// /<language> with lang, then /<rating> with rating.
func partitionRule(lang, rating bool) rule {
	return rule{
		ready: func(s sources) bool {
			return s.hasProductID && (!lang || s.hasLanguage) && (!rating || s.hasRating)
		},
		derive: func(s sources) string {
			p := [3]string{productPrefix + s.productID}
			if lang {
				p[1] = "/" + s.language
			}
			if rating {
				p[2] = "/" + strconv.FormatInt(s.rating, 10)
			}
			return p[0] + p[1] + p[2]
		},
		matches: func(v string, s sources) bool {
			rest, ok := strings.CutPrefix(v, productPrefix)
			if !ok || !s.hasProductID {
				return false
			}
			if rest, ok = strings.CutPrefix(rest, s.productID); !ok {
				return false
			}
			if lang {
				if rest, ok = strings.CutPrefix(rest, "/"); !ok || !s.hasLanguage {
					return false
				}
				if rest, ok = strings.CutPrefix(rest, s.language); !ok {
					return false
				}
			}
			if rating {
				var buf [24]byte
				r := strconv.AppendInt(append(buf[:0], '/'), s.rating, 10)
				return s.hasRating && rest == string(r)
			}
			return rest == ""
		},
	}
}

// deriveOrder is the order in which decoding applies the rules: id first,
// as GSISK and HSK follow from it.
var deriveOrder = [...]string{"id", "GSISK", "GSI4PK", "GSI2PK", "GSI3PK", "GSIPK", "HSK"}

// deriveCodes are the codes of deriveOrder's names in dictNames, and
// deriveRules their rules.
var (
	deriveCodes = func() (c [len(deriveOrder)]int) {
		for j, name := range deriveOrder {
			c[j] = int(dictCode[name])
		}
		return c
	}()
	deriveRules = func() (r [len(deriveOrder)]rule) {
		for j, name := range deriveOrder {
			r[j] = derivations[name]
		}
		return r
	}()
)

// deriveIndex returns the index in deriveOrder of attribute name, whose
// code is code (-1: none), or -1 when no rule derives it.
func deriveIndex(name string, code int) int {
	for j, c := range deriveCodes {
		if code >= 0 && code == c || code < 0 && name == deriveOrder[j] {
			return j
		}
	}
	return -1
}

// derivedSet is a set of indexes in deriveOrder.
type derivedSet uint8

// has reports whether the set holds index j.
func (d derivedSet) has(j int) bool { return d&(1<<j) != 0 }

const (
	commentPrefix = "COMMENT#"
	productPrefix = "PRODUCT#"
)

// sources are the attributes the rules read.
type sources struct {
	pk, id, createdAt, productID, language                    string
	rating                                                    int64
	helpful                                                   int64 // 0 when absent
	hasID, hasCreatedAt, hasProductID, hasLanguage, hasRating bool
}

// sourcesOf returns the sources of item it, whose PK is pk.
func sourcesOf(it table.Item, pk string) sources {
	s := sources{pk: pk}
	s.id, s.hasID = it["id"].Str()
	s.createdAt, s.hasCreatedAt = it["createdAt"].Str()
	s.productID, s.hasProductID = it["productId"].Str()
	s.language, s.hasLanguage = it["language"].Str()
	s.rating, s.hasRating = it["rating"].Num()
	s.helpful, _ = it["helpful"].Num()
	return s
}

// set records attribute name of the item being decoded if it is a source.
func (s *sources) set(name string, v table.Value) {
	switch name {
	case "id":
		s.id, s.hasID = v.Str()
	case "createdAt":
		s.createdAt, s.hasCreatedAt = v.Str()
	case "productId":
		s.productID, s.hasProductID = v.Str()
	case "language":
		s.language, s.hasLanguage = v.Str()
	case "rating":
		s.rating, s.hasRating = v.Num()
	case "helpful":
		s.helpful, _ = v.Num()
	}
}

// derive puts the attributes of the set names (each with a rule), of those
// in keep (all when keep is nil), into out, an item decoded so far whose
// sources are src; kn is decodeKeyed's. A rule whose sources are
// missing means a corrupt value. The index entry that led to the item
// holds its sort and hash values: those are kn's, not built again.
func derive(out *sink, src sources, names derivedSet, keep *projection, kn *known) error {
	for j, name := range deriveOrder {
		// The id is a source of GSISK: derived even when not kept.
		kept := keep.has(name, deriveCodes[j])
		if !names.has(j) || !kept && name != "id" {
			continue
		}
		r := deriveRules[j]
		if !r.ready(src) {
			return errCorrupt
		}
		v, ok := kn.value(name)
		if !ok {
			v = r.derive(src)
		}
		if kept {
			out.put(name, deriveCodes[j], table.S(v))
		}
		if name == "id" {
			src.id, src.hasID = v, true
		}
	}
	return nil
}
