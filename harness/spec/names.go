package spec

import (
	"fmt"
)

// QuickSuffix ends the name of a --quick run's result directory
// (<name>-quick).
const QuickSuffix = "-quick"

// NameFits returns an error when a name from a spec (its own name, a
// figure's or a table's), with extra bytes that the writer adds (described
// by with: "-quick", an extension, a temporary suffix), would name a file
// longer than NameMax bytes: refused at load, so that the files
// are not found unwritable after the trials.
func NameFits(name string, extra int, with string) error {
	if len(name)+extra <= NameMax {
		return nil
	}
	return fmt.Errorf("the name is %d bytes: %s, up to %d more, it would name a file of %d bytes, above the %d bytes a file name may have; use at most %d bytes",
		len(name), with, extra, len(name)+extra, NameMax, NameMax-extra)
}

// NameMax is the most bytes one file or directory name may have: NAME_MAX
// on Linux and macOS. It is internal/fileutil.NameMax, repeated here so that
// the spec imports no dplab package (TestNameMaxIsFileutils).
const NameMax = 255
