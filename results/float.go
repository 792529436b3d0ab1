package results

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Float is a float64 that survives JSON. Finite values are JSON numbers
// with the shortest round-trip representation; a value that does not apply
// or is not finite (NaN, ±Inf: the ε of a non-private reference, a
// metric that could not be computed) is JSON null, so that every field holds
// one type (a number or null), as pandas and other JSON readers expect.
// Null reads back as NaN; Record.UnmarshalJSON turns the ε fields' null
// back into +Inf ("no guarantee"). The strings "inf", "-inf" and "nan" that
// schema-2 stores and the golden vectors use are still read.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "nan":
			*f = Float(math.NaN())
		case "inf", "+inf":
			*f = Float(math.Inf(1))
		case "-inf":
			*f = Float(math.Inf(-1))
		default:
			return fmt.Errorf("results: %q is not a number", s)
		}
		return nil
	}
	// b is a JSON value the decoder has checked, so a number has JSON's
	// syntax, a subset of ParseFloat's; encoding/json parses numbers with
	// ParseFloat too, and refuses one out of float64's range as this does.
	// (Reading a store is mostly decoding numbers: going through
	// json.Unmarshal here checked each one's syntax once more.)
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil || !isNumberText(b) {
		return fmt.Errorf("results: %s is not a number in float64's range", b)
	}
	*f = Float(x)
	return nil
}

// isNumberText reports whether b starts as a JSON number does and holds
// only the bytes of one, which keeps out what ParseFloat alone would also
// take (Inf, NaN, +1, hexadecimal, underscores) should UnmarshalJSON be
// called on bytes no decoder has checked.
func isNumberText(b []byte) bool {
	if len(b) == 0 || b[0] != '-' && (b[0] < '0' || b[0] > '9') {
		return false
	}
	for _, c := range b {
		if (c < '0' || c > '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			return false
		}
	}
	return true
}
