package serve

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/auth"
)

// TestModeratorAPIKeyFlags: -moderator-api-keys (or its COMMENTS_*
// variable) and -moderator-api-keys-file add keys that are accepted as API
// keys and moderate, next to -api-keys' plain ones; a bad hash names its
// flag; moderator keys alone are credentials, so they contradict
// -open-mutations.
func TestModeratorAPIKeyFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "moderators")
	if err := os.WriteFile(file, []byte("# on call\n"+auth.HashKey("mod-file")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"COMMENTS_MODERATOR_API_KEYS": auth.HashKey("mod-env")}
	c, err := ParseConfig([]string{"-api-keys", auth.HashKey("plain"), "-moderator-api-keys-file", file}, false,
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := c.access.authenticator(context.Background(), log)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][2]bool{"plain": {true, false}, "mod-env": {true, true}, "mod-file": {true, true}, "other": {false, false}} {
		if ok, mod := a.Keys.Lookup(key); ok != want[0] || mod != want[1] {
			t.Errorf("key %q: accepted %v, moderates %v; want %v", key, ok, mod, want)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-moderator-api-keys", "nothex"}, "-moderator-api-keys: line 1"},
		{[]string{"-moderator-api-keys-file", filepath.Join(t.TempDir(), "missing")}, "-moderator-api-keys-file: "},
		{[]string{"-moderator-api-keys", auth.HashKey("m"), "-open-mutations"}, "-open-mutations contradicts"},
	} {
		c, err := ParseConfig(tc.args, false, func(string) string { return "" }, io.Discard)
		if err == nil {
			_, err = c.access.authenticator(context.Background(), log)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("serve %s: got %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}
