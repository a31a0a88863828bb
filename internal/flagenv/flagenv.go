package flagenv

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vektah/gqlparser/v2/validator/core"
)

// New returns a flag set for the command name whose -h prints help (the
// command's description) above its flags, on stderr; Parse gives its flags
// their COMMENTS_<FLAG> environment variables.
func New(name, help string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		out := fs.Output()
		if help != "" {
			fmt.Fprint(out, help)
		} else {
			fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
		}
		fs.PrintDefaults()
	}
	return fs
}

// Parse applies defaults < environment < flags. A bad flag is one error
// line with the nearest flag's name, not the whole usage (flagError); -h
// prints the usage and returns flag.ErrHelp.
func Parse(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		env := "COMMENTS_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		f.Usage += " (env " + env + ")"
		if v := getenv(env); v != "" && err == nil {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %v", env, v, e)
			}
		}
	})
	if err != nil {
		return err
	}
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package prints the error and the whole usage
	err = fs.Parse(args)
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	case err != nil:
		return flagError(fs, err)
	}
	return nil
}

// flagError is the error of a bad flag of fs (err, from fs.Parse): one
// line, with the nearest defined flag when the name is unknown, and a hint
// at the command's -h instead of the whole usage.
func flagError(fs *flag.FlagSet, err error) error {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		if s := core.SuggestionList(name, names); len(s) > 0 {
			err = fmt.Errorf("%w; did you mean -%s?", err, s[0])
		}
	}
	return WithHint(err, fmt.Sprintf("Run \"comments-gateway %s -h\" for its flags.", fs.Name()))
}

// WithHint returns err followed, on a line of its own, by hint: what to
// run next. It unwraps to err.
func WithHint(err error, hint string) error { return hinted{err, hint} }

// hinted is an error followed, on a line of its own, by what to run next.
type hinted struct {
	err  error
	hint string
}

// Error is the error, then the hint on its own line.
func (h hinted) Error() string { return h.err.Error() + "\n" + h.hint }

// Unwrap returns the error without its hint.
func (h hinted) Unwrap() error { return h.err }
