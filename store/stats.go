package store

import (
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/acme/comments-gateway/store/table"
)

// Write sharding. A hot product's writes must not queue on one item: on
// DynamoDB, transactions on one item conflict rather than wait, and one
// item takes at most 1,000 write units a second. So the rating counters of
// (product, language) are spread over StatsShards items, and a comment
// always counts in the shard of its id's hash (statsShard): its create,
// updates and delete ADD to the same shard, so two writers collide only
// when their comments hash alike. Reads sum the shards (SumStats), read by
// Query (see statsShardsQuery).
//
// The leaderboard entry of (product, language) is its own item, LeaderKey,
// written only by the writes that change the product's 5-star count, and the
// leaderboard is spread over LeaderShards index partitions by a hash of the
// product id (LeadersShardPK); TopProducts reads them all and merges.
//
// Both counts are fixed per table: changing one means rewriting the stats
// (rebuild-stats puts every product's counts into shard 0 and deletes the
// other shards, so it migrates from any StatsShards).
const (
	// StatsShards is the number of counter items per (product, language).
	// A read of one product's stats reads them all (by Query: about one
	// read unit, strongly consistent); a hot product's writes spread over
	// them.
	StatsShards = 8
	// LeaderShards is the number of leaderboard partitions per language.
	LeaderShards = 8
)

// leaderSK and leaderLangSK are the sort keys of a product's leaderboard
// entries (all languages, and one language), in its stats partition.
const (
	leaderSK     = "L"
	leaderLangSK = "L#"
	shardSep     = "/" // never in a language tag, product id or number
	// statsShardSep separates a counter shard's number from its stats
	// item's key. It is never in a language tag and sorts below every
	// character a tag has ('-' and alphanumerics), so all the shards of a
	// language sort together, right after its shard 0 and before the next
	// tag ("S#en", "S#en,1" … "S#en,7", "S#en-GB"): the stats items of a
	// product are in language-tag order.
	statsShardSep = ","
)

// statsShard returns the counter shard a comment counts in: a hash of its
// id, so every write of one comment goes to the same shard.
func statsShard(commentID string) int {
	h := fnv.New32a()
	h.Write([]byte(commentID))
	return int(h.Sum32() % StatsShards)
}

// StatsShardKey is the key of counter shard n of (pid, lang). Shard 0 is the
// unsharded stats item's key (StatsKey), so a table written before sharding
// reads as all its counts in shard 0.
func StatsShardKey(pid, lang string, n int) table.Key { return shardOf(StatsKey(pid, lang), n) }

// shardOf is the key of counter shard n of the stats whose shard 0 is k.
func shardOf(k table.Key, n int) table.Key {
	if n != 0 {
		k.SK += statsShardSep + strconv.Itoa(n)
	}
	return k
}

// StatsShardKeys returns the keys of all counter shards of (pid, lang).
func StatsShardKeys(pid, lang string) []table.Key {
	keys := make([]table.Key, StatsShards)
	base := StatsKey(pid, lang) // its PK shared by every shard's key
	for n := range keys {
		keys[n] = shardOf(base, n)
	}
	return keys
}

// Stats reads. The shards of a language sort together right after its
// shard 0 (statsShardSep), so one Query, begins_with "S#<lang>", Limit
// StatsShards, reads them all: a Query bills the summed size of what it
// reads (one read unit for 8 shards), a BatchGet one unit a key. Its first
// StatsShards items may run past the language's shards into a language
// whose tag extends it ("en" → "en-GB") when the language has fewer than
// StatsShards shards: those are read and dropped (ofStats), and the items
// read stay within StatsShards, what the complexity limit counts a stats
// read. The shards of all languages ("S", "S,1" … "S,7") are not
// contiguous: every "S#<lang>" sorts between shard 0 and shard 1 ('#'
// below ','). They take a Query of shards 1 to 7 (begins_with "S,", exact)
// and shard 0 by key (in one BatchGet for all the ids of a GetStats).

// statsShardsQuery is the Query of the counter shards of id: all of them
// for a language, shards 1 to StatsShards-1 for all languages.
func statsShardsQuery(id StatsID) table.Query {
	q := table.Query{HashValue: ProductPK(id.ProductID), SortOp: table.SortBeginsWith, Forward: true, Limit: StatsShards,
		SortValue: StatsKey(id.ProductID, id.Language).SK}
	if id.Language == "" {
		q.SortValue, q.Limit = statsSK+statsShardSep, StatsShards-1
	}
	return q
}

// ofStats returns the items of items that are counter shards of language
// lang (in place).
func ofStats(lang string, items []table.Item) []table.Item {
	return slices.DeleteFunc(items, func(it table.Item) bool {
		l, _, ok := parseStatsSK(it.S(table.AttrSK))
		return !ok || l != lang
	})
}

// parseStatsSK returns the language ("" for all) and shard of a counter
// shard's sort key, and whether sk is one.
func parseStatsSK(sk string) (lang string, shard int, ok bool) {
	base, num, sharded := strings.Cut(sk, statsShardSep)
	if sharded {
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 || strconv.Itoa(n) != num {
			return "", 0, false
		}
		shard = n
	}
	lang, ok = LangFromStatsSK(base)
	return lang, shard, ok
}

// SumStats adds up the counter shards of (pid, lang) (nil items are absent
// shards). Version is the sum of the shards' versions: every write ADDs 1
// to one shard's, and rebuild-stats adds 1 to each, so the sum changes with
// every change of the counts and never returns to an earlier value.
func SumStats(pid, lang string, shards []table.Item) *Stats {
	s := &Stats{ProductID: pid, Language: lang}
	for _, it := range shards {
		p := StatsFromItem(pid, lang, it)
		for r := range s.Counts {
			s.Counts[r] += p.Counts[r]
		}
		s.Total += p.Total
		s.Version += p.Version
	}
	return s
}

// LeaderKey is the key of the leaderboard entry of (pid, lang), an item of
// the product's partition holding the product's exact 5-star count.
func LeaderKey(pid, lang string) table.Key {
	if lang == "" {
		return table.Key{PK: ProductPK(pid), SK: leaderSK}
	}
	return table.Key{PK: ProductPK(pid), SK: leaderLangSK + lang}
}

// LangFromLeaderSK returns the language of a leaderboard entry's sort key
// ("" for all), and whether sk is one.
func LangFromLeaderSK(sk string) (string, bool) {
	if sk == leaderSK {
		return "", true
	}
	return strings.CutPrefix(sk, leaderLangSK)
}

// LeaderShard returns the leaderboard partition that holds product pid.
func LeaderShard(pid string) int {
	h := fnv.New32a()
	h.Write([]byte(pid))
	return int(h.Sum32() % LeaderShards)
}

// LeadersShardPK is the hash value (in byLangAndRating) of leaderboard
// partition n of language lang ("" for all).
func LeadersShardPK(lang string, n int) string {
	return LeadersPK(lang) + shardSep + strconv.Itoa(n)
}

// LeaderItem returns the whole leaderboard entry of (pid, lang) with 5-star
// count n: in the leaderboard index while n > 0.
func LeaderItem(pid, lang string, n int64) table.Item {
	k := LeaderKey(pid, lang)
	it := table.Item{table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK), table.AttrCount(5): table.N(n)}
	if n > 0 {
		it[table.AttrGSIPK] = table.S(LeadersShardPK(lang, LeaderShard(pid)))
		it[table.AttrGSISK] = table.S(LeadersSK(n, pid))
	}
	return it
}
