package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// JWKS is an identity provider's key endpoint on 127.0.0.1: it serves the
// public halves of an RSA key ("rsa-1", RS256) and an EC key ("ec-1",
// ES256), and signs tokens with their private halves.
type JWKS struct {
	*httptest.Server
	RSA, EC jwk.Key // the private keys
}

// MustJWKS starts a JWKS server, stopped when the test ends.
func MustJWKS(tb testing.TB) *JWKS {
	tb.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	s := &JWKS{RSA: mustJWK(tb, rk, "rsa-1", jwa.RS256()), EC: mustJWK(tb, ek, "ec-1", jwa.ES256())}
	set := jwk.NewSet()
	for _, priv := range []jwk.Key{s.RSA, s.EC} {
		pub, err := priv.PublicKey()
		if err != nil {
			tb.Fatal(err)
		}
		_ = set.AddKey(pub)
	}
	body, _ := json.Marshal(set)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	tb.Cleanup(s.Close)
	return s
}

func mustJWK(tb testing.TB, raw any, kid string, alg jwa.SignatureAlgorithm) jwk.Key {
	tb.Helper()
	k, err := jwk.Import(raw)
	if err != nil {
		tb.Fatal(err)
	}
	_ = k.Set(jwk.KeyIDKey, kid)
	_ = k.Set(jwk.AlgorithmKey, alg)
	return k
}

// Sign returns a token with exactly the given claims, signed with the RSA
// key, or the EC key when ec is true.
func (s *JWKS) Sign(tb testing.TB, ec bool, claims map[string]any) string {
	tb.Helper()
	tok := jwt.New()
	for k, v := range claims {
		if err := tok.Set(k, v); err != nil {
			tb.Fatal(err)
		}
	}
	key, alg := s.RSA, jwa.RS256()
	if ec {
		key, alg = s.EC, jwa.ES256()
	}
	b, err := jwt.Sign(tok, jwt.WithKey(alg, key))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// SignRaw signs a claims JSON object exactly as given (so a claim may have
// any JSON type) with the RSA key, adding extra protected headers.
func (s *JWKS) SignRaw(tb testing.TB, claims string, extra map[string]any) string {
	tb.Helper()
	h := jws.NewHeaders()
	for k, v := range extra {
		if err := h.Set(k, v); err != nil {
			tb.Fatal(err)
		}
	}
	kid, _ := s.RSA.KeyID()
	h.Set(jws.KeyIDKey, kid)
	h.Set(jws.TypeKey, "JWT")
	b, err := jws.Sign([]byte(claims), jws.WithKey(jwa.RS256(), s.RSA, jws.WithProtectedHeaders(h)))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
