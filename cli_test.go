package main

import (
	"net"
	"testing"
)

// TestBaseURLNamesAReachableHost: the address serve prints for people and
// scripts names localhost for a wildcard listener and keeps a specific one.
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
