package table_test

import (
	"fmt"

	"github.com/acme/comments-gateway/store/table"
)

// An item's values say whether they are there and of the kind asked for.
func ExampleValue() {
	it := table.Item{table.AttrTitle: table.S("Great"), table.AttrRating: table.N(4)}
	title, ok := it[table.AttrTitle].Str()
	fmt.Println(title, ok)
	_, ok = it[table.AttrRating].Str() // a number, not a string
	fmt.Println(ok)
	_, ok = it[table.AttrBody].Str() // absent
	fmt.Println(ok, it[table.AttrBody].Kind())
	rating, ok := it[table.AttrRating].Num()
	fmt.Println(rating, ok)
	// Output:
	// Great true
	// false
	// false none
	// 4 true
}
