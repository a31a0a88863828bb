package policy

import (
	"net/http"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/clientaddr"
)

// ClientID names the client of a request, for the rate limit and the live
// connection caps: "sub:" and a JWT's subject, "" for an API key (a
// trusted service, not limited), else "ip:" and its address as package
// clientaddr names it (resolvers.Config.ClientAddr: the peer's, or the one trusted
// proxies appended; IPv6 by prefix).
func ClientID(r *http.Request) string {
	if p, _ := auth.FromContext(r.Context()); p != nil {
		if p.Kind == auth.KindAPIKey {
			return ""
		}
		return "sub:" + p.Subject
	}
	return "ip:" + clientaddr.Of(r)
}
