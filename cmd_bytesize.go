package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// byteSize is a flag value holding a number of bytes, given as a number
// with an optional unit: kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB,
// TiB (powers of 1024; Ki, K, Mi, M, … too).
type byteSize int64

var byteSizeRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?) *([kKMGT](?:iB|i|B)?|B)?$`)

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

// Set implements flag.Value.
func (b *byteSize) Set(s string) error {
	m := byteSizeRE.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("%q: want a number of bytes with an optional unit, e.g. 500MB, 4GB or 4GiB", s)
	}
	x, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return fmt.Errorf("%q: %v", s, err)
	}
	if unit := m[2]; unit != "" && unit != "B" {
		base := 1024.0
		if len(unit) == 2 && unit[1] == 'B' { // kB, MB, GB, TB
			base = 1000
		}
		x *= math.Pow(base, float64(strings.IndexByte("KMGT", unit[0]&^0x20)+1))
	}
	if x >= math.MaxInt64 {
		return fmt.Errorf("%q: too large", s)
	}
	*b = byteSize(x)
	return nil
}
