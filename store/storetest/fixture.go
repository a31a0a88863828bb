package storetest

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// fixtureComments returns n deterministic comments of products p1, p10 and
// p2 (half, a third and a sixth of them: "PRODUCT#p1" is a prefix of
// "PRODUCT#p10"), in languages en, en-GB and de ("…/en" is a prefix of
// "…/en-GB"), with all ratings except 5 for p2 in German. Creation times are
// not in id order, so that no index order follows the table order. seed
// varies the ratings and texts.
func fixtureComments(n int, seed uint64) []store.Comment {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	products := []string{"p1", "p1", "p1", "p10", "p10", "p2"}
	langs := []string{"en", "en-GB", "de"}
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	// step*n hours spread the comments over a few weeks; stride is coprime
	// with n, so the times are distinct and shuffled.
	stride := 53
	for gcd(stride, n) != 1 {
		stride++
	}
	out := make([]store.Comment, n)
	for i := range n {
		pid := products[i%len(products)]
		lang := langs[(i/len(products))%len(langs)]
		rating := 1 + rng.IntN(5)
		if pid == "p2" && lang == "de" && rating == 5 {
			rating = 4
		}
		out[i] = store.Comment{
			ID:        fmt.Sprintf("c%04d", i),
			ProductID: pid,
			Language:  lang,
			Rating:    rating,
			Author:    fmt.Sprintf("author %d", rng.IntN(20)),
			Title:     fmt.Sprintf("title %d", i),
			Body:      fmt.Sprintf("Très bien — 很好 %d/%d", i, rng.IntN(1000)),
			CreatedAt: base.Add(time.Duration((i*stride)%n)*5*time.Hour + time.Duration(i)*time.Millisecond),
			Version:   int64(i % 4),
			// Helpful votes with ties, for the helpful twins' order.
			HelpfulCount: int64(i % 7 % 4),
		}
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// commentItems returns the table items of cs.
func commentItems(cs []store.Comment) []table.Item {
	out := make([]table.Item, len(cs))
	for i := range cs {
		out[i] = cs[i].Item()
	}
	return out
}

// statsItems returns the stats items of cs: one per product and one per
// product and language (counter shard 0), each with its leaderboard entry
// while count_5 > 0.
func statsItems(cs []store.Comment) []table.Item {
	type key struct{ pid, lang string }
	stats := map[key]*store.Stats{}
	for _, c := range cs {
		for _, k := range []key{{c.ProductID, ""}, {c.ProductID, c.Language}} {
			st := stats[k]
			if st == nil {
				st = &store.Stats{ProductID: k.pid, Language: k.lang}
				stats[k] = st
			}
			st.Counts[c.Rating]++
			st.Total++
		}
	}
	var out []table.Item
	for _, k := range slices.SortedFunc(maps.Keys(stats), func(a, b key) int {
		return cmp.Or(cmp.Compare(a.pid, b.pid), cmp.Compare(a.lang, b.lang))
	}) {
		out = append(out, stats[k].Item())
		if n5 := stats[k].Counts[5]; n5 > 0 {
			out = append(out, store.LeaderItem(k.pid, k.lang, n5))
		}
	}
	return out
}

// plainItems are base-table items in partitions "T", "T#" and "TA" (each a
// prefix of the next in byte order) with sort keys that are prefixes of each
// other and non-ASCII ones. One has an index hash attribute but no sort
// attribute: it is in no index.
func plainItems() []table.Item {
	sks := []string{"a", "a#1", "a#2", "ab", "b", "ba", "c", "é", "日本", "~"}
	var out []table.Item
	for i, pk := range []string{"T", "T#", "TA"} {
		for j, sk := range sks[:len(sks)-3*i] {
			it := table.Item{table.AttrPK: table.S(pk), table.AttrSK: table.S(sk), "n": table.N(int64(100*i + j - 50)), "s": table.S(pk + "/" + sk)}
			if sk == "c" {
				it[table.AttrGSI4PK] = table.S(store.ProductPK("p1"))
			}
			out = append(out, it)
		}
	}
	return out
}

// fixtureItems is the standard data set: 120 comments, their stats items
// and the plain items.
func fixtureItems() []table.Item {
	cs := fixtureComments(120, 1)
	items := commentItems(cs)
	items = append(items, statsItems(cs)...)
	return append(items, plainItems()...)
}

// keyAttrs returns the hash and sort attributes of index ("" for the base
// table) and its definition (nil for the base table).
func keyAttrs(index string) (hash, sort string, def *table.IndexDef) {
	if index == "" {
		return table.AttrPK, table.AttrSK, nil
	}
	d, ok := table.IndexByName(index)
	if !ok {
		panic("storetest: unknown index " + index)
	}
	return d.Hash, d.Sort, &d
}

// Project returns what index def (nil: the base table) holds of it: all
// of it for an index projecting ALL, else its key attributes and those
// def.Projection lists.
func Project(def *table.IndexDef, it table.Item) table.Item {
	if def == nil || def.ProjectAll {
		return maps.Clone(it)
	}
	out := table.Item{}
	for _, a := range append([]string{table.AttrPK, table.AttrSK, def.Hash, def.Sort}, def.Projection...) {
		if v, ok := it[a]; ok {
			out[a] = v
		}
	}
	return out
}

// expectQuery is the model of Query: all the items q must return, over all
// its pages, from a table holding exactly items. q.Limit and q.StartKey are
// ignored.
func expectQuery(items []table.Item, q table.Query) []table.Item {
	hashAttr, sortAttr, def := keyAttrs(q.Index)
	type entry struct {
		sort string
		key  table.Key
		it   table.Item
	}
	var es []entry
	for _, it := range items {
		h, ok := it[hashAttr].Str()
		if !ok || h != q.HashValue {
			continue
		}
		s, ok := it[sortAttr].Str()
		if !ok {
			continue
		}
		switch q.SortOp {
		case table.SortLess:
			ok = s < q.SortValue
		case table.SortGreater:
			ok = s > q.SortValue
		case table.SortBeginsWith:
			ok = strings.HasPrefix(s, q.SortValue)
		}
		if ok {
			es = append(es, entry{s, it.Key(), Project(def, it)})
		}
	}
	slices.SortFunc(es, func(a, b entry) int {
		return cmp.Or(strings.Compare(a.sort, b.sort), strings.Compare(a.key.PK, b.key.PK), strings.Compare(a.key.SK, b.key.SK))
	})
	if !q.Forward {
		slices.Reverse(es)
	}
	out := make([]table.Item, len(es))
	for i, e := range es {
		out[i] = e.it
	}
	return out
}

// partitions returns the hash values of the partitions of index ("": base
// table) that items populate, sorted.
func partitions(items []table.Item, index string) []string {
	hashAttr, sortAttr, _ := keyAttrs(index)
	set := map[string]bool{}
	for _, it := range items {
		h, ok := it[hashAttr].Str()
		if _, hasSort := it[sortAttr].Str(); ok && hasSort {
			set[h] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// sortValues returns the sort attribute values of items.
func sortValues(items []table.Item, index string) []string {
	_, sortAttr, _ := keyAttrs(index)
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.S(sortAttr)
	}
	return out
}

// tableModel is the expected content of a table.
type tableModel map[table.Key]table.Item

func newTableModel(items ...table.Item) tableModel {
	m := tableModel{}
	m.put(items...)
	return m
}

func (m tableModel) put(items ...table.Item) {
	for _, it := range items {
		m[it.Key()] = maps.Clone(it)
	}
}

// items returns the tableModel's items in key order.
func (m tableModel) items() []table.Item {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b table.Key) int {
		return cmp.Or(strings.Compare(a.PK, b.PK), strings.Compare(a.SK, b.SK))
	})
	out := make([]table.Item, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}
