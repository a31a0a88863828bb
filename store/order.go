package store

import (
	"slices"

	"github.com/acme/comments-gateway/store/table"
)

// Order is the order a comments connection lists in (the GraphQL
// CommentOrder). The zero value is OrderNewest.
type Order uint8

// The orders. Ties are broken by createdAt, then id, both descending,
// except in OrderOldest, which is OrderNewest exactly reversed.
const (
	// OrderNewest: GSISK descending, the index partitions k-way merged.
	OrderNewest Order = iota
	// OrderOldest: GSISK ascending, the same partitions read forward.
	OrderOldest
	// OrderHighestRating: the rating partitions 5 down to 1 read one after
	// another, each newest first.
	OrderHighestRating
	// OrderLowestRating: the rating partitions 1 up to 5, each newest first.
	OrderLowestRating
	// OrderMostHelpful: HSK descending (helpful count, then GSISK), the
	// helpful twins of the index partitions k-way merged.
	OrderMostHelpful

	numOrders = iota
)

var orderNames = [numOrders]string{"NEWEST", "OLDEST", "HIGHEST_RATING", "LOWEST_RATING", "MOST_HELPFUL"}

// String returns the GraphQL name of o.
func (o Order) String() string {
	if o >= numOrders {
		return "Order(?)"
	}
	return orderNames[o]
}

// ParseOrder returns the Order named name (the GraphQL enum value); ""
// is OrderNewest, the default.
func ParseOrder(name string) (Order, error) {
	if name == "" {
		return OrderNewest, nil
	}
	if i := slices.Index(orderNames[:], name); i >= 0 {
		return Order(i), nil
	}
	return 0, Invalid("orderBy", "orderBy must be one of NEWEST, OLDEST, HIGHEST_RATING, LOWEST_RATING, MOST_HELPFUL, got %q", name)
}

// byRating reports whether o reads the rating partitions one after
// another (OrderHighestRating, OrderLowestRating) rather than merging.
func (o Order) byRating() bool { return o == OrderHighestRating || o == OrderLowestRating }

// sortColumn is the column (of commentColumns) of the attribute the
// partitions of o are sorted by, the position of a merged page: HSK in
// OrderMostHelpful, GSISK otherwise.
func (o Order) sortColumn() int {
	if o == OrderMostHelpful {
		return colHSK
	}
	return colGSISK
}

// ascending reports whether a page in order o, paged forward (or backward:
// backward), reads its partitions in ascending sort-key order.
func (o Order) ascending(backward bool) bool {
	return (o == OrderOldest) != backward
}

// ratingSequence returns the ratings of filter f in the order o reads
// them: 5 down to 1 (OrderHighestRating) or 1 up to 5.
func (o Order) ratingSequence(f Filter) []int {
	rs := f.Ratings
	if rs == nil {
		rs = []int{1, 2, 3, 4, 5}
	}
	rs = slices.Clone(rs)
	if o == OrderHighestRating {
		slices.Reverse(rs)
	}
	return rs
}

// helpfulTwin maps a GSISK-sorted index to its twin sorted by HSK
// (table.HelpfulIndexes share the hash attributes of table.Indexes).
func helpfulTwin(index string) string {
	for i, d := range table.Indexes {
		if d.Name == index {
			return table.HelpfulIndexes[i].Name
		}
	}
	return index
}

// orderPlan adapts a plan made for OrderNewest to order o: the helpful twins
// of its partitions for OrderMostHelpful (the same partitions, sorted by
// HSK), and the order named in it for EXPLAIN.
func orderPlan(p Plan, o Order) Plan {
	p.Order = o
	if o == OrderMostHelpful {
		p.Partitions = slices.Clone(p.Partitions)
		for i := range p.Partitions {
			p.Partitions[i].Index = helpfulTwin(p.Partitions[i].Index)
		}
	}
	return p
}
