package demo

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/acme/comments-gateway/store"
)

// The default demo data set, loaded by `serve` into an empty store.
const (
	DefaultProducts        = 50
	DefaultComments        = 20_000
	DefaultSeed     uint64 = 1
)

// Config says what Generate produces.
type Config struct {
	// Products is the size of the catalog comments are drawn from. Product
	// popularity is Zipf-like, so with few comments the least popular
	// products may get none, and then they simply do not appear.
	Products int
	// Comments is the exact number of comments generated.
	Comments int
	// Start and End bound createdAt: every comment is created in
	// [Start, End), at millisecond precision. Both must lie in 1970–9999 for
	// the comments to be valid. If End is not after Start, every comment is
	// created at Start.
	Start, End time.Time
}

// DefaultConfig returns the default demo data set: DefaultProducts products,
// DefaultComments comments, created over the three years before 2026-01-01
// UTC (a fixed date, so the demo data are the same on every run).
func DefaultConfig() Config {
	end := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return Config{
		Products: DefaultProducts,
		Comments: DefaultComments,
		Start:    end.AddDate(-3, 0, 0),
		End:      end,
	}
}

// NewRand returns the random source Generate expects for seed: the same seed
// gives the same data.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// Default generates the default demo data set from DefaultSeed.
func Default() []*store.Comment {
	return Generate(NewRand(DefaultSeed), DefaultConfig())
}

// Generate returns cfg.Comments synthetic comments drawn from rng, sorted by
// createdAt and then id, oldest first. The output is a pure function of the
// state of rng and cfg (for one Go version and architecture). Every comment
// passes store.Comment.Validate, ids are unique ULIDs whose time is the
// comment's createdAt, and the data look like a real shop's:
//   - product ids are readable slugs ("espresso-machine", "desk-lamp-2");
//     popularity is Zipf-like: a few products get thousands of comments,
//     the tail gets a handful;
//   - ratings are J-shaped overall (5★ ≈ 45%, 4★ ≈ 25%, 3★ ≈ 12%,
//     2★ ≈ 7%, 1★ ≈ 11%), tilted per product, and some products have no
//     1★ or no 5★ comment at all;
//   - languages are skewed (en ≈ 55%, then de, fr, es, it, pt-BR, ja, nl,
//     pl), varying per product; some products are single-language;
//   - authors, titles and 1–6-sentence bodies come from phrase books whose
//     language is the comment's and whose sentiment matches the rating;
//   - createdAt is spread over [cfg.Start, cfg.End), denser towards the end,
//     and each product has some exact ties (several comments sharing one
//     createdAt), which exercise the tie-break by id;
//   - about two thirds are verified purchases, and the shop replied to some,
//     complaints far more often than praise (replies.go). Helpful votes are
//     items of their own (Store.VoteComment), not part of a comment: the data set
//     has none.
func Generate(rng *rand.Rand, cfg Config) []*store.Comment {
	if cfg.Products <= 0 || cfg.Comments <= 0 {
		return nil
	}
	startMs := cfg.Start.UnixMilli()
	if cfg.Start.After(time.UnixMilli(startMs)) {
		startMs++ // round up: never before Start
	}
	endMs := cfg.End.UnixMilli() // round down; times stay < endMs ≤ End
	if endMs <= startMs {
		endMs = startMs + 1 // all at Start
	}

	ids := productIDs(cfg.Products)
	// rank[i] is product i's popularity rank, 0 = most popular.
	rank := rng.Perm(cfg.Products)
	weights := make([]float64, cfg.Products)
	for i := range weights {
		// Zipf–Mandelbrot (s = 2, q = 1), jittered so the tail is irregular.
		k := float64(rank[i] + 2)
		weights[i] = math.Exp(rng.NormFloat64()*0.4) / (k * k)
	}
	counts := apportion(weights, cfg.Comments)

	g := &generator{rng: rng, entropy: rngReader{rng}, seen: make(map[ulid.ULID]struct{}, cfg.Comments)}
	out := make([]*store.Comment, 0, cfg.Comments)
	for i, id := range ids {
		if counts[i] == 0 {
			continue
		}
		out = g.product(out, id, rank[i], counts[i], startMs, endMs)
	}
	for _, c := range out {
		addShopTouches(c, time.UnixMilli(endMs))
	}
	slices.SortFunc(out, func(a, b *store.Comment) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// productIDs returns n distinct readable product ids.
func productIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		name := productNames[i%len(productNames)]
		if round := i / len(productNames); round > 0 {
			name += "-" + strconv.Itoa(round+1)
		}
		ids[i] = name
	}
	return ids
}

// apportion splits total into integer parts proportional to weights (largest
// remainder method), so the parts sum to exactly total.
func apportion(weights []float64, total int) []int {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	parts := make([]int, len(weights))
	frac := make([]float64, len(weights))
	left := total
	for i, w := range weights {
		exact := w / sum * float64(total)
		parts[i] = int(exact)
		frac[i] = exact - float64(parts[i])
		left -= parts[i]
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(frac[b], frac[a]) })
	for i := 0; left > 0; i = (i + 1) % len(order) {
		parts[order[i]]++
		left--
	}
	return parts
}

// generator holds the state shared by all products of one Generate call.
type generator struct {
	rng     *rand.Rand
	entropy rngReader
	seen    map[ulid.ULID]struct{}
}

// baseRatings are the overall rating shares in percent, index = rating.
var baseRatings = [6]float64{0, 11, 7, 12, 25, 45}

// sentenceCounts are the weights of body lengths 1..6 sentences.
var sentenceCounts = []float64{0, 20, 26, 22, 15, 10, 7}

// Sentence pools of a phrase book.
const (
	poolPos = iota
	poolMid
	poolNeg
	poolNeutral
	numPools
)

// poolMix are, per rating, the weights of the pools that the second and later
// sentences of a body are drawn from; the first sentence always comes from
// primaryPool, so the opening line carries the rating's sentiment.
var poolMix = [6][numPools]float64{
	1: {0, 0, 85, 15},
	2: {0, 30, 55, 15},
	3: {20, 50, 15, 15},
	4: {60, 25, 0, 15},
	5: {80, 5, 0, 15},
}

var primaryPool = [6]int{1: poolNeg, 2: poolNeg, 3: poolMid, 4: poolPos, 5: poolPos}

// product appends count comments of product pid, whose popularity rank is
// rank, to out.
func (g *generator) product(out []*store.Comment, pid string, rank, count int, startMs, endMs int64) []*store.Comment {
	rng := g.rng
	// The draws come in this order, so that a seed gives the same data.
	ratingW := ratingWeights(rng, rank)
	langW := languageWeights(rng, rank)
	for _, ms := range commentTimes(rng, count, startMs, endMs) {
		lt := languages[pick(rng, langW)]
		rating := pick(rng, ratingW)
		out = append(out, &store.Comment{
			ID:        g.newID(ms),
			ProductID: pid,
			Language:  lt.tag,
			Rating:    rating,
			Author:    author(rng, lt),
			Title:     lt.titles[rating][rng.IntN(len(lt.titles[rating]))],
			Body:      body(rng, lt, rating),
			CreatedAt: time.UnixMilli(ms).UTC(),
		})
	}
	return out
}

// ratingWeights is a product's rating profile (weights of 1★ to 5★ at
// indexes 1 to 5): the J-curve tilted towards better or worse; the most
// popular products (rank < 3) are never tilted far down, and some others
// lack 1★ or 5★ comments entirely.
func ratingWeights(rng *rand.Rand, rank int) []float64 {
	ratingW := make([]float64, 6)
	tilt := rng.NormFloat64() * 0.35
	if rank < 3 && tilt < 0 {
		tilt *= -0.3
	}
	for r := 1; r <= 5; r++ {
		ratingW[r] = baseRatings[r] * math.Exp(tilt*float64(r-3))
	}
	if rank >= 3 {
		if rng.Float64() < 0.2 {
			ratingW[1] = 0
		}
		if rng.Float64() < 0.1 {
			ratingW[5] = 0
		}
	}
	return ratingW
}

// languageWeights is a product's language profile (weights of languages):
// single-language for some tail products; otherwise the overall shares,
// jittered, sometimes without the minor languages and sometimes with a
// boosted "home market".
func languageWeights(rng *rand.Rand, rank int) []float64 {
	langW := make([]float64, len(languages))
	if rank >= 5 && rng.Float64() < 0.12 {
		for i, l := range languages {
			langW[i] = l.weight
		}
		only := pick(rng, langW)
		clear(langW)
		langW[only] = 1
		return langW
	}
	for i, l := range languages {
		langW[i] = l.weight * math.Exp(rng.NormFloat64()*0.6)
	}
	if rng.Float64() < 0.35 {
		for i := 3; i < len(langW); i++ {
			if rng.Float64() < 0.5 {
				langW[i] = 0
			}
		}
	}
	if rank >= 3 && rng.Float64() < 0.2 {
		langW[1+rng.IntN(len(langW)-1)] *= 4
	}
	return langW
}

// commentTimes draws the times (Unix ms in [startMs, endMs)) of a
// product's count comments: the product launched somewhere in the first
// 60% of the range; comments after launch grow more frequent towards the
// end. Ties: a few comments repeat an earlier comment's exact time, and a
// product with enough comments gets one cluster of 3–5 sharing a time (as
// a bulk migration from an older system would leave).
func commentTimes(rng *rand.Rand, count int, startMs, endMs int64) []int64 {
	span := endMs - startMs
	launch := startMs + int64(float64(span)*0.6*math.Pow(rng.Float64(), 2))
	times := make([]int64, count)
	for i := range times {
		ms := launch + int64(float64(endMs-launch)*math.Sqrt(rng.Float64()))
		times[i] = min(ms, endMs-1)
	}
	for i := 1; i < count; i++ {
		if rng.Float64() < 0.02 {
			times[i] = times[rng.IntN(i)]
		}
	}
	if count >= 8 {
		at := times[rng.IntN(count)]
		for k := 3 + rng.IntN(3); k > 0; k-- {
			times[rng.IntN(count)] = at
		}
	}
	return times
}

// newID returns a ULID with time ms and entropy from the generator's rng,
// unique within this Generate call.
func (g *generator) newID(ms int64) string {
	for {
		id := ulid.MustNew(uint64(ms), g.entropy)
		if _, dup := g.seen[id]; !dup {
			g.seen[id] = struct{}{}
			return id.String()
		}
	}
}

// author returns a plausible author name in language lt.
func author(rng *rand.Rand, lt *langText) string {
	name := lt.names[rng.IntN(len(lt.names))]
	if lt.initial {
		i := rng.IntN(len(initials))
		name += " " + initials[i:i+1] + "."
	}
	return name
}

// body returns 1–6 distinct sentences of lt whose sentiment matches rating.
func body(rng *rand.Rand, lt *langText, rating int) string {
	pools := [numPools][]string{lt.pos, lt.mid, lt.neg, lt.neutral}
	var used [numPools]uint64
	n := pick(rng, sentenceCounts)
	var b strings.Builder
	for s := 0; s < n; s++ {
		p := primaryPool[rating]
		if s > 0 {
			p = pick(rng, poolMix[rating][:])
		}
		pool := pools[p]
		if used[p] == 1<<len(pool)-1 {
			break // pool exhausted: the body is long enough
		}
		i := rng.IntN(len(pool))
		for used[p]&(1<<i) != 0 {
			i = (i + 1) % len(pool)
		}
		used[p] |= 1 << i
		if s > 0 {
			b.WriteString(lt.sep)
		}
		b.WriteString(pool[i])
	}
	return b.String()
}

// pick returns an index drawn with probability proportional to weights; at
// least one weight must be positive.
func pick(rng *rand.Rand, weights []float64) int {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	x := rng.Float64() * sum
	last := 0
	for i, w := range weights {
		if w <= 0 {
			continue
		}
		if x < w {
			return i
		}
		x -= w
		last = i
	}
	return last // rounding
}

// rngReader is an io.Reader of bytes from a *rand.Rand: the ULID entropy
// source, so that ids are deterministic too.
type rngReader struct{ r *rand.Rand }

// Read fills p from the random source; it never fails.
func (e rngReader) Read(p []byte) (int, error) {
	for i := 0; i < len(p); i += 8 {
		v := e.r.Uint64()
		for j := i; j < i+8 && j < len(p); j++ {
			p[j] = byte(v)
			v >>= 8
		}
	}
	return len(p), nil
}
