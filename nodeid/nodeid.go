package nodeid

import (
	"encoding/base64"
	"strings"

	"github.com/acme/comments-gateway/store"
)

// Node is the Go type of the GraphQL Node interface: a *model.Product or a
// *store.Comment. gqlgen.yml binds Node to it, so that store.Comment needs
// no GraphQL marker method.
type Node interface{}

// The GraphQL types that implement Node.
const (
	Product = "Product"
	Comment = "Comment"
)

// maxLen bounds a global id before it is decoded: the longest one, a type
// name, ":" and a 64-character id, is 98 characters.
const maxLen = 128

var encoding = base64.RawURLEncoding.Strict()

// Ref is what a global id names: a type and that type's own id.
type Ref struct {
	Type string // Product or Comment
	ID   string // the catalog product id or the comment id
}

// Of returns the global id of the object of type typ with id id.
func Of(typ, id string) string {
	return encoding.EncodeToString([]byte(typ + ":" + id))
}

// Parse reads a global id. ok is false when gid is not one Of made for a
// known type and a valid id (store.ValidateID): not base64, another
// spelling of the same bytes (padding, line breaks), an unknown type, a bad
// id.
func Parse(gid string) (ref Ref, ok bool) {
	if len(gid) == 0 || len(gid) > maxLen {
		return Ref{}, false
	}
	raw, err := encoding.DecodeString(gid)
	if err != nil {
		return Ref{}, false
	}
	typ, id, found := strings.Cut(string(raw), ":")
	if !found || (typ != Product && typ != Comment) || store.ValidateID("id", id) != nil {
		return Ref{}, false
	}
	// The decoder skips '\r' and '\n': only Of's own spelling names the
	// object, so that a client's store keeps one record per object.
	if Of(typ, id) != gid {
		return Ref{}, false
	}
	return Ref{Type: typ, ID: id}, true
}
