package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// MustLoadReadUnitsData fills tbl for the read-unit measures (docs/capacity.md):
// cs (MustLoad; the callers pass 400 demo comments on 2 products), then 40 more written one by
// one on the first comment's product and language, a rating after another,
// so that every counter shard of that product and language exists. It
// returns that product and language.
func MustLoadReadUnitsData(tb testing.TB, tbl table.Table, cs []*store.Comment) (productID, language string) {
	tb.Helper()
	s := MustLoad(tb, tbl, cs)
	productID, language = cs[0].ProductID, cs[0].Language
	for i := range 40 {
		_, err := s.CreateComment(context.Background(), store.NewComment{ProductID: productID, Language: language, Rating: 1 + i%5,
			Author: "reader", Title: "t", Body: fmt.Sprintf("comment %d", i)})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return productID, language
}
