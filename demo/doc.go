// Package demo generates deterministic synthetic product comments: the demo
// data that `serve` loads into an empty store, and the data of the `seed`
// command.
//
// The data look like a real shop's — skewed product popularity, J-shaped
// ratings, mostly-English but multilingual text whose sentiment matches the
// rating, exact createdAt ties — so that every filter of the API has
// something interesting to show, and so that tests exercise sparse
// partitions (a product without any 1★ comment), single-language products
// and the tie-break by id. The same seed always gives the same comments:
//
//	comments := demo.Generate(demo.NewRand(42), demo.DefaultConfig())
package demo
