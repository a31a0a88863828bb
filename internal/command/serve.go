package command

import (
	"context"
	"io"

	"github.com/acme/comments-gateway/internal/serve"
)

// cmdServe is the serve command (package serve): devDefault is -dev's
// default, true when no command word was given. The garbage collector's
// tuning for serving holds while it runs.
func cmdServe(ctx context.Context, args []string, devDefault bool, getenv func(string) string, stdout, stderr io.Writer) error {
	defer serve.TuneGC()()
	cfg, err := serve.ParseConfig(args, devDefault, getenv, stderr)
	if err != nil {
		return err
	}
	return serve.Run(ctx, cfg, stdout, stderr)
}
