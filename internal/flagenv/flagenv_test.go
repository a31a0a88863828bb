package flagenv

import (
	"bytes"
	"strings"
	"testing"
)

// TestParsePrecedence checks defaults < environment < flags.
func TestParsePrecedence(t *testing.T) {
	env := map[string]string{"COMMENTS_ADDR": "127.0.0.1:9999", "COMMENTS_DEMO": "false"}
	for _, tc := range []struct {
		args []string
		addr string
		demo bool
	}{
		{nil, "127.0.0.1:9999", false},
		{[]string{"-addr", "127.0.0.1:1"}, "127.0.0.1:1", false},
		{[]string{"-demo=true"}, "127.0.0.1:9999", true},
	} {
		fs := New("serve", "", &bytes.Buffer{})
		addr := fs.String("addr", "127.0.0.1:8080", "")
		demo := fs.Bool("demo", true, "")
		if err := Parse(fs, tc.args, func(k string) string { return env[k] }); err != nil {
			t.Fatal(err)
		}
		if *addr != tc.addr || *demo != tc.demo {
			t.Errorf("%v: addr %s demo %v, want %s %v", tc.args, *addr, *demo, tc.addr, tc.demo)
		}
	}
	fs := New("serve", "", &bytes.Buffer{})
	fs.Bool("demo", true, "")
	if err := Parse(fs, nil, func(string) string { return "maybe" }); err == nil || !strings.Contains(err.Error(), "COMMENTS_DEMO") {
		t.Errorf("a bad environment value: err = %v", err)
	}
}
