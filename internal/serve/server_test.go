package serve

import (
	"net"
	"testing"
)

func TestBaseURLNamesAReachableHost(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		"0.0.0.0:8080":   "http://localhost:8080",
		"[::]:8080":      "http://localhost:8080",
		"[::1]:8080":     "http://[::1]:8080",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := baseURL(a); got != want {
			t.Errorf("baseURL(%s) = %s, want %s", addr, got, want)
		}
	}
}

// TestBadFlagNamesTheNearestFlag: a mistyped flag or command, for any
// command, is one error line naming the nearest flag or command and a hint
// at -h, with nothing else on stderr; -h still prints the whole usage.
