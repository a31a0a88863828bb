package bolt

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// TestOldProjectionFileShowsTheNewFields: a file whose index definitions
// were recorded before the indexes projected helpful counts, verified
// purchases and replies is rebuilt on Open (the definitions changed), and
// its pages, read from every public index, show those fields of the
// comments written before.
func TestOldProjectionFileShowsTheNewFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	tbl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	c := &store.Comment{ID: "c1", ProductID: "rp", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b", CreatedAt: at,
		HelpfulCount: 4, UnhelpfulCount: 1, VerifiedPurchase: true, Reply: &store.Reply{Body: "Thanks", CreatedAt: at, UpdatedAt: at.Add(time.Hour)}}
	storetest.MustLoad(t, tbl, []*store.Comment{c})
	if err := tbl.Close(); err != nil {
		t.Fatal(err)
	}

	newAttrs := []string{table.AttrHelpful, table.AttrUnhelpful, table.AttrVerified, table.AttrReply}
	var old []table.IndexDef
	for _, d := range table.AllIndexes {
		d.Projection = slices.DeleteFunc(slices.Clone(d.Projection), func(a string) bool { return slices.Contains(newAttrs, a) })
		old = append(old, d)
	}
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bucketMeta).Put(metaIndexes, []byte(signature(old))) }); err != nil {
		t.Fatal(err)
	}
	db.Close()

	var log bytes.Buffer
	tbl = MustOpenPath(t, path, WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if !strings.Contains(log.String(), "rebuilding the indexes") {
		t.Errorf("Open of the old file logged %q", log.String())
	}
	s := store.New(tbl)
	for _, f := range []store.Filter{{}, {Language: "en"}, {Ratings: []int{5}}, {Language: "en", Ratings: []int{5}}} {
		conn, err := storetest.List(context.Background(), s, "rp", f, store.PageArgs{}, false)
		if err != nil || len(conn.Edges) != 1 {
			t.Fatalf("page %+v: %+v %v", f, conn, err)
		}
		got := conn.Edges[0].Comment
		if got.HelpfulCount != 4 || got.UnhelpfulCount != 1 || !got.VerifiedPurchase || got.Reply == nil || got.Reply.Body != "Thanks" ||
			!got.Reply.UpdatedAt.Equal(at.Add(time.Hour)) {
			t.Errorf("page %+v shows %+v (reply %+v)", f, got, got.Reply)
		}
	}
}

// TestKeyCodesAreTheKeyNames: decodeInto looks the table key attributes up
// in a projection by codePK and codeSK, which must be their dictNames
// codes; a projection keeps them exactly when it names them.
func TestKeyCodesAreTheKeyNames(t *testing.T) {
	if dictNames[codePK] != table.AttrPK || dictNames[codeSK] != table.AttrSK {
		t.Fatalf("dictNames[%d], dictNames[%d] = %q, %q; want %q, %q",
			codePK, codeSK, dictNames[codePK], dictNames[codeSK], table.AttrPK, table.AttrSK)
	}
	for _, names := range [][]string{{table.AttrPK}, {table.AttrSK}, {table.AttrPK, table.AttrSK, table.AttrBody}, {table.AttrBody}} {
		p := newProjection(names)
		for _, k := range []struct {
			name string
			code int
		}{{table.AttrPK, codePK}, {table.AttrSK, codeSK}} {
			if got, want := p.has(k.name, k.code), slices.Contains(names, k.name); got != want {
				t.Errorf("projection %v keeps %s: %v, want %v", names, k.name, got, want)
			}
		}
	}
}
