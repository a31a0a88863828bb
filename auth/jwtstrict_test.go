package auth_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/testutil"
)

// TestJWKSStrict: tokens that are validly signed by a JWKS key and carry
// every required claim, but with a crit header or a date claim that is not
// a JSON number, are refused; the same token without the oddity passes.
func TestJWKSStrict(t *testing.T) {
	srv := testutil.MustJWKS(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := auth.NewJWKS(ctx, auth.JWTConfig{JWKSURL: srv.URL, Issuer: "iss", Audience: "aud"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	claims := func(over map[string]any) string {
		c := map[string]any{"sub": "u1", "iss": "iss", "aud": "aud", "exp": now + 3600, "iat": now, "nbf": now - 10}
		for k, x := range over {
			c[k] = x
		}
		b, _ := json.Marshal(c)
		return string(b)
	}
	for _, tc := range []struct {
		name, token, wantErr string
	}{
		{"plain", srv.SignRaw(t, claims(nil), nil), ""},
		{"crit with an unknown extension", srv.SignRaw(t, claims(nil), map[string]any{"crit": []string{"exp"}, "exp": now + 3600}), "crit"},
		{"crit naming b64", srv.SignRaw(t, claims(nil), map[string]any{"crit": []string{"b64"}}), "crit"},
		{"crit empty", srv.SignRaw(t, claims(nil), map[string]any{"crit": []string{}}), "crit"},
		{"string exp", srv.SignRaw(t, claims(map[string]any{"exp": "9999999999"}), nil), "exp"},
		{"string nbf", srv.SignRaw(t, claims(map[string]any{"nbf": "0"}), nil), "nbf"},
		{"string iat", srv.SignRaw(t, claims(map[string]any{"iat": "0"}), nil), "iat"},
		{"bool exp", srv.SignRaw(t, claims(map[string]any{"exp": true}), nil), "exp"},
		{"null iat", srv.SignRaw(t, claims(map[string]any{"iat": nil}), nil), "iat"},
		{"object nbf", srv.SignRaw(t, claims(map[string]any{"nbf": map[string]any{"n": 1}}), nil), "nbf"},
		{"float exp", srv.SignRaw(t, claims(map[string]any{"exp": float64(now) + 3600.5}), nil), ""},
	} {
		p, err := v.Verify(ctx, tc.token)
		switch {
		case tc.wantErr == "" && (err != nil || p.Subject != "u1"):
			t.Errorf("%s: %+v, %v; want accepted", tc.name, p, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: %+v, %v; want an error naming %q", tc.name, p, err, tc.wantErr)
		}
	}
}
