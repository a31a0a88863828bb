package command

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

// TestBaseURLNamesAReachableHost: the address serve prints for people and
// scripts names localhost for a wildcard listener and keeps a specific one.
func TestBadFlagNamesTheNearestFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "-cors-origin", "x"}, "flag provided but not defined: -cors-origin; did you mean -cors-origins?\nRun \"comments-gateway serve -h\" for its flags."},
		{[]string{"-max-depht", "3"}, "flag provided but not defined: -max-depht; did you mean -max-depth?\nRun \"comments-gateway serve -h\" for its flags."},
		{[]string{"import", "--stor=bolt:x.db", "-"}, "flag provided but not defined: -stor; did you mean -store?\nRun \"comments-gateway import -h\" for its flags."},
		{[]string{"seed", "-zzzzzz"}, "flag provided but not defined: -zzzzzz\nRun \"comments-gateway seed -h\" for its flags."},
		{[]string{"seed", "-products", "many"}, "invalid value \"many\" for flag -products: parse error\nRun \"comments-gateway seed -h\" for its flags."},
		{[]string{"improt", "x.jsonl"}, "unknown command \"improt\"; did you mean import?\nRun \"comments-gateway -h\" for the commands."},
	} {
		var stdout, stderr strings.Builder
		err := Run(context.Background(), tc.args, func(string) string { return "" }, nil, &stdout, &stderr)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: got %v, want %q", tc.args, err, tc.want)
		}
		if stdout.Len()+stderr.Len() > 0 {
			t.Errorf("%v printed more than its error:\n%s%s", tc.args, stdout.String(), stderr.String())
		}
	}
	var stderr strings.Builder
	err := Run(context.Background(), []string{"import", "-h"}, func(string) string { return "" }, nil, io.Discard, &stderr)
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr.String(), "Usage: comments-gateway import") || !strings.Contains(stderr.String(), "-store") {
		t.Errorf("import -h: %v\n%s", err, stderr.String())
	}
}
