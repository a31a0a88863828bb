package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/acme/comments-gateway/resolvers"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: schemagen DIR")
		os.Exit(2)
	}
	for name, b := range map[string][]byte{"schema.graphql": resolvers.SDL(), "error-codes.json": resolvers.ErrorCodesJSON()} {
		if err := os.WriteFile(filepath.Join(os.Args[1], name), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "schemagen:", err)
			os.Exit(1)
		}
	}
}
