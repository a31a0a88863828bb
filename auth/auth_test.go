package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/testutil"
)

func TestKeySet(t *testing.T) {
	h1, h2 := auth.HashKey("one"), auth.HashKey("two")
	ks, err := auth.ParseKeyHashes(h1 + ", " + strings.ToUpper(h2))
	if err != nil || ks.Len() != 2 {
		t.Fatalf("parse: %v, %d keys", err, ks.Len())
	}
	for key, want := range map[string]bool{"one": true, "two": true, "three": false, "": false, h1: false, "one ": false} {
		if ks.Match(key) != want {
			t.Errorf("Match(%q) = %v", key, !want)
		}
	}
	for _, bad := range []string{"xyz", h1[:63], h1 + "00", "one"} {
		if _, err := auth.ParseKeyHashes(bad); err == nil {
			t.Errorf("ParseKeyHashes(%q): no error", bad)
		}
	}
	// The file form: one a line, comments and blank lines allowed.
	p := filepath.Join(t.TempDir(), "keys")
	os.WriteFile(p, []byte("# ci\n"+h1+"\n\n# app\n"+h2+"\n"), 0o600)
	fks, err := auth.LoadKeyHashes(p)
	if err != nil || fks.Len() != 2 || !fks.Match("two") {
		t.Errorf("LoadKeyHashes: %v, %d", err, fks.Len())
	}
	// sha256sum's output format is what HashKey returns.
	if auth.HashKey("abc") != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashKey(abc) = %s", auth.HashKey("abc"))
	}
}

// TestModeratorKeys: keys added with AddModerators are accepted and
// moderate; the others are accepted and do not; a hash in both lists
// moderates; an unknown key is neither.
func TestModeratorKeys(t *testing.T) {
	ks, err := auth.ParseKeyHashes(auth.HashKey("plain") + "," + auth.HashKey("both"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "moderator-keys")
	os.WriteFile(p, []byte("# moderators\n"+auth.HashKey("mod")+"\n"+auth.HashKey("both")+"\n"), 0o600)
	mks, err := auth.LoadKeyHashes(p)
	if err != nil {
		t.Fatal(err)
	}
	ks.AddModerators(mks)
	ks.AddModerators(nil)
	if ks.Len() != 4 {
		t.Errorf("Len %d, want 4", ks.Len())
	}
	for key, want := range map[string][2]bool{"plain": {true, false}, "mod": {true, true}, "both": {true, true}, "other": {false, false}, "": {false, false}} {
		if ok, roles := ks.Lookup(key); ok != want[0] || roles.Moderator != want[1] || roles.Merchant || ks.Match(key) != want[0] {
			t.Errorf("Lookup(%q) = %v, %+v; want %v", key, ok, roles, want)
		}
	}
	a := &auth.Authenticator{Keys: ks}
	for _, tc := range []struct {
		hdr, val  string
		moderates bool
	}{
		{"X-API-Key", "plain", false},
		{"Authorization", "Bearer plain", false},
		{"X-API-Key", "mod", true},
		{"Authorization", "Bearer mod", true},
	} {
		r := httptest.NewRequest(http.MethodPost, "/graphql", nil)
		r.Header.Set(tc.hdr, tc.val)
		p, err := a.Authenticate(r)
		if err != nil || p == nil || p.Kind != auth.KindAPIKey || !p.MayChangeAny() || p.MayModerate() != tc.moderates {
			t.Errorf("%s: %s: principal %+v err %v, want an API key that moderates: %v", tc.hdr, tc.val, p, err, tc.moderates)
		}
	}
	if (*auth.Principal)(nil).MayModerate() {
		t.Error("no principal moderates")
	}
}

// TestMerchantKeys: keys added with AddMerchants are accepted with the
// merchant role, which replies and verifies purchases but does not
// moderate; a hash listed as merchant and moderator has both roles.
func TestMerchantKeys(t *testing.T) {
	ks, _ := auth.ParseKeyHashes(auth.HashKey("plain"))
	merch, _ := auth.ParseKeyHashes(auth.HashKey("shop") + "," + auth.HashKey("both"))
	mods, _ := auth.ParseKeyHashes(auth.HashKey("both"))
	ks.AddMerchants(merch)
	ks.AddModerators(mods)
	ks.AddMerchants(nil)
	a := &auth.Authenticator{Keys: ks}
	for _, tc := range []struct {
		key                    string
		moderate, reply, verif bool
	}{
		{"plain", false, false, false},
		{"shop", false, true, true},
		{"both", true, true, true},
	} {
		r := httptest.NewRequest(http.MethodPost, "/graphql", nil)
		r.Header.Set("X-API-Key", tc.key)
		p, err := a.Authenticate(r)
		if err != nil || p == nil || !p.MayChangeAny() || p.MayModerate() != tc.moderate || p.MayReply() != tc.reply || p.MayVerifyPurchase() != tc.verif {
			t.Errorf("key %q: principal %+v err %v; want moderate %v, reply %v, verify %v", tc.key, p, err, tc.moderate, tc.reply, tc.verif)
		}
	}
	var none *auth.Principal
	if none.MayReply() || none.MayVerifyPurchase() {
		t.Error("no principal replies or verifies")
	}
	if mod := (&auth.Principal{Kind: auth.KindJWT, Roles: auth.Roles{Moderator: true}}); !mod.MayReply() || mod.MayVerifyPurchase() {
		t.Error("a moderator replies but does not verify purchases")
	}
}

func TestAuthenticate(t *testing.T) {
	ks, _ := auth.ParseKeyHashes(auth.HashKey("k"))
	a := &auth.Authenticator{Keys: ks}
	for _, tc := range []struct {
		hdr, val string
		ok       bool
		err      bool
	}{
		{"", "", false, false},
		{"X-API-Key", "k", true, false},
		{"X-API-Key", "bad", false, true},
		{"Authorization", "Bearer k", true, false},
		{"Authorization", "bearer k", true, false},
		{"Authorization", "Bearer bad", false, true},
		{"Authorization", "Basic k", false, true},
		{"Authorization", "Bearer ", false, true},
		{"Authorization", "Bearer a.b.c", false, true}, // no JWT configured: an API key
	} {
		r := httptest.NewRequest(http.MethodPost, "/graphql", nil)
		if tc.hdr != "" {
			r.Header.Set(tc.hdr, tc.val)
		}
		p, err := a.Authenticate(r)
		if (p != nil) != tc.ok || (err != nil) != tc.err || (err != nil && !errors.Is(err, auth.ErrInvalidCredential)) {
			t.Errorf("%s: %s: principal %+v err %v", tc.hdr, tc.val, p, err)
		}
		if p != nil && (p.Kind != auth.KindAPIKey || !p.MayChangeAny()) {
			t.Errorf("%s: %+v", tc.val, p)
		}
	}
	if (&auth.Authenticator{}).Enabled() || (*auth.Authenticator)(nil).Enabled() || !a.Enabled() {
		t.Error("Enabled")
	}
}

// TestAuthenticateRefusesOversizeCredentials: a credential header over
// MaxCredentialBytes is ErrCredentialTooLarge (an ErrInvalidCredential)
// before it is matched or parsed, whatever it holds; one at the bound is
// looked at as usual.
func TestAuthenticateRefusesOversizeCredentials(t *testing.T) {
	ks, _ := auth.ParseKeyHashes(auth.HashKey("k"))
	a := &auth.Authenticator{Keys: ks, JWT: panicVerifier{}}
	big := strings.Repeat("a", auth.MaxCredentialBytes)
	for _, tc := range []struct{ hdr, val string }{
		{"X-API-Key", big + "a"},
		{"Authorization", "Bearer " + big},
		{"Authorization", "Bearer " + big[:len(big)/2] + "." + big[:len(big)/2] + ".x"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/graphql", nil)
		r.Header.Set(tc.hdr, tc.val)
		if p, err := a.Authenticate(r); p != nil || !errors.Is(err, auth.ErrCredentialTooLarge) || !errors.Is(err, auth.ErrInvalidCredential) {
			t.Errorf("%s of %d bytes: principal %+v err %v, want ErrCredentialTooLarge", tc.hdr, len(tc.val), p, err)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/graphql", nil)
	r.Header.Set("X-API-Key", big)
	if _, err := a.Authenticate(r); errors.Is(err, auth.ErrCredentialTooLarge) || !errors.Is(err, auth.ErrInvalidCredential) {
		t.Errorf("X-API-Key of exactly MaxCredentialBytes: %v, want a plain ErrInvalidCredential", err)
	}
}

// panicVerifier is a TokenVerifier that must not be called.
type panicVerifier struct{}

func (panicVerifier) Verify(context.Context, string) (*auth.Principal, error) {
	panic("an oversize token reached the JWT verifier")
}

func TestJWKS(t *testing.T) {
	srv := testutil.MustJWKS(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := auth.NewJWKS(ctx, auth.JWTConfig{JWKSURL: srv.URL, Issuer: "https://idp.test/", Audience: "comments", RolesClaim: "app_roles"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	good := func() map[string]any {
		return map[string]any{"sub": "user-1", "iss": "https://idp.test/", "aud": []string{"comments"}, "exp": now.Add(time.Hour), "iat": now}
	}
	with := func(k string, v any) map[string]any {
		c := good()
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	for _, tc := range []struct {
		name   string
		token  string
		ok     bool
		modera bool
	}{
		{"RSA", srv.Sign(t, false, good()), true, false},
		{"EC", srv.Sign(t, true, good()), true, false},
		{"moderator", srv.Sign(t, false, with("app_roles", []string{"reader", "moderator"})), true, true},
		{"moderator as a string", srv.Sign(t, false, with("app_roles", "reader moderator")), true, true},
		{"other roles claim", srv.Sign(t, false, with("roles", []string{"moderator"})), true, false},
		{"merchant", srv.Sign(t, false, with("app_roles", []string{"merchant"})), true, false},
		{"expired", srv.Sign(t, false, with("exp", now.Add(-time.Hour))), false, false},
		{"no exp", srv.Sign(t, false, with("exp", nil)), false, false},
		{"no sub", srv.Sign(t, false, with("sub", nil)), false, false},
		{"wrong issuer", srv.Sign(t, false, with("iss", "https://evil.test/")), false, false},
		{"wrong audience", srv.Sign(t, false, with("aud", []string{"other"})), false, false},
		{"not yet valid", srv.Sign(t, false, with("nbf", now.Add(time.Hour))), false, false},
		{"tampered", tamper(srv.Sign(t, false, good())), false, false},
		{"garbage", "a.b.c", false, false},
		{"unsigned", unsigned(good()), false, false},
		{"foreign key", testutil.MustJWKS(t).Sign(t, false, good()), false, false},
	} {
		p, err := v.Verify(ctx, tc.token)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %+v, %v", tc.name, p, err)
			continue
		}
		if tc.ok && (p.Subject != "user-1" || p.Kind != auth.KindJWT || p.Moderator != tc.modera || p.MayChangeAny() != tc.modera ||
			p.Merchant != (tc.name == "merchant")) {
			t.Errorf("%s: principal %+v", tc.name, p)
		}
	}

	// Through the authenticator: a bearer value with two dots is a token.
	a := &auth.Authenticator{JWT: v}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Authorization", "Bearer "+srv.Sign(t, true, good()))
	if p, err := a.Authenticate(r); err != nil || p.Subject != "user-1" {
		t.Errorf("Authenticate: %+v %v", p, err)
	}
	r.Header.Set("Authorization", "Bearer "+srv.Sign(t, true, with("exp", now.Add(-time.Hour))))
	if _, err := a.Authenticate(r); !errors.Is(err, auth.ErrInvalidCredential) {
		t.Errorf("expired through Authenticate: %v", err)
	}

	short, cancelShort := context.WithTimeout(ctx, time.Second)
	defer cancelShort()
	if _, err := auth.NewJWKS(short, auth.JWTConfig{JWKSURL: "http://127.0.0.1:1/jwks"}); err == nil {
		t.Error("an unreachable JWKS URL: no error")
	}
}

func tamper(tok string) string {
	parts := strings.Split(tok, ".")
	parts[1] = strings.TrimRight(parts[1], "=") + "x"
	return strings.Join(parts, ".")
}

// unsigned makes an alg:none token.
func unsigned(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return strings.TrimRight(b64(b), "=")
	}
	return enc(map[string]any{"alg": "none", "typ": "JWT", "kid": "rsa-1"}) + "." + enc(claims) + "."
}

// TestIdentity: one identity per JWT subject and per API key, bounded in
// length whatever the subject.
func TestIdentity(t *testing.T) {
	long := strings.Repeat("s", 5000)
	for _, tc := range []struct {
		p    *auth.Principal
		want string
	}{
		{nil, ""},
		{&auth.Principal{Kind: auth.KindJWT, Subject: "alice"}, "jwt:alice"},
		{&auth.Principal{Kind: auth.KindJWT, Subject: long}, "jwt#" + auth.HashKey(long)},
		{&auth.Principal{Kind: auth.KindAPIKey, Client: "0123456789abcdef"}, "api-key:0123456789abcdef"},
	} {
		if got := tc.p.Identity(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
	ks, err := auth.ParseKeyHashes(auth.HashKey("k1") + "," + auth.HashKey("k2"))
	if err != nil {
		t.Fatal(err)
	}
	a := &auth.Authenticator{Keys: ks}
	var ids []string
	for _, k := range []string{"k1", "k2"} {
		r, _ := http.NewRequest("POST", "/", nil)
		r.Header.Set("X-API-Key", k)
		p, err := a.Authenticate(r)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.Identity())
	}
	if ids[0] == ids[1] || ids[0] != "api-key:"+auth.HashKey("k1")[:16] {
		t.Errorf("API key identities %q", ids)
	}
}
