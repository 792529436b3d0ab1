package fileutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteErrorNamesTheFile: writing into a directory that does not exist
// fails with an error that names the file asked for and is fs.ErrNotExist;
// before, it named the temporary file beside it ("x.html.tmp4084-1").
func TestWriteErrorNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "x.html")
	for name, write := range map[string]func(string, []byte) error{"WriteFileAtomic": WriteFileAtomic, "ReplaceFile": ReplaceFile} {
		err := write(path, []byte("x"))
		if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("%s: err = %v, want a not-exist error naming %s and no temporary file", name, err, path)
		}
	}
	ok := filepath.Join(t.TempDir(), "y.txt")
	if err := WriteFileAtomic(ok, []byte("data")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(ok); err != nil || string(b) != "data" {
		t.Errorf("read back %q, %v", b, err)
	}
	if left, _ := filepath.Glob(ok + ".tmp*"); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
