package storetest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/acme/comments-gateway/store"
)

// tableCondCode: a condition with its own code (store.Cond.Code) that fails
// makes the Write fail with that code, not ECONFLICT, and writes nothing;
// the first condition that does not hold decides, so a failed condition
// without a code before it still means ECONFLICT, and so does an absent
// item. Single operations and transactions alike (DynamoDB answers them
// with different calls and errors).
func tableCondCode(t *testing.T, tbl store.Table) {
	version := func(v int64) store.Cond {
		return store.Cond{Kind: store.CondEquals, Attr: store.AttrVersion, Value: store.N(v)}
	}
	owner := func(id string) store.Cond {
		return store.Cond{Kind: store.CondEquals, Attr: store.AttrAuthorID, Value: store.S(id), Code: store.EFORBIDDEN}
	}
	cases := []struct {
		name  string
		conds []store.Cond
		code  string // "" when the write applies
	}{
		{"both hold", []store.Cond{version(3), owner("alice")}, ""},
		{"owner fails", []store.Cond{version(3), owner("bob")}, store.EFORBIDDEN},
		{"owner fails first", []store.Cond{owner("bob"), version(4)}, store.EFORBIDDEN},
		{"version fails first", []store.Cond{version(4), owner("bob")}, store.ECONFLICT},
		{"version fails", []store.Cond{version(4), owner("alice")}, store.ECONFLICT},
		{"empty owner", []store.Cond{version(3), owner("")}, store.EFORBIDDEN},
	}
	for i, c := range cases {
		for _, kind := range []store.OpKind{store.OpUpdate, store.OpPut, store.OpDelete} {
			for _, inTx := range []bool{false, true} {
				what := fmt.Sprintf("%s (kind %d, transaction %v)", c.name, kind, inTx)
				checkCondCode(t, tbl, what, fmt.Sprintf("%d-%d-%v", i, kind, inTx), kind, inTx, c.conds, c.code)
			}
		}
	}
	// An absent item fails the first condition: ECONFLICT, whatever follows.
	k := mkKey("O", "absent")
	for _, inTx := range []bool{false, true} {
		ops := []store.Op{{Kind: store.OpDelete, Key: k, Conds: []store.Cond{version(3), owner("alice")}}}
		if inTx {
			ops = append(ops, store.Op{Kind: store.OpUpdate, Key: mkKey("O", "absent-other"), Add: map[string]int64{"n": 1}})
		}
		if e := MustErrorCode(t, tbl.Write(t.Context(), ops), store.ECONFLICT); e.Op != 0 {
			t.Errorf("absent item (transaction %v): failed operation %d, want 0", inTx, e.Op)
		}
	}
}

// checkCondCode writes one operation of kind with conds on a new item
// (version 3, authorId alice) at sort key sk, alone or after an update of
// another item in one transaction, and checks that it fails with code
// (applies when code is "") and that a failed write changed nothing.
func checkCondCode(t *testing.T, tbl store.Table, what, sk string, kind store.OpKind, inTx bool, conds []store.Cond, code string) {
	t.Helper()
	it := store.Item{store.AttrPK: store.S("O"), store.AttrSK: store.S(sk), store.AttrVersion: store.N(3), store.AttrAuthorID: store.S("alice"), "n": store.N(1)}
	other := store.Item{store.AttrPK: store.S("O"), store.AttrSK: store.S(sk + "-other"), "n": store.N(1)}
	MustPut(t, tbl, it, other)
	op := store.Op{Kind: kind, Key: it.Key(), Conds: conds}
	switch kind {
	case store.OpUpdate:
		op.Add = map[string]int64{"n": 1}
	case store.OpPut:
		op.Item = store.Item{store.AttrPK: store.S("O"), store.AttrSK: store.S(sk), "n": store.N(9)}
	}
	ops := []store.Op{op}
	if inTx {
		ops = []store.Op{{Kind: store.OpUpdate, Key: other.Key(), Add: map[string]int64{"n": 1}}, op}
	}
	err := tbl.Write(t.Context(), ops)
	if code == "" {
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
		return
	}
	if got := store.ErrorCode(err); got != code {
		t.Errorf("%s: error %v, want code %s", what, err, code)
		return
	}
	if e := MustErrorCode(t, err, code); e.Op != len(ops)-1 {
		t.Errorf("%s: failed operation %d, want %d", what, e.Op, len(ops)-1)
	}
	for _, want := range []store.Item{it, other} {
		if got := MustGet(t, tbl, want.Key()); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s after the refused write = %v, want %v", what, keyString(want), got, want)
		}
	}
}
