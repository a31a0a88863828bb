package serve

import "testing"

// TestAdminAddrMustBePrivate: the unauthenticated admin listener is refused
// on every interface or a public address, allowed on loopback and private
// ones.
func TestAdminAddrMustBePrivate(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:9091": true, "[::1]:9091": true, "localhost:9091": true, "10.0.0.5:9091": true,
		":9091": false, "0.0.0.0:9091": false, "203.0.113.7:9091": false, "example.com:9091": false, "9091": false,
	} {
		if err := checkAdminAddr(addr); (err == nil) != ok {
			t.Errorf("checkAdminAddr(%q) = %v, want allowed %v", addr, err, ok)
		}
	}
}
