package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadSplitIndices: any bytes as a split file are read or refused with
// an error, and a read file is checked against small datasets without a
// panic.
func FuzzReadSplitIndices(f *testing.F) {
	f.Add([]byte("# comment\ntrain 2\ntrain 0\n\ntest 1\n"))
	f.Add([]byte("\xef\xbb\xbftest 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "split.txt")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := ReadSplitIndices(p)
		if err != nil {
			return
		}
		for _, n := range []int{0, 1, 3, 10} {
			s.Check(n)
		}
	})
}
