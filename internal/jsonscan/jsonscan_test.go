package jsonscan_test

import (
	"strings"
	"testing"

	"github.com/acme/comments-gateway/internal/jsonscan"
)

// TestSkipValue: the end of each value, whatever it holds.
func TestSkipValue(t *testing.T) {
	long := strings.Repeat(`a \" \\ `, 1000)
	for _, c := range []struct{ in, rest string }{
		{`"abc",x`, `,x`},
		{`"a\"b\\",x`, `,x`},
		{`"` + long + `"}`, `}`},
		{`{"a":[1,{"b":"]}"}],"c":null} ,`, ` ,`},
		{`12.5e3}`, `}`},
		{`true,`, `,`},
		{`"unterminated`, ``},
		{`[1,2`, ``},
	} {
		if got := c.in[jsonscan.SkipValue([]byte(c.in), 0):]; got != c.rest {
			t.Errorf("%.40s: rest %q, want %q", c.in, got, c.rest)
		}
	}
}
