package store

import (
	"context"
	"strings"

	"github.com/acme/comments-gateway/store/table"
)

// Languages returns the stats of the first n languages (0 to MaxLanguages)
// product pid has comments in, in language-tag order. It reads the counter
// shards of the first n languages that have a stats item and no other item
// (see languageShards): at most StatsShards×n items, n for a product whose
// stats were rebuilt (one shard each). A language whose comments were all
// deleted keeps its stats items with a zero total; they are read but the
// language is left out, so fewer than n may be returned.
func (s *Store) Languages(ctx context.Context, pid string, n int) ([]*Stats, error) {
	if err := ValidateID("product id", pid); err != nil {
		return nil, err
	}
	if n < 0 || n > MaxLanguages {
		e := Invalid("first", "first must be between 0 and %d, got %d", MaxLanguages, n)
		e.Range = &Range{Min: 0, Max: MaxLanguages, Got: n}
		return nil, e
	}
	if n == 0 {
		return []*Stats{}, nil
	}
	items, err := s.languageShards(ctx, pid, n)
	if err != nil {
		return nil, err
	}
	out := make([]*Stats, 0, n)
	for i := 0; i < len(items); {
		lang, _, _ := parseStatsSK(items[i].S(table.AttrSK))
		j := i + 1
		for j < len(items) && shardLanguage(items[j]) == lang {
			j++
		}
		if st := SumStats(pid, lang, items[i:j]); st.Total > 0 {
			out = append(out, st)
		}
		i = j
	}
	return out, nil
}

// shardLanguage is the language of a counter shard item ("" for all).
func shardLanguage(it table.Item) string {
	lang, _, _ := parseStatsSK(it.S(table.AttrSK))
	return lang
}

// languageShards returns the counter shards of the first n languages of
// pid's partition, in key order, which is language-tag order (the shards
// of a language sort together: statsShardSep). Each page asks for one item
// per language still missing, so no page reaches past the n-th language;
// once it is reached, one query of its own shards (begins_with "S#<lang>,")
// completes it. A product whose stats items fit in the first page takes
// one call; one with more, two or more.
func (s *Store) languageShards(ctx context.Context, pid string, n int) ([]table.Item, error) {
	q := table.Query{HashValue: ProductPK(pid), SortOp: table.SortBeginsWith, SortValue: StatsLangPrefix, Forward: true}
	var items []table.Item
	langs := 0
	for {
		q.Limit = n - langs
		res, err := s.table.Query(ctx, q)
		if err != nil {
			return nil, tableError(err)
		}
		for _, it := range res.Items {
			if len(items) == 0 || shardLanguage(it) != shardLanguage(items[len(items)-1]) {
				langs++
			}
			items = append(items, it)
		}
		if res.LastKey == nil {
			return items, nil
		}
		if langs == n {
			break
		}
		q.StartKey = res.LastKey
	}
	// The n-th language's other shards: they follow its last item read.
	last := items[len(items)-1]
	rest := table.Query{HashValue: ProductPK(pid), SortOp: table.SortBeginsWith, Forward: true, Limit: StatsShards,
		SortValue: StatsKey(pid, shardLanguage(last)).SK + statsShardSep}
	if strings.HasPrefix(last.S(table.AttrSK), rest.SortValue) {
		rest.StartKey = table.Item{table.AttrPK: table.S(last.S(table.AttrPK)), table.AttrSK: table.S(last.S(table.AttrSK))}
	}
	more, err := s.queryAll(ctx, rest, -1)
	if err != nil {
		return nil, err
	}
	return append(items, more...), nil
}
