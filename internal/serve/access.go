package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"github.com/acme/comments-gateway/auth"
)

// accessConfig is the serve flags about who may do what.
type accessConfig struct {
	dev, open                 bool
	apiKeys, apiKeysFile      string
	modKeys, modKeysFile      string
	merchKeys, merchKeysFile  string
	jwksURL, issuer, audience string
	rolesClaim                string
}

// register adds the flags about who may do what to fs (devDefault: -dev's
// default, true without a command word).
func (c *accessConfig) register(fs *flag.FlagSet, devDefault bool) {
	fs.BoolVar(&c.dev, "dev", devDefault, "dev mode: open mutations allowed (with a warning), introspection and GraphiQL on, text logs (default true without a command word, false for the serve command)")
	fs.BoolVar(&c.open, "open-mutations", false, "allow mutations without any credential outside dev mode")
	fs.StringVar(&c.apiKeys, "api-keys", "", "comma-separated SHA-256 hex hashes of the accepted API keys")
	fs.StringVar(&c.apiKeysFile, "api-keys-file", "", "file of API key hashes, one a line (# comments)")
	fs.StringVar(&c.modKeys, "moderator-api-keys", "", "comma-separated SHA-256 hex hashes of API keys that may also moderate (accepted as API keys too)")
	fs.StringVar(&c.modKeysFile, "moderator-api-keys-file", "", "file of moderator API key hashes, one a line (# comments)")
	fs.StringVar(&c.merchKeys, "merchant-api-keys", "", "comma-separated SHA-256 hex hashes of API keys of the merchant role: they may also reply to comments and mark purchases verified (accepted as API keys too)")
	fs.StringVar(&c.merchKeysFile, "merchant-api-keys-file", "", "file of merchant API key hashes, one a line (# comments)")
	fs.StringVar(&c.jwksURL, "jwks-url", "", "JWKS URL: accept JWT bearer tokens signed by its keys")
	fs.StringVar(&c.issuer, "jwt-issuer", "", "required JWT iss (with -jwks-url)")
	fs.StringVar(&c.audience, "jwt-audience", "", "required JWT aud (with -jwks-url)")
	fs.StringVar(&c.rolesClaim, "jwt-roles-claim", auth.DefaultRolesClaim, "JWT claim listing roles; \""+auth.ModeratorRole+"\" may change anyone's comments and moderate, \""+auth.MerchantRole+"\" may reply and mark purchases verified")
}

// authenticator builds the mutations' credentials from the flags, and
// decides whether serving with open mutations is allowed: in dev mode
// (with a warning), or with -open-mutations; never silently in production.
func (c accessConfig) authenticator(ctx context.Context, log *slog.Logger) (*auth.Authenticator, error) {
	a := &auth.Authenticator{Keys: &auth.KeySet{}}
	for _, src := range []struct {
		flag, list, file string
		add              func(*auth.KeySet)
	}{
		{"api-keys", c.apiKeys, c.apiKeysFile, a.Keys.Add},
		{"moderator-api-keys", c.modKeys, c.modKeysFile, a.Keys.AddModerators},
		{"merchant-api-keys", c.merchKeys, c.merchKeysFile, a.Keys.AddMerchants},
	} {
		if src.list != "" {
			ks, err := auth.ParseKeyHashes(src.list)
			if err != nil {
				return nil, fmt.Errorf("-%s: %w", src.flag, err)
			}
			src.add(ks)
		}
		if src.file != "" {
			ks, err := auth.LoadKeyHashes(src.file)
			if err != nil {
				return nil, fmt.Errorf("-%s-file: %w", src.flag, err)
			}
			src.add(ks)
		}
	}
	if c.jwksURL == "" && (c.issuer != "" || c.audience != "") {
		return nil, errors.New("-jwt-issuer and -jwt-audience need -jwks-url")
	}
	if c.jwksURL != "" && (c.issuer == "" || c.audience == "") {
		// Without both checks any token the IdP signs, for any application, would do.
		return nil, errors.New("-jwks-url needs -jwt-issuer and -jwt-audience: without them a token the identity provider issued for any other application would be accepted")
	}
	if a.Keys.Len() > 0 || c.jwksURL != "" {
		if c.open {
			return nil, errors.New("-open-mutations contradicts -api-keys/-moderator-api-keys/-merchant-api-keys (and their -file)/-jwks-url: drop one")
		}
	} else {
		switch {
		case c.open:
			log.Warn("WARNING: mutations are open to anyone (-open-mutations): no credential is checked")
		case c.dev:
			log.Warn("WARNING: dev mode: mutations are open to anyone; configure -api-keys or -jwks-url, and run `serve` (production mode), before exposing this server")
		default:
			return nil, errors.New("serve: mutations would be open to anyone: configure -api-keys, -api-keys-file or -jwks-url, or pass -open-mutations to allow it explicitly (or -dev for dev mode)")
		}
		return nil, nil
	}
	if c.jwksURL != "" {
		j, err := auth.NewJWKS(ctx, auth.JWTConfig{JWKSURL: c.jwksURL, Issuer: c.issuer, Audience: c.audience, RolesClaim: c.rolesClaim})
		if err != nil {
			return nil, err
		}
		a.JWT = j
	}
	log.Info("mutations need a credential", "apiKeys", a.Keys.Len(), "jwks", c.jwksURL != "")
	return a, nil
}
