package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
)

// A replacement of gqlgen's generated code: every occurrence of from
// becomes to. A required replacement must apply in a file that defines
// owner (so that a gqlgen upgrade that changes the generated text fails
// loudly instead of silently dropping the faster path).
type replacement struct {
	from, to string
	owner    string // "": optional
}

var replacements = []replacement{
	// Lists marshal their elements in place when nothing can be gained
	// from a goroutine each (gqlexec.MarshalSlice).
	{from: "graphql.MarshalSliceConcurrently(", to: "gqlexec.MarshalSlice("},
	// A page of comments marshals in one pass (gqlexec.CommentConnection).
	{
		from:  "return ec._CommentConnection(ctx, sel, v)",
		to:    "return gqlexec.CommentConnection(ctx, sel, v, ec._CommentConnection)",
		owner: "func (ec *executionContext) _CommentConnection(",
	},
}

const (
	gqlImport  = "\t\"github.com/99designs/gqlgen/graphql\"\n"
	execImport = "\t\"github.com/acme/comments-gateway/internal/gqlexec\"\n"
)

// rewrite applies the replacements to the file at path (gofmt-ed); a file
// already rewritten stays as it is.
func rewrite(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := replace(src)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if bytes.Equal(out, src) {
		return nil
	}
	if !bytes.Contains(out, []byte(execImport)) {
		if !bytes.Contains(out, []byte(gqlImport)) {
			return fmt.Errorf("%s: no import of gqlgen's graphql package", path)
		}
		out = bytes.Replace(out, []byte(gqlImport), []byte(gqlImport+execImport), 1)
	}
	if out, err = format.Source(out); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}

// replace applies the replacements to src; an error when a required one
// finds its owner but not its text.
func replace(src []byte) ([]byte, error) {
	for _, r := range replacements {
		if r.owner != "" && bytes.Contains(src, []byte(r.owner)) &&
			!bytes.Contains(src, []byte(r.from)) && !bytes.Contains(src, []byte(r.to)) {
			return nil, fmt.Errorf("%q not found: update internal/gqlexec/generate for this gqlgen", r.from)
		}
		src = bytes.ReplaceAll(src, []byte(r.from), []byte(r.to))
	}
	return src, nil
}
