package run

import (
	"os"
	"path/filepath"
	"slices"
)

// newPaths lists which of paths do not exist yet, with every missing
// ancestor directory of dir, in creation order: what opening a result
// directory is about to create. A run that stops before its first trial
// (a dataset that does not load) removes them again (remove), so it
// leaves no empty result directory behind, and nothing that existed is
// touched.
func newPaths(dir string, paths ...string) []string {
	var dirs []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		dirs = append(dirs, d)
	}
	slices.Reverse(dirs) // outermost first
	out := dirs
	for _, p := range paths {
		if _, err := os.Lstat(p); os.IsNotExist(err) {
			out = append(out, p)
		}
	}
	return out
}

// removeNew removes the paths newPaths listed, last created first. A path
// that is gone, or a directory that is no longer empty (something else was
// put there meanwhile), is left as it is.
func removeNew(paths []string) {
	for _, p := range slices.Backward(paths) {
		os.Remove(p)
	}
}
