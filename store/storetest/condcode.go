package storetest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/acme/comments-gateway/store/table"
)

// tableCondCode: a condition with its own code (table.Cond.Code) that fails
// makes the Write fail with that code, not ECONFLICT, and writes nothing;
// the first condition that does not hold decides, so a failed condition
// without a code before it still means ECONFLICT, and so does an absent
// item. Single operations and transactions alike (DynamoDB answers them
// with different calls and errors).
func tableCondCode(t *testing.T, tbl table.Table) {
	version := func(v int64) table.Cond {
		return table.Cond{Kind: table.CondEquals, Attr: table.AttrVersion, Value: table.N(v)}
	}
	owner := func(id string) table.Cond {
		return table.Cond{Kind: table.CondEquals, Attr: table.AttrAuthorID, Value: table.S(id), Code: table.EFORBIDDEN}
	}
	cases := []struct {
		name  string
		conds []table.Cond
		code  string // "" when the write applies
	}{
		{"both hold", []table.Cond{version(3), owner("alice")}, ""},
		{"owner fails", []table.Cond{version(3), owner("bob")}, table.EFORBIDDEN},
		{"owner fails first", []table.Cond{owner("bob"), version(4)}, table.EFORBIDDEN},
		{"version fails first", []table.Cond{version(4), owner("bob")}, table.ECONFLICT},
		{"version fails", []table.Cond{version(4), owner("alice")}, table.ECONFLICT},
		{"empty owner", []table.Cond{version(3), owner("")}, table.EFORBIDDEN},
	}
	for i, c := range cases {
		for _, kind := range []table.OpKind{table.OpUpdate, table.OpPut, table.OpDelete} {
			for _, inTx := range []bool{false, true} {
				what := fmt.Sprintf("%s (kind %d, transaction %v)", c.name, kind, inTx)
				checkCondCode(t, tbl, what, fmt.Sprintf("%d-%d-%v", i, kind, inTx), kind, inTx, c.conds, c.code)
			}
		}
	}
	// An absent item fails the first condition: ECONFLICT, whatever follows.
	k := mkKey("O", "absent")
	for _, inTx := range []bool{false, true} {
		ops := []table.Op{{Kind: table.OpDelete, Key: k, Conds: []table.Cond{version(3), owner("alice")}}}
		if inTx {
			ops = append(ops, table.Op{Kind: table.OpUpdate, Key: mkKey("O", "absent-other"), Add: map[string]int64{"n": 1}})
		}
		if e := MustErrorCode(t, tbl.Write(t.Context(), ops), table.ECONFLICT); e.Op != 0 {
			t.Errorf("absent item (transaction %v): failed operation %d, want 0", inTx, e.Op)
		}
	}
}

// checkCondCode writes one operation of kind with conds on a new item
// (version 3, authorId alice) at sort key sk, alone or after an update of
// another item in one transaction, and checks that it fails with code
// (applies when code is "") and that a failed write changed nothing.
func checkCondCode(t *testing.T, tbl table.Table, what, sk string, kind table.OpKind, inTx bool, conds []table.Cond, code string) {
	t.Helper()
	it := table.Item{table.AttrPK: table.S("O"), table.AttrSK: table.S(sk), table.AttrVersion: table.N(3), table.AttrAuthorID: table.S("alice"), "n": table.N(1)}
	other := table.Item{table.AttrPK: table.S("O"), table.AttrSK: table.S(sk + "-other"), "n": table.N(1)}
	MustPut(t, tbl, it, other)
	op := table.Op{Kind: kind, Key: it.Key(), Conds: conds}
	switch kind {
	case table.OpUpdate:
		op.Add = map[string]int64{"n": 1}
	case table.OpPut:
		op.Item = table.Item{table.AttrPK: table.S("O"), table.AttrSK: table.S(sk), "n": table.N(9)}
	}
	ops := []table.Op{op}
	if inTx {
		ops = []table.Op{{Kind: table.OpUpdate, Key: other.Key(), Add: map[string]int64{"n": 1}}, op}
	}
	err := tbl.Write(t.Context(), ops)
	if code == "" {
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
		return
	}
	if got := table.ErrorCode(err); got != code {
		t.Errorf("%s: error %v, want code %s", what, err, code)
		return
	}
	if e := MustErrorCode(t, err, code); e.Op != len(ops)-1 {
		t.Errorf("%s: failed operation %d, want %d", what, e.Op, len(ops)-1)
	}
	for _, want := range []table.Item{it, other} {
		if got := MustGet(t, tbl, want.Key()); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s after the refused write = %v, want %v", what, keyString(want), got, want)
		}
	}
}
