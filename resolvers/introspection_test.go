package resolvers_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/99designs/gqlgen/client"

	"github.com/acme/comments-gateway/resolvers"
)

// TestStandardIntrospectionQueryIsAccepted: graphql-js's own introspection
// query (getIntrospectionQuery, as GraphiQL sends it, and with every option
// on), unchanged, is answered under the default limits, and its type
// references are deep enough for every type of the schema (GraphiQL's
// buildClientSchema fails with "Decorated type deeper than introspection
// query" otherwise). testdata/introspection-*.graphql are printed by
// web/e2e/introspection-query.mjs from the pinned npm graphql package;
// web/test.sh checks that they are current.
func TestStandardIntrospectionQueryIsAccepted(t *testing.T) {
	h := resolvers.NewHandler(resolvers.Config{Store: MustEnv(t).store})
	c := client.New(h)
	for _, name := range []string{"graphiql", "full"} {
		t.Run(name, func(t *testing.T) {
			q, err := os.ReadFile(filepath.Join("testdata", "introspection-"+name+".graphql"))
			if err != nil {
				t.Fatal(err)
			}
			var resp struct {
				Schema struct {
					Types []struct {
						Name   string
						Fields []struct {
							Name string
							Type typeRef
							Args []struct {
								Name string
								Type typeRef
							}
						}
						InputFields []struct {
							Name string
							Type typeRef
						}
					}
					Directives []struct {
						Name string
						Args []struct {
							Name string
							Type typeRef
						}
					}
				} `json:"__schema"`
			}
			raw, err := c.RawPost(string(q), client.Operation("IntrospectionQuery"))
			if err != nil {
				t.Fatal(err)
			}
			if len(raw.Errors) > 0 && string(raw.Errors) != "null" {
				t.Fatalf("errors: %s", raw.Errors)
			}
			b, _ := json.Marshal(raw.Data)
			if err := json.Unmarshal(b, &resp); err != nil {
				t.Fatal(err)
			}
			if len(resp.Schema.Types) == 0 {
				t.Fatalf("no types in %s", b)
			}
			refs := 0
			check := func(where string, r typeRef) {
				refs++
				if !r.complete() {
					t.Errorf("%s: the type reference is cut off before its named type", where)
				}
			}
			for _, ty := range resp.Schema.Types {
				for _, f := range ty.Fields {
					check(ty.Name+"."+f.Name, f.Type)
					for _, a := range f.Args {
						check(ty.Name+"."+f.Name+"("+a.Name+")", a.Type)
					}
				}
				for _, f := range ty.InputFields {
					check(ty.Name+"."+f.Name, f.Type)
				}
			}
			for _, d := range resp.Schema.Directives {
				for _, a := range d.Args {
					check("@"+d.Name+"("+a.Name+")", a.Type)
				}
			}
			if refs < 50 {
				t.Errorf("only %d type references checked", refs)
			}
		})
	}
}

// typeRef is an introspected __Type reference: wrappers (NON_NULL, LIST)
// down to a named type.
type typeRef struct {
	Kind   string
	Name   *string
	OfType *typeRef
}

// complete reports whether the reference reaches its named type.
func (r typeRef) complete() bool {
	if r.Kind == "NON_NULL" || r.Kind == "LIST" {
		return r.OfType != nil && r.OfType.complete()
	}
	return r.Name != nil
}
