package results

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing f's dirty pages to disk
// now, without waiting for them (sync_file_range(2), SYNC_FILE_RANGE_WRITE,
// the whole file): the store's closing fsync then finds little left to
// write. Without it a small run's whole file waited for that fsync (50 ms
// for the 7.7 MB of a GaussMix authors' panel on this host, the run's
// last step). It only starts I/O; durability is still fsync's, so its
// error is not one. (A variable: the store's tests count its calls.)
var startWriteback = func(f *os.File) {
	if c, err := f.SyscallConn(); err == nil {
		_ = c.Control(func(fd uintptr) { _ = unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE) })
	}
}
