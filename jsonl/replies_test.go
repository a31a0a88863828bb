package jsonl

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
)

// TestMerchantFieldsRoundTrip: export writes verifiedPurchase only when
// true and reply only when there is one (other lines are unchanged), and
// import reads them back; a bad reply or verifiedPurchase is a line error.
func TestMerchantFieldsRoundTrip(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	cs := []*store.Comment{
		{ID: "01HXAMPLE0000000000000001", ProductID: "p", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b", CreatedAt: at},
		{ID: "01HXAMPLE0000000000000002", ProductID: "p", Language: "en", Rating: 4, Author: "a", Title: "t", Body: "b", CreatedAt: at,
			VerifiedPurchase: true, Reply: &store.Reply{Body: "Thanks!\nThe shop", CreatedAt: at.Add(time.Hour), UpdatedAt: at.Add(90 * time.Minute)}},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, c := range cs {
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if strings.Contains(lines[0], "verified") || strings.Contains(lines[0], "reply") {
		t.Errorf("a line without the merchant's fields has them: %s", lines[0])
	}
	if !strings.HasSuffix(lines[1], `"verifiedPurchase":true,"reply":{"body":"Thanks!\nThe shop","createdAt":"2025-03-04T06:06:07Z","updatedAt":"2025-03-04T06:36:07Z"}}`) {
		t.Errorf("a verified, replied comment's line: %s", lines[1])
	}
	batches, _, err := collect(t, &buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := flatten(batches); !reflect.DeepEqual(got, cs) {
		t.Errorf("read back %+v, want %+v", got, cs)
	}
	for _, tc := range []struct {
		set  map[string]any
		want string
	}{
		{map[string]any{"verifiedPurchase": "yes"}, "verifiedPurchase"},
		{map[string]any{"reply": map[string]any{"body": " ", "createdAt": "2025-01-01T00:00:00Z", "updatedAt": "2025-01-01T00:00:00Z"}}, "reply.body"},
		{map[string]any{"reply": map[string]any{"body": "hi", "createdAt": "yesterday", "updatedAt": "2025-01-01T00:00:00Z"}}, "reply.createdAt"},
		{map[string]any{"reply": map[string]any{"body": "hi", "createdAt": "2025-01-01T00:00:00Z"}}, "reply.updatedAt"},
		{map[string]any{"reply": map[string]any{"body": "hi", "createdAt": "2025-01-01T00:00:00Z", "updatedAt": "2025-01-01T00:00:00Z", "by": "x"}}, "by"},
	} {
		if _, _, err := collect(t, strings.NewReader(line(t, tc.set)+"\n"), Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error about %s", tc.set, err, tc.want)
		}
	}
	b, _, err := collect(t, strings.NewReader(line(t, map[string]any{"verifiedPurchase": nil, "reply": nil})+"\n"), Options{})
	if c := flatten(b); err != nil || c[0].VerifiedPurchase || c[0].Reply != nil {
		t.Errorf("null verifiedPurchase and reply: %v", err)
	}
}
