package livehttp

import (
	"strings"
	"testing"
)

// TestPeekTypeAndID: the type and id of a message, whatever the order of
// its members and whatever its payload holds.
func TestPeekTypeAndID(t *testing.T) {
	big := strings.Repeat(`pad \" \\ `, 1000)
	for _, c := range []struct {
		msg, typ, id string
	}{
		{`{"id":"1","type":"subscribe","payload":{"query":"{ a }"}}`, "subscribe", "1"},
		{`{"payload":{"query":"` + big + `","variables":{"a":[1,2,{"b":null}],"c":true}},"type":"subscribe","id":"x"}`, "subscribe", "x"},
		{` { "payload" : [1, 2.5e3, "]"] , "id" : "a\"b" , "type" : "complete" } `, "complete", `a"b`},
		{`{"n":12,"t":true,"id":"7","z":null,"type":"subscribe"}`, "subscribe", "7"},
		{`{"type":"ping"}`, "ping", ""},
		{`{"id":5,"type":"subscribe"}`, "subscribe", ""},
		{`{"payload":"unterminated`, "", ""},
		{`[1]`, "", ""},
		{`nope`, "", ""},
		{``, "", ""},
	} {
		typ, id := peekTypeAndID([]byte(c.msg))
		if typ != c.typ || id != c.id {
			t.Errorf("%.80s: got %q %q, want %q %q", c.msg, typ, id, c.typ, c.id)
		}
	}
}
