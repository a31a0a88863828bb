package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lestrrat-go/httprc/v3"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// DefaultRolesClaim is the claim whose values grant roles.
const DefaultRolesClaim = "roles"

// The roles a JWT's roles claim may grant (see Roles).
const (
	// ModeratorRole may change anyone's comments, moderate and reply.
	ModeratorRole = "moderator"
	// MerchantRole is the shop: it replies to comments and creates
	// comments of verified purchases.
	MerchantRole = "merchant"
)

// JWTConfig configures JWKS verification.
type JWTConfig struct {
	JWKSURL    string // required
	Issuer     string // required `iss` when set
	Audience   string // required in `aud` when set
	RolesClaim string // DefaultRolesClaim when empty
	// Skew is the clock skew allowed on exp/nbf/iat (30s when 0).
	Skew time.Duration
}

// JWKS verifies JWTs against the keys a JWKS URL serves, refreshed in the
// background (github.com/lestrrat-go/jwx). Tokens must carry a kid naming
// one of those keys, a valid signature, an unexpired exp, and a sub; a
// token with a crit header or a non-numeric exp, nbf or iat is refused (see
// checkStrict).
type JWKS struct {
	cfg   JWTConfig
	cache *jwk.Cache
	set   jwk.Set
}

// NewJWKS fetches the key set once (so a wrong URL fails at start-up) and
// keeps it fresh until ctx ends.
func NewJWKS(ctx context.Context, cfg JWTConfig) (*JWKS, error) {
	if cfg.JWKSURL == "" {
		return nil, errors.New("no JWKS URL")
	}
	if cfg.RolesClaim == "" {
		cfg.RolesClaim = DefaultRolesClaim
	}
	if cfg.Skew == 0 {
		cfg.Skew = 30 * time.Second
	}
	c, err := jwk.NewCache(ctx, httprc.NewClient())
	if err != nil {
		return nil, err
	}
	fctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := c.Register(fctx, cfg.JWKSURL, jwk.WithMinInterval(time.Minute), jwk.WithMaxInterval(time.Hour)); err != nil {
		return nil, fmt.Errorf("JWKS %s: %w", cfg.JWKSURL, err)
	}
	set, err := c.CachedSet(cfg.JWKSURL)
	if err != nil {
		return nil, fmt.Errorf("JWKS %s: %w", cfg.JWKSURL, err)
	}
	return &JWKS{cfg: cfg, cache: c, set: set}, nil
}

// Verify checks token and returns its principal.
func (j *JWKS) Verify(ctx context.Context, token string) (*Principal, error) {
	if err := checkStrict(token); err != nil {
		return nil, err
	}
	opts := []jwt.ParseOption{
		// Keys without an "alg" (some IdPs omit it) verify with the
		// algorithms of their type; the token's kid must name a key.
		jwt.WithKeySet(j.set, jws.WithInferAlgorithmFromKey(true)),
		jwt.WithValidate(true),
		jwt.WithAcceptableSkew(j.cfg.Skew),
		jwt.WithRequiredClaim(jwt.ExpirationKey),
		jwt.WithRequiredClaim(jwt.SubjectKey),
	}
	if j.cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(j.cfg.Issuer))
	}
	if j.cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(j.cfg.Audience))
	}
	tok, err := jwt.ParseString(token, opts...)
	if err != nil {
		return nil, err
	}
	sub, ok := tok.Subject()
	if !ok || sub == "" {
		return nil, errors.New("token has no subject")
	}
	p := &Principal{Kind: KindJWT, Subject: sub}
	var roles any
	if err := tok.Get(j.cfg.RolesClaim, &roles); err == nil {
		p.Moderator = hasRole(roles, ModeratorRole)
		p.Merchant = hasRole(roles, MerchantRole)
	}
	return p, nil
}

// hasRole accepts a roles claim as a list of strings or one
// space-separated string (as OAuth's `scope` is).
func hasRole(claim any, role string) bool {
	switch v := claim.(type) {
	case []any:
		for _, r := range v {
			if s, _ := r.(string); s == role {
				return true
			}
		}
	case []string:
		return slices.Contains(v, role)
	case string:
		return slices.Contains(splitSpace(v), role)
	}
	return false
}

func splitSpace(s string) []string {
	var out []string
	start := -1
	for i, r := range s + " " {
		if r == ' ' || r == ',' {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return out
}
