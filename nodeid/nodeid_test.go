package nodeid_test

import (
	"encoding/base64"
	"testing"

	"github.com/acme/comments-gateway/nodeid"
)

// FuzzParse: Parse accepts exactly what Of makes for a known type and a
// valid id, and gives that type and id back.
func FuzzParse(f *testing.F) {
	f.Add("UHJvZHVjdDpiaWc")
	f.Add(nodeid.Of(nodeid.Comment, "01J9Z3ABCDEF"))
	f.Add(nodeid.Of(nodeid.Comment, "") + "=")
	f.Add("not base64!")
	f.Fuzz(func(t *testing.T, gid string) {
		ref, ok := nodeid.Parse(gid)
		if !ok {
			return
		}
		if ref.Type != nodeid.Product && ref.Type != nodeid.Comment {
			t.Fatalf("Parse(%q) type %q", gid, ref.Type)
		}
		if again := nodeid.Of(ref.Type, ref.ID); again != gid {
			t.Fatalf("Parse(%q) = %+v, which Of spells %q: two spellings of one object", gid, ref, again)
		}
	})
}

// TestOfParse: every type and a range of valid ids round-trip, the format is
// the documented one, and ids that are equal across types stay apart.
func TestOfParse(t *testing.T) {
	long := "a234567890123456789012345678901234567890123456789012345678901234"
	for _, typ := range []string{nodeid.Product, nodeid.Comment} {
		for _, id := range []string{"p1", "espresso-machine", "01J9Z3ABCDEFGHJKMNPQRSTVWX", "_", long} {
			gid := nodeid.Of(typ, id)
			if want := base64.RawURLEncoding.EncodeToString([]byte(typ + ":" + id)); gid != want {
				t.Errorf("Of(%s, %s) = %q, want %q", typ, id, gid, want)
			}
			if ref, ok := nodeid.Parse(gid); !ok || ref != (nodeid.Ref{Type: typ, ID: id}) {
				t.Errorf("Parse(Of(%s, %s)) = %+v, %v", typ, id, ref, ok)
			}
		}
	}
	if nodeid.Of(nodeid.Product, "p1") == nodeid.Of(nodeid.Comment, "p1") {
		t.Error("a product and a comment with the same id share a global id")
	}
	for _, bad := range []string{"", "Shop:x", nodeid.Of("Shop", "x"), nodeid.Of(nodeid.Comment, long+"5"), nodeid.Of(nodeid.Comment, "a b")} {
		if ref, ok := nodeid.Parse(bad); ok {
			t.Errorf("Parse(%q) = %+v, want not ok", bad, ref)
		}
	}
}
