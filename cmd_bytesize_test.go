package main

import "testing"

// TestByteSize: --max-data-bytes reads bytes with decimal and binary units.
func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"123": 123, "500MB": 500e6, "4GB": 4e9, "4GiB": 4 << 30, "4G": 4 << 30,
		"1.5kB": 1500, "2Ki": 2048, "2 MiB": 2 << 20, "7B": 7, "1TB": 1e12} {
		var b byteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("%q: %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "4 GBs", "4gb", "1e99", "9e18GB"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("%q accepted as %d", in, b)
		}
	}
}
