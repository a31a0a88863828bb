package gqlhttp

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
)

// writeResponse writes an executed operation's response as json.Marshal
// would (graphql.Response's fields, order and omitempty rules), except that
// its data, which gqlgen's marshalers already wrote as compact JSON, is
// copied as is instead of being re-validated and re-compacted: that pass
// over the whole page was 7% of a page-1 request's CPU. (It also leaves
// '<', '>' and '&' in strings unescaped, as gqlgen writes them; the reply
// is application/json, never HTML.) The body leaves in one write call
// where the server allows it (holdWrites).
func writeResponse(ctx context.Context, w http.ResponseWriter, resp *graphql.Response) {
	if resp == nil || len(resp.Data) == 0 || resp.Label != "" || len(resp.Path) > 0 || resp.HasNext != nil {
		writeJSON(w, resp) // no data, or an incremental part: the general path
		return
	}
	var errs, ext []byte
	var err error
	if len(resp.Errors) > 0 {
		if errs, err = json.Marshal(resp.Errors); err != nil {
			writeJSON(w, resp)
			return
		}
	}
	if len(resp.Extensions) > 0 {
		if ext, err = json.Marshal(resp.Extensions); err != nil {
			writeJSON(w, resp)
			return
		}
	}
	b := make([]byte, 0, len(errs)+len(resp.Data)+len(ext)+len(`{"errors":,"data":,"extensions":}`))
	b = append(b, '{')
	if errs != nil {
		b = append(b, `"errors":`...)
		b = append(b, errs...)
		b = append(b, ',')
	}
	b = append(b, `"data":`...)
	b = append(b, resp.Data...)
	if ext != nil {
		b = append(b, `,"extensions":`...)
		b = append(b, ext...)
	}
	b = append(b, '}')
	release := holdWrites(ctx, len(b))
	writeBody(w, b)
	release()
}
