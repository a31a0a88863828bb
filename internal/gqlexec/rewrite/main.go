package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
)

const (
	from       = "graphql.MarshalSliceConcurrently("
	to         = "gqlexec.MarshalSlice("
	gqlImport  = "\t\"github.com/99designs/gqlgen/graphql\"\n"
	execImport = "\t\"github.com/acme/comments-gateway/internal/gqlexec\"\n"
)

func main() {
	for _, path := range os.Args[1:] {
		if err := rewrite(path); err != nil {
			fmt.Fprintln(os.Stderr, "rewrite:", err)
			os.Exit(1)
		}
	}
}

func rewrite(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.Contains(src, []byte(from)) {
		return nil
	}
	out := bytes.ReplaceAll(src, []byte(from), []byte(to))
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
