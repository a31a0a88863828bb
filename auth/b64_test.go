package auth_test

import "encoding/base64"

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
