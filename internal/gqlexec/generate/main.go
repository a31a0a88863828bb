package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/99designs/gqlgen/api"
	"github.com/99designs/gqlgen/codegen/config"
)

// configFile is gqlgen's configuration, at the module's root, where `go
// generate` runs this command.
const configFile = "gqlgen.yml"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}

// run generates as `gqlgen generate` does (its progress log silenced, as
// gqlgen's command does without -v), then rewrites the execution files.
func run() error {
	log.SetOutput(io.Discard)
	cfg, err := config.LoadConfig(configFile)
	if err != nil {
		return err
	}
	if err := api.Generate(cfg); err != nil {
		return fmt.Errorf("gqlgen: %w", err)
	}
	files := []string{cfg.Exec.Filename}
	if cfg.Federation.IsDefined() {
		files = append(files, cfg.Federation.Filename)
	}
	for _, path := range files {
		if err := rewrite(path); err != nil {
			return err
		}
	}
	return nil
}
