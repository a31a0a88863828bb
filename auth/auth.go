package auth

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// Kind says how a principal proved who it is.
type Kind string

// The kinds of credential.
const (
	KindAPIKey Kind = "api-key"
	KindJWT    Kind = "jwt"
)

// Principal is the authenticated caller of one request.
type Principal struct {
	Kind Kind
	// Subject is the JWT's `sub` (empty for an API key).
	Subject string
	// Client names an API key: the first 16 hex digits of its SHA-256, as
	// in -api-keys (empty for a JWT).
	Client string
	// Roles are the roles the credential grants, found once, here in auth:
	// a JWT's roles claim, or the role lists an API key's hash is in.
	Roles
}

// Roles are the roles a credential may grant beyond writing comments.
// Every API key is a trusted service and may change any comment; only a
// moderator may moderate, and only a merchant may mark a purchase verified.
type Roles struct {
	// Moderator is set for a JWT carrying ModeratorRole and for a moderator
	// API key (KeySet.AddModerators).
	Moderator bool
	// Merchant is set for a JWT carrying MerchantRole and for a merchant
	// API key (KeySet.AddMerchants): the shop, which replies to comments
	// and creates comments of verified purchases.
	Merchant bool
}

// or is the union of r and o.
func (r Roles) or(o Roles) Roles {
	return Roles{Moderator: r.Moderator || o.Moderator, Merchant: r.Merchant || o.Merchant}
}

// MayChangeAny reports whether p may update or delete any comment, not
// only its own: API keys and moderators may.
func (p *Principal) MayChangeAny() bool {
	return p != nil && (p.Kind == KindAPIKey || p.Moderator)
}

// MayReply reports whether p may write and delete the public reply to a
// comment: a merchant or a moderator.
func (p *Principal) MayReply() bool {
	return p != nil && (p.Merchant || p.Moderator)
}

// MayVerifyPurchase reports whether p may mark a comment as a verified
// purchase: a merchant only.
func (p *Principal) MayVerifyPurchase() bool {
	return p != nil && p.Merchant
}

// MayModerate reports whether p may moderate (approve, reject, hide,
// restore, read the moderation queue): a moderator's JWT or a moderator
// API key, not a plain API key.
func (p *Principal) MayModerate() bool {
	return p != nil && p.Moderator
}

// Identity is who p is, for what counts once per caller (a helpful vote):
// "jwt:<subject>" for a JWT, "api-key:<client>" for an API key (each key
// is one caller), "" for no principal. A subject longer than
// maxIdentitySubject bytes is "jwt#<hex SHA-256 of the subject>", so an
// identity is at most 69 bytes plus that bound.
func (p *Principal) Identity() string {
	switch {
	case p == nil:
		return ""
	case p.Kind == KindJWT && len(p.Subject) > maxIdentitySubject:
		return "jwt#" + HashKey(p.Subject)
	case p.Kind == KindJWT:
		return "jwt:" + p.Subject
	}
	return string(p.Kind) + ":" + p.Client
}

// maxIdentitySubject is the longest subject an Identity spells out.
const maxIdentitySubject = 128

// clientLen is the hex digits of a key's hash that name it (Client).
const clientLen = 16

// ErrInvalidCredential is returned for a credential that was presented
// but is not valid (an unknown API key, a bad or expired token).
var ErrInvalidCredential = errors.New("invalid credential")

// MaxCredentialBytes bounds a credential header (Authorization or
// X-API-Key): an API key is a few dozen bytes and a JWT a few hundred to a
// few thousand; one larger is refused before it is hashed or parsed (a
// JWT of 1 MB took 14 ms to parse), with ErrCredentialTooLarge.
const MaxCredentialBytes = 8 << 10

// ErrCredentialTooLarge is returned for a credential header larger than
// MaxCredentialBytes; it is an ErrInvalidCredential.
var ErrCredentialTooLarge = fmt.Errorf("%w: a credential is at most %d bytes", ErrInvalidCredential, MaxCredentialBytes)

// KeySet holds the SHA-256 hashes of the accepted API keys, each with the
// roles it grants.
type KeySet struct {
	keys []apiKey
}

// apiKey is one accepted key's hash and the roles it grants.
type apiKey struct {
	hash  [sha256.Size]byte
	roles Roles
}

// ParseKeyHashes parses SHA-256 hex hashes separated by commas, blanks or
// newlines; lines starting with # are comments.
func ParseKeyHashes(s string) (*KeySet, error) {
	ks := &KeySet{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for f := range strings.FieldsFuncSeq(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			b, err := hex.DecodeString(f)
			if err != nil || len(b) != sha256.Size {
				return nil, fmt.Errorf("line %d: %q is not a SHA-256 hash (64 hex digits; make one with: printf %%s \"$KEY\" | sha256sum)", n, short(f))
			}
			var k apiKey
			copy(k.hash[:], b)
			ks.keys = append(ks.keys, k)
		}
	}
	return ks, sc.Err()
}

// LoadKeyHashes reads ParseKeyHashes' format from a file.
func LoadKeyHashes(path string) (*KeySet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, err
	}
	ks, err := ParseKeyHashes(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ks, nil
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// Len is the number of keys.
func (ks *KeySet) Len() int {
	if ks == nil {
		return 0
	}
	return len(ks.keys)
}

// Add adds the keys of other, as they are marked there.
func (ks *KeySet) Add(other *KeySet) {
	if other != nil {
		ks.keys = append(ks.keys, other.keys...)
	}
}

// AddModerators adds the keys of other as moderator keys. A hash that is
// in the set both plain and as a moderator key moderates.
func (ks *KeySet) AddModerators(other *KeySet) { ks.addWith(other, Roles{Moderator: true}) }

// AddMerchants adds the keys of other as merchant keys. A hash listed under
// several roles has all of them.
func (ks *KeySet) AddMerchants(other *KeySet) { ks.addWith(other, Roles{Merchant: true}) }

// addWith adds the keys of other granting roles too.
func (ks *KeySet) addWith(other *KeySet, roles Roles) {
	if other == nil {
		return
	}
	for _, k := range other.keys {
		k.roles = k.roles.or(roles)
		ks.keys = append(ks.keys, k)
	}
}

// Lookup reports whether key hashes to one of the set's hashes (ok) and
// the roles it grants (the union over every listing of the hash). It
// compares the hashes in constant time and always compares all of them, so
// the time taken says nothing about which key, or how much of one,
// matched, nor which roles it has.
func (ks *KeySet) Lookup(key string) (ok bool, roles Roles) {
	if ks == nil || key == "" {
		return false, Roles{}
	}
	h := sha256.Sum256([]byte(key))
	found, mod, merch := 0, 0, 0
	for i := range ks.keys {
		eq := subtle.ConstantTimeCompare(h[:], ks.keys[i].hash[:])
		found |= eq
		mod |= eq & boolInt(ks.keys[i].roles.Moderator)
		merch |= eq & boolInt(ks.keys[i].roles.Merchant)
	}
	return found == 1, Roles{Moderator: mod == 1, Merchant: merch == 1}
}

// Match reports whether key is in the set (see Lookup).
func (ks *KeySet) Match(key string) bool {
	ok, _ := ks.Lookup(key)
	return ok
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// HashKey returns the hex SHA-256 of key, the form -api-keys takes.
func HashKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

// TokenVerifier verifies a bearer JWT (see JWKS).
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (*Principal, error)
}

// Authenticator finds the credential of a request.
type Authenticator struct {
	Keys *KeySet       // API keys, moderator keys marked; nil or empty for none
	JWT  TokenVerifier // nil when JWTs are not accepted
}

// Enabled reports whether any credential is configured.
func (a *Authenticator) Enabled() bool {
	return a != nil && (a.Keys.Len() > 0 || a.JWT != nil)
}

// Authenticate returns the request's principal: nil and no error when it
// carries no credential, ErrInvalidCredential (possibly wrapped) when it
// carries one that is not valid. Credentials: `X-API-Key: KEY`, or
// `Authorization: Bearer KEY|JWT` (a bearer value with two dots is a JWT
// when JWTs are accepted, otherwise an API key). A header larger than
// MaxCredentialBytes is ErrCredentialTooLarge, found before any work.
func (a *Authenticator) Authenticate(r *http.Request) (*Principal, error) {
	if a == nil {
		return nil, nil
	}
	k, h := r.Header.Get("X-API-Key"), r.Header.Get("Authorization")
	if len(k) > MaxCredentialBytes || len(h) > MaxCredentialBytes {
		return nil, ErrCredentialTooLarge
	}
	if k != "" {
		return a.apiKey(k)
	}
	if h == "" {
		return nil, nil
	}
	scheme, cred, _ := strings.Cut(h, " ")
	cred = strings.TrimSpace(cred)
	if !strings.EqualFold(scheme, "Bearer") || cred == "" {
		return nil, fmt.Errorf("%w: want Authorization: Bearer <key or token>", ErrInvalidCredential)
	}
	if a.JWT != nil && strings.Count(cred, ".") == 2 {
		p, err := a.JWT.Verify(r.Context(), cred)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidCredential, err)
		}
		return p, nil
	}
	return a.apiKey(cred)
}

// apiKey is the principal of an API key, with the roles of its hash's
// lists; ErrInvalidCredential when it is not a key of a.Keys.
func (a *Authenticator) apiKey(key string) (*Principal, error) {
	ok, roles := a.Keys.Lookup(key)
	if !ok {
		return nil, ErrInvalidCredential
	}
	return &Principal{Kind: KindAPIKey, Roles: roles, Client: HashKey(key)[:clientLen]}, nil
}

type ctxKey struct{}

type result struct {
	p   *Principal
	err error
}

// Middleware authenticates every request and stores the outcome in its
// context (see FromContext). It refuses nothing: reads need no credential,
// and the GraphQL layer decides for mutations.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.Authenticate(r)
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p, err)))
	})
}

// WithPrincipal returns ctx carrying an authentication outcome.
func WithPrincipal(ctx context.Context, p *Principal, err error) context.Context {
	return context.WithValue(ctx, ctxKey{}, result{p, err})
}

// FromContext returns the outcome Middleware stored: the principal (nil
// for none) and the error of an invalid credential.
func FromContext(ctx context.Context) (*Principal, error) {
	r, _ := ctx.Value(ctxKey{}).(result)
	return r.p, r.err
}
