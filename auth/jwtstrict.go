package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// numericDateClaims are the registered claims that RFC 7519 §4.1 defines as
// a NumericDate: a JSON number. (jwx also accepts a string holding a
// number; this gateway does not.)
var numericDateClaims = []string{"exp", "nbf", "iat"}

// checkStrict refuses what the JWT library would accept but RFC 7515/7519
// do not allow a careful recipient to: a `crit` header (RFC 7515 §4.1.11:
// a recipient must reject a token whose `crit` lists an extension it does
// not understand, and this gateway understands none), and an exp, nbf or
// iat that is not a JSON number. It looks only at the token's two JSON
// parts, before the signature is verified; it decides nothing else.
func checkStrict(token string) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errors.New("a JWT has three dot-separated parts")
	}
	var header map[string]json.RawMessage
	if err := decodePart(parts[0], &header); err != nil {
		return fmt.Errorf("JWT header: %w", err)
	}
	if crit, ok := header["crit"]; ok {
		return fmt.Errorf("JWT header crit %s: this gateway understands no JWS extension, so it refuses every critical one", crit)
	}
	var claims map[string]json.RawMessage
	if err := decodePart(parts[1], &claims); err != nil {
		return fmt.Errorf("JWT claims: %w", err)
	}
	for _, name := range numericDateClaims {
		v, ok := claims[name]
		if !ok {
			continue
		}
		var n any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if err := d.Decode(&n); err != nil || !isNumber(n) {
			return fmt.Errorf("JWT claim %s must be a number of seconds (NumericDate), got %.40s", name, v)
		}
	}
	return nil
}

// decodePart decodes one base64url part of a compact JWS as a JSON object.
func decodePart(part string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(part, "="))
	if err != nil {
		return errors.New("not base64url")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return errors.New("not a JSON object")
	}
	return nil
}

func isNumber(v any) bool {
	_, ok := v.(json.Number)
	return ok
}
