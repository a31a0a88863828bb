package store

import (
	"encoding/base64"
)

// cursorV1 is the version byte of the cursor format. A cursor is
// base64url(version || GSISK): opaque to clients, valid across filters,
// because GSISK is a unique position in every index.
const cursorV1 = 1

// EncodeCursor returns the cursor of the comment with sort key sk.
func EncodeCursor(sk string) string {
	b := make([]byte, 0, len(sk)+1)
	b = append(b, cursorV1)
	b = append(b, sk...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor returns the sort key held by cursor c. Anything that is not a
// cursor this server issued is EINVALID.
func DecodeCursor(c string) (string, error) {
	if c == "" {
		return "", Errorf(EINVALID, "cursor must not be empty")
	}
	if len(c) > 200 {
		return "", Errorf(EINVALID, "malformed cursor")
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 2 {
		return "", Errorf(EINVALID, "malformed cursor")
	}
	if b[0] != cursorV1 {
		return "", Errorf(EINVALID, "unsupported cursor version")
	}
	sk := string(b[1:])
	if _, _, err := ParseSortKey(sk); err != nil {
		return "", Errorf(EINVALID, "malformed cursor")
	}
	return sk, nil
}
