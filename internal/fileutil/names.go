package fileutil

// NameMax is the most bytes one file or directory name may have: NAME_MAX
// of Linux's file systems (ext4, XFS, Btrfs, tmpfs) and the limit of
// macOS's APFS. A name derived from a spec (its result directory, a figure
// or a table) is checked against it when the spec is loaded, not when the
// file is written after the trials.
const NameMax = 255

// TempSuffixMax is the most bytes WriteFileAtomic and ReplaceFile add to a
// file's name for the temporary file they write first (createTemp's
// ".tmp<pid>-<n>", with a Linux pid ≤ 2²² and n < 2⁶⁴): a name that fits
// NameMax only without it cannot be written.
const TempSuffixMax = len(".tmp4194304-18446744073709551615")
