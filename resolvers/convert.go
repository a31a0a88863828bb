package resolvers

import (
	"context"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/store"
)

// wantsField reports whether the current field's selection (fragments
// included) asks for the named child field.
func wantsField(ctx context.Context, name string) bool {
	return slices.Contains(graphql.CollectAllFields(ctx), name)
}

// optLanguage canonicalises an optional language argument ("" for all).
func optLanguage(l *string) (string, error) {
	if l == nil {
		return "", nil
	}
	return store.CanonicalLanguage(*l)
}

// commentFilter validates the language and ratings arguments of the
// comments list (and of the subscriptions that follow it).
func commentFilter(language *string, ratings []int) (store.Filter, error) {
	lang, err := optLanguage(language)
	if err != nil {
		return store.Filter{}, err
	}
	rs, err := store.NormalizeRatings(ratings)
	if err != nil {
		return store.Filter{}, err
	}
	return store.Filter{Language: lang, Ratings: rs}, nil
}

// commentOrder maps the orderBy argument (nil: the default) to the
// store's order.
func commentOrder(o *model.CommentOrder) (store.Order, error) {
	if o == nil {
		return store.OrderNewest, nil
	}
	return store.ParseOrder(string(*o))
}

// connection maps a store page to the GraphQL connection.
func connection(c *store.Connection) *model.CommentConnection {
	out := &model.CommentConnection{
		Edges:      make([]*model.CommentEdge, len(c.Edges)),
		Nodes:      make([]*store.Comment, len(c.Edges)),
		PageInfo:   &model.PageInfo{HasNextPage: c.HasNextPage, HasPreviousPage: c.HasPreviousPage},
		TotalCount: int(c.TotalCount),
	}
	edges := make([]model.CommentEdge, len(c.Edges)) // one allocation for the page
	for i, e := range c.Edges {
		edges[i] = model.CommentEdge{Cursor: e.Cursor, Node: e.Comment}
		out.Edges[i] = &edges[i]
		out.Nodes[i] = e.Comment
	}
	if n := len(c.Edges); n > 0 {
		start, end := c.Edges[0].Cursor, c.Edges[n-1].Cursor
		out.PageInfo.StartCursor, out.PageInfo.EndCursor = &start, &end
	}
	return out
}

// commentStats maps stats to the GraphQL type: ratings 1..5 always, and the
// average only when there are comments.
func commentStats(st *store.Stats) *model.CommentStats {
	out := &model.CommentStats{Total: int(st.Total), Ratings: make([]*model.RatingCount, 0, store.MaxRating)}
	if st.Language != "" {
		l := st.Language
		out.Language = &l
	}
	var sum int64
	for r := store.MinRating; r <= store.MaxRating; r++ {
		out.Ratings = append(out.Ratings, &model.RatingCount{Rating: r, Count: int(st.Counts[r])})
		sum += int64(r) * st.Counts[r]
	}
	if st.Total > 0 {
		avg := float64(sum) / float64(st.Total)
		out.AverageRating = &avg
	}
	return out
}
