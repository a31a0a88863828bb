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
// keys and moderate, next to -api-keys' plain ones, and -merchant-api-keys
// (-file) keys of the merchant role (a hash in both files has both roles);
// a bad hash names its flag; moderator or merchant keys alone are
// credentials, so they contradict -open-mutations.
func TestModeratorAPIKeyFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "moderators")
	if err := os.WriteFile(file, []byte("# on call\n"+auth.HashKey("mod-file")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"COMMENTS_MODERATOR_API_KEYS": auth.HashKey("mod-env"), "COMMENTS_MERCHANT_API_KEYS": auth.HashKey("shop-env")}
	c, err := ParseConfig([]string{"-api-keys", auth.HashKey("plain"), "-moderator-api-keys-file", file, "-merchant-api-keys-file", file}, false,
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := c.access.authenticator(context.Background(), log)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][3]bool{"plain": {true, false, false}, "mod-env": {true, true, false}, "mod-file": {true, true, true},
		"shop-env": {true, false, true}, "other": {false, false, false}} {
		if ok, roles := a.Keys.Lookup(key); ok != want[0] || roles.Moderator != want[1] || roles.Merchant != want[2] {
			t.Errorf("key %q: accepted %v, roles %+v; want %v", key, ok, roles, want)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-moderator-api-keys", "nothex"}, "-moderator-api-keys: line 1"},
		{[]string{"-merchant-api-keys", "nothex"}, "-merchant-api-keys: line 1"},
		{[]string{"-merchant-api-keys-file", filepath.Join(t.TempDir(), "missing")}, "-merchant-api-keys-file: "},
		{[]string{"-merchant-api-keys", auth.HashKey("m"), "-open-mutations"}, "-open-mutations contradicts"},
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
