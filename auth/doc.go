// Package auth owns who may change comments: API keys (configured as SHA-256
// hashes and compared in constant time), optional JWT bearer tokens verified
// against a JWKS URL, and the Principal a request carries in its context.
// Reads never need a credential; the GraphQL layer asks for one on mutations.
//
// The model: Authenticator.Middleware authenticates every request and
// stores the outcome in its context — a Principal (an API key, or a JWT
// with its subject; either may hold roles, found here once: a JWT's roles
// claim, or the role lists a key's hash is in), nil for no
// credential, or ErrInvalidCredential for one that is not valid — and
// refuses nothing. The resolvers read it with FromContext on mutations and
// decide: no valid credential is UNAUTHENTICATED; API keys (trusted
// services) and moderators may change any comment (MayChangeAny); any other
// JWT user only the comments whose owner (store.Comment.AuthorID) is its
// subject. Only moderators moderate (MayModerate): a plain API key does not.
// Merchants and moderators reply to comments (MayReply); only merchants
// mark a purchase verified (MayVerifyPurchase).
package auth
