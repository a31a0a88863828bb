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
	// Moderator is set for a JWT carrying the moderator role. API keys are
	// trusted services and may change any comment.
	Moderator bool
}

// MayChangeAny reports whether p may update or delete any comment, not
// only its own: API keys and moderators may.
func (p *Principal) MayChangeAny() bool {
	return p != nil && (p.Kind == KindAPIKey || p.Moderator)
}

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

// KeySet holds the SHA-256 hashes of the accepted API keys.
type KeySet struct {
	hashes [][sha256.Size]byte
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
			var h [sha256.Size]byte
			copy(h[:], b)
			ks.hashes = append(ks.hashes, h)
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
	return len(ks.hashes)
}

// Add adds the hashes of other.
func (ks *KeySet) Add(other *KeySet) {
	if other != nil {
		ks.hashes = append(ks.hashes, other.hashes...)
	}
}

// Match reports whether key hashes to one of the set's hashes. It compares
// the hashes in constant time and always compares all of them, so the time
// taken says nothing about which key, or how much of one, matched.
func (ks *KeySet) Match(key string) bool {
	if ks == nil || key == "" {
		return false
	}
	h := sha256.Sum256([]byte(key))
	ok := 0
	for i := range ks.hashes {
		ok |= subtle.ConstantTimeCompare(h[:], ks.hashes[i][:])
	}
	return ok == 1
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
	Keys *KeySet       // API keys; nil or empty for none
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
		if a.Keys.Match(k) {
			return &Principal{Kind: KindAPIKey}, nil
		}
		return nil, ErrInvalidCredential
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
	if a.Keys.Match(cred) {
		return &Principal{Kind: KindAPIKey}, nil
	}
	return nil, ErrInvalidCredential
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
