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
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = Float(x)
	return nil
}
