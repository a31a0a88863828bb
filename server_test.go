package main

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"
	"time"
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
		fs := newFlags("serve", &bytes.Buffer{})
		addr := fs.String("addr", "127.0.0.1:8080", "")
		demo := fs.Bool("demo", true, "")
		if err := parse(fs, tc.args, func(k string) string { return env[k] }); err != nil {
			t.Fatal(err)
		}
		if *addr != tc.addr || *demo != tc.demo {
			t.Errorf("%v: addr %s demo %v, want %s %v", tc.args, *addr, *demo, tc.addr, tc.demo)
		}
	}
	fs := newFlags("serve", &bytes.Buffer{})
	fs.Bool("demo", true, "")
	if err := parse(fs, nil, func(string) string { return "maybe" }); err == nil || !strings.Contains(err.Error(), "COMMENTS_DEMO") {
		t.Errorf("a bad environment value: err = %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	none := func(string) string { return "" }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, "unknown command"},
		{[]string{"serve", "-store", "nowhere"}, "want bolt:PATH or dynamodb:TABLE"},
		{[]string{"serve", "-store", "mysql:x"}, "unknown store"},
		{[]string{"create-table", "-store", "bolt:x.db"}, "dynamodb:TABLE"},
		{[]string{"import", "-store", "bolt:" + t.TempDir() + "/x.db"}, "want one FILE"},
		{[]string{"seed", "-products", "0"}, "-products"},
		{[]string{"serve", "-micro-cache-bytes", "lots"}, "want a size such as 64MB"},
		{[]string{"serve", "-micro-cache-bytes", "0"}, "-micro-cache-bytes"},
		{[]string{"serve", "-micro-cache-ttl", "-1s"}, "-micro-cache-ttl"},
	} {
		var out, errb bytes.Buffer
		err := run(ctx, tc.args, none, strings.NewReader(""), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want it to mention %q", tc.args, err, tc.want)
		}
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"help"}, none, nil, &out, &out); err != nil || !strings.Contains(out.String(), "rebuild-stats") {
		t.Errorf("help: %v, %q", err, out.String())
	}
	if err := run(ctx, []string{"serve", "-h"}, none, nil, &out, &out); err != flag.ErrHelp {
		t.Errorf("serve -h: %v", err)
	}
}
