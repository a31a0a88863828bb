package store

import (
	"math"
	"slices"
)

// Filter selects the comments of one product.
type Filter struct {
	// Language is a canonical BCP 47 tag, or "" for all languages.
	Language string
	// Ratings are the selected ratings, sorted and unique (see
	// NormalizeRatings); nil selects all, an empty non-nil slice none.
	Ratings []int
}

// selectsNone reports whether f selects no rating: it matches no comment,
// which is known without reading anything.
func (f Filter) selectsNone() bool { return f.Ratings != nil && len(f.Ratings) == 0 }

// NormalizeRatings validates rs and returns them sorted with duplicates
// removed. nil stays nil (all ratings); an empty list stays empty (none).
func NormalizeRatings(rs []int) ([]int, error) {
	if rs == nil {
		return nil, nil
	}
	out := make([]int, 0, len(rs))
	for _, r := range rs {
		if validateRating(r) != nil {
			e := Invalid("ratings", "ratings must be integers from %d to %d, got %d", MinRating, MaxRating, r)
			e.Range = &Range{Min: MinRating, Max: MaxRating, Got: r}
			return nil, e
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Strategy names how a plan reads.
type Strategy string

// Strategies.
const (
	// StrategyEmpty reads nothing: no selected rating has a comment.
	StrategyEmpty Strategy = "empty"
	// StrategySingle reads one partition that holds exactly the matches.
	StrategySingle Strategy = "single"
	// StrategyMerge reads one partition per rating in parallel and merges
	// them by GSISK.
	StrategyMerge Strategy = "merge"
	// StrategyBroad reads the language's (or product's) whole partition and
	// drops the comments of unselected ratings, chosen only when that reads
	// less than a merge (see Plan).
	StrategyBroad Strategy = "broad"
	// StrategySequence reads one partition per rating one after another,
	// in the order's rating sequence (OrderHighestRating,
	// OrderLowestRating; see planSequence): no merge.
	StrategySequence Strategy = "sequence"
)

// Partition is one index partition a plan reads.
type Partition struct {
	Index  string
	Key    string // the index's hash value
	Rating int    // 0 for a partition of all ratings
	Count  int64  // comments in the partition, from the stats
	Limit  int    // first query's limit
}

// Plan is how one page of comments is read. It is a pure function of the
// filter, the stats and the page size: see PlanQuery.
type Plan struct {
	// Order is the order the page lists in (OrderNewest for a plan of
	// PlanQuery).
	Order      Order
	Strategy   Strategy
	Partitions []Partition
	// Keep is, for StrategyBroad (and as a guard for any plan), the ratings
	// a read item must have to be returned; nil keeps all.
	Keep []int
	// Skipped are selected ratings left out because their count is zero.
	Skipped []int
	// Total is the exact number of matching comments.
	Total int64
}

// Sizing is how a merge sizes its reads, trading items read against query
// rounds (a refill is a round that waits for the one before). docs/
// BENCHMARKS.md has the measured trade-off.
type Sizing struct {
	// Slack is added to each partition's share of the page in its first
	// read (negative: read less than the share, and refill).
	Slack float64
	// LeanRefill sizes a refill at its share of the items still needed
	// rounded down (at least one) instead of up.
	LeanRefill bool
	// Spread widens each first read by this many standard deviations of
	// the partition's share: how many of the page's items a partition
	// holds varies from page to page (binomially, were the ratings of
	// successive comments independent), and a first read that covers the
	// variation needs no refill.
	Spread float64
	// Finish makes a refill the last round: every partition that may hold
	// more is read up to the sort key where the page must end, whatever
	// the partitions hold (merger.finish). A page then takes at most two
	// rounds; a first merged page without a hint reads equal shares rather
	// than wait for its stats.
	Finish bool
	// Merged reads a merge's first round, on a table that merges
	// partitions itself (table.MergeReader: the embedded store), as one
	// merged read of the page and one item more: one round, and no item
	// read past the page but that one. The other fields then size only
	// the refills (rare: a page that drops items it read) and the reads of
	// a table that does not merge.
	Merged bool
}

// The named sizings (serve -merge-sizing).
var (
	// LeanSizing reads the fewest items and makes the most rounds: first
	// reads an item under the share, refills rounded down. For when items
	// are the cost (DynamoDB items of 4 KB or more, where each is a read
	// capacity unit).
	LeanSizing = Sizing{Slack: -1, LeanRefill: true}
	// BalancedSizing, a Store's default: first reads half an item under
	// the share, refills rounded up. It keeps the read amplification
	// target with fewer rounds than LeanSizing.
	BalancedSizing = Sizing{Slack: -0.5}
	// SpreadSizing, auto on the embedded store: first reads cover the
	// share and one standard deviation of it, less half an item, so that
	// a typical page needs no refill (on the browsing workload a merged
	// page 1 takes 1.09 rounds, balanced 1.60); refills by share, rounded
	// up. On bbolt a refill of one partition is a read transaction of its
	// own, dearer than the few items the spread adds.
	// On a table that merges partitions itself, one merged read (Merged).
	SpreadSizing = Sizing{Slack: -0.5, Spread: 1, Merged: true}
	// FewRoundsSizing reads half an item over the share, refills rounded
	// up: the fewest refill round trips for a few more items. On DynamoDB
	// with small items it is the fastest and the cheapest, because read
	// capacity is billed per call (at least 0.5 RCU) and per 4 KB, not
	// per item.
	FewRoundsSizing = Sizing{Slack: 0.5}
	// OneRoundSizing, the default on DynamoDB, where a round is a network
	// round trip and a Query is billed by the 4 KB it reads, not by the
	// item: first reads cover the share, half a standard deviation of it
	// and an item, so that most pages take one round; a page that needs a
	// refill finishes in it (Finish): never more than two. On the browsing
	// workload a merged page takes 1.15 rounds on average (balanced: 2.3),
	// and on DynamoDB Local the workload reads 12% fewer capacity units
	// than under balanced, for 1.26 items read per item returned (1.15);
	// BenchmarkMergeSizing has the trade-off.
	OneRoundSizing = Sizing{Slack: 1, Spread: 0.5, Finish: true}
)

// Sizings names the sizings for serve -merge-sizing.
var Sizings = map[string]Sizing{
	"lean":       LeanSizing,
	"balanced":   BalancedSizing,
	"spread":     SpreadSizing,
	"few-rounds": FewRoundsSizing,
	"one-round":  OneRoundSizing,
}

// mergeOverRead is the items a merge is expected to read past the page per
// partition (each but one must show its first item past the page), against
// which a broad read's dropped comments are weighed.
const mergeOverRead = 1.0

// PlanQuery plans a page of `need` items (the page size, plus one to learn
// whether another page follows unless the counts show it) of product pid's
// comments matching f, given
// the stats of (pid, f.Language), or nil stats when the caller needs no
// total and statsNeeded(f) is false. The rules:
//
//   - no comments at all, or an empty rating list: empty, no reads;
//   - ratings omitted or all five: one partition, byLang (with a language) or
//     all;
//   - ratings whose count is zero are skipped; none left: empty, no reads;
//   - one rating left: its partition of byLangAndRating or byRating;
//   - the selected ratings are every rating that has comments: the broad
//     partition holds exactly the matches (a single read);
//   - several: one partition per rating, read in parallel and merged, each
//     first read sized from its share of the selected total; unless reading
//     the broad partition and dropping the unselected ratings is expected
//     to read fewer items (the dropped comments cost less than the merge's
//     over-read), in which case StrategyBroad.
//
// Merged reads are sized with BalancedSizing; a Store plans with its own.
func PlanQuery(pid string, f Filter, st *Stats, need int) Plan {
	return planQuery(pid, f, st, need, BalancedSizing)
}

func planQuery(pid string, f Filter, st *Stats, need int, sz Sizing) Plan {
	if need < 1 {
		need = 1
	}
	if st == nil {
		return planWithoutStats(pid, f, need, sz)
	}
	if st.Total == 0 || f.selectsNone() {
		return Plan{Strategy: StrategyEmpty, Skipped: f.Ratings}
	}
	if f.Ratings == nil || len(f.Ratings) == MaxRating-MinRating+1 {
		idx, key := PartitionKey(pid, f.Language, 0)
		return Plan{
			Strategy:   StrategySingle,
			Partitions: []Partition{{Index: idx, Key: key, Count: st.Total, Limit: need}},
			Total:      st.Total,
		}
	}
	p, sel := selectRatings(f.Ratings, st)
	switch len(sel) {
	case 0:
		p.Strategy = StrategyEmpty
		return p
	case 1:
		idx, key := PartitionKey(pid, f.Language, sel[0])
		p.Strategy = StrategySingle
		p.Partitions = []Partition{{Index: idx, Key: key, Rating: sel[0], Count: p.Total, Limit: need}}
		return p
	}
	return planSeveral(pid, f.Language, st, p, sel, need, sz)
}

// selectRatings returns the ratings of the filter that have comments
// (sel), and a Plan with the others as Skipped and their total as Total.
func selectRatings(ratings []int, st *Stats) (p Plan, sel []int) {
	for _, r := range ratings {
		if st.Count(r) == 0 {
			p.Skipped = append(p.Skipped, r)
			continue
		}
		sel = append(sel, r)
		p.Total += st.Count(r)
	}
	return p, sel
}

// planSeveral completes p, the plan of several selected ratings sel that
// have comments, of product pid in language lang: the broad partition when
// it holds exactly the matches, or when dropping its other ratings is
// expected to read fewer items than a merge over-reads; a merge otherwise.
func planSeveral(pid, lang string, st *Stats, p Plan, sel []int, need int, sz Sizing) Plan {
	excluded := st.Total - p.Total
	idx, key := PartitionKey(pid, lang, 0)
	if excluded <= 0 {
		p.Strategy = StrategySingle
		p.Partitions = []Partition{{Index: idx, Key: key, Count: st.Total, Limit: need}}
		p.Keep = sel // a guard against a comment written since the stats were read
		return p
	}
	// Expected items dropped by a broad read to return need items, against
	// the expected over-read of a merge.
	dropped := float64(need) * float64(excluded) / float64(p.Total)
	overRead := float64(len(sel)) * mergeOverRead
	if dropped < overRead {
		p.Strategy = StrategyBroad
		p.Partitions = []Partition{{Index: idx, Key: key, Count: st.Total,
			Limit: min(int(math.Ceil(float64(need)*float64(st.Total)/float64(p.Total)+0.5)), need*2)}}
		p.Keep = sel
		return p
	}
	p.Strategy = StrategyMerge
	counts := make([]int64, len(sel))
	for i, r := range sel {
		counts[i] = st.Count(r)
	}
	p.Partitions = mergePartitions(pid, lang, sel, counts, need, sz)
	return p
}

// planWithoutStats plans a filter whose stats the caller did not load
// because nothing needs them: no ratings or all five (one broad partition),
// or one rating (its partition; an empty one reads nothing and costs one
// call, which is cheaper than the stats item). Several ratings get equal
// shares. The total is unknown (-1).
func planWithoutStats(pid string, f Filter, need int, sz Sizing) Plan {
	switch {
	case f.selectsNone():
		return Plan{Strategy: StrategyEmpty, Skipped: f.Ratings}
	case f.Ratings == nil || len(f.Ratings) == MaxRating-MinRating+1:
		idx, key := PartitionKey(pid, f.Language, 0)
		return Plan{Strategy: StrategySingle, Partitions: []Partition{{Index: idx, Key: key, Limit: need}}, Total: -1}
	case len(f.Ratings) == 1:
		idx, key := PartitionKey(pid, f.Language, f.Ratings[0])
		return Plan{Strategy: StrategySingle, Partitions: []Partition{{Index: idx, Key: key, Rating: f.Ratings[0], Limit: need}}, Total: -1}
	}
	equal := make([]int64, len(f.Ratings))
	for i := range equal {
		equal[i] = 1
	}
	return Plan{Strategy: StrategyMerge, Partitions: mergePartitions(pid, f.Language, f.Ratings, equal, need, sz), Total: -1}
}

// planBlind plans a page of f's ratings without their stats or a hint: a
// merge reads each rating's share of the page under sz, the shares taken
// from prior (counts per rating of other products: statsHints.prior) when
// it counts every selected rating, else equal; one partition reads the
// page.
func planBlind(pid string, f Filter, need int, sz Sizing, prior [6]int64) Plan {
	p := planWithoutStats(pid, f, need, sz)
	k := len(p.Partitions)
	if k < 2 {
		return p
	}
	var total int64
	for _, part := range p.Partitions {
		if prior[part.Rating] <= 0 {
			total = 0 // a rating the prior does not know: equal shares
			break
		}
		total += prior[part.Rating]
	}
	// Shares scaled by the page, so that no count caps a limit.
	shares := make([]int64, k)
	var sum int64
	for i, part := range p.Partitions {
		shares[i] = 1
		if total > 0 {
			shares[i] = max(1, int64(float64(prior[part.Rating])/float64(total)*1e6))
		}
		sum += shares[i]
	}
	for i := range p.Partitions {
		p.Partitions[i].Limit = shareLimit(need, shares[i]*int64(need), sum*int64(need), sz)
	}
	return p
}

// mergePartitions returns the partitions of a merge of ratings in language
// lang, each first read sized from its share of counts (aligned with
// ratings; a zero count is read with a share of one, so that a stale zero
// still reads the partition).
func mergePartitions(pid, lang string, ratings []int, counts []int64, need int, sz Sizing) []Partition {
	var total int64
	for _, n := range counts {
		total += max(n, 1)
	}
	parts := make([]Partition, len(ratings))
	for i, r := range ratings {
		idx, key := PartitionKey(pid, lang, r)
		parts[i] = Partition{Index: idx, Key: key, Rating: r, Count: counts[i],
			Limit: shareLimit(need, max(counts[i], 1), total, sz)}
	}
	return parts
}

// statsNeeded reports whether planning filter f needs the stats of its
// product and language: only a merge of several (but not all) ratings does.
// (totalCount needs them too; that is the caller's to know.)
func statsNeeded(f Filter) bool {
	return len(f.Ratings) > 1 && len(f.Ratings) < MaxRating-MinRating+1
}

// shareLimit sizes a partition's first read for `need` merged items: its
// share of the selected total plus the sizing's slack and spread, rounded
// up, at least 1, capped at need and at the partition's count (+1, so the
// read proves the partition is exhausted where a backend cannot tell
// otherwise).
func shareLimit(need int, count, total int64, sz Sizing) int {
	p := float64(count) / float64(total)
	share := float64(need) * p
	l := int(math.Ceil(share + sz.Slack + sz.Spread*math.Sqrt(share*(1-p))))
	l = min(l, need)
	if c := count + 1; c < int64(l) {
		l = int(c)
	}
	return max(l, 1)
}
