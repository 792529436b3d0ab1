package results

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/dplab/dplab/internal/fileutil"
)

// ShardsDir is the subdirectory of a result directory that holds the files
// of a sharded run (dplab run --shard i/N): per shard its records
// (ShardFile), its manifest (ShardManifestPath) and its lock, and the spec
// copies (ShardSpecPath). Each shard's files have one writer, the process
// holding the shard's lock (OpenShard), never the directory's: shards run
// at once, on hosts sharing a network file system.
const ShardsDir = "shards"

// ShardFile is the name of shard i of n's record file within ShardsDir.
func ShardFile(i, n int) string { return fmt.Sprintf("shard-%d-of-%d.jsonl", i, n) }

// ShardPath is the path of shard i of n's record file in the result
// directory dir.
func ShardPath(dir string, i, n int) string { return filepath.Join(dir, ShardsDir, ShardFile(i, n)) }

// shardLockName is the name, relative to the result directory, of the
// lock that shard i of n takes before it touches its files (OpenShard).
func shardLockName(i, n int) string {
	return filepath.Join(ShardsDir, fmt.Sprintf("shard-%d-of-%d.lock", i, n))
}

// ShardLockPath is the path of shard i of n's lock in the result directory
// dir.
func ShardLockPath(dir string, i, n int) string { return filepath.Join(dir, shardLockName(i, n)) }

// ShardManifestPath is the path of shard i of n's manifest in dir: the
// manifest of a result directory, written by the shard's runs only.
func ShardManifestPath(dir string, i, n int) string {
	return filepath.Join(dir, shardManifestName(i, n))
}

// shardManifestName is ShardManifestPath relative to the result directory.
func shardManifestName(i, n int) string {
	return filepath.Join(ShardsDir, fmt.Sprintf("shard-%d-of-%d.json", i, n))
}

// ShardSpecPath is the path of the copy of a spec with SHA-256 sum (hex) in
// dir's ShardsDir. The name carries the digest, so shards of two versions of
// a spec never overwrite each other's copy.
func ShardSpecPath(dir, sum string) string { return filepath.Join(dir, shardSpecName(sum)) }

// shardSpecName is ShardSpecPath relative to the result directory.
func shardSpecName(sum string) string {
	if len(sum) > 16 {
		sum = sum[:16]
	}
	return filepath.Join(ShardsDir, "spec-"+sum+".toml")
}

// WriteShardSpec writes the spec source src to its ShardSpecPath in dir
// (atomically; shards write identical bytes, so their races are harmless)
// and returns the path.
func WriteShardSpec(dir string, src []byte) (string, error) {
	sum := sha256.Sum256(src)
	name := shardSpecName(hex.EncodeToString(sum[:]))
	path := filepath.Join(dir, name)
	if b, err := os.ReadFile(path); err == nil && string(b) == string(src) {
		return path, nil
	}
	return path, fileutil.WriteFileAtomicIn(dir, name, src)
}

// OpenShard opens (creating if needed) the record file of shard i of n in
// the result directory dir for appending. It takes the shard's own lock
// (shards/shard-i-of-n.lock), not the directory's, first: if another
// process holds it (the same shard run twice at once) it returns a
// *BusyError having changed nothing. Where the file system cannot lock
// (flock fails with ENOLCK, ENOSYS or EOPNOTSUPP) it warns and goes on
// unlocked. It calls visit (unless nil) with each record of the shard
// file, as Open does. Trials stored settled in the shard file or in the
// directory's own store (TrialsFile, scanned without the directory's lock
// and not modified) count as done, so a shard skips trials a merge or an
// unsharded run already stored. A torn last line of the shard file is
// truncated as Open does.
func OpenShard(dir string, i, n int, warn func(string), visit func(*Record)) (_ *Store, err error) {
	if n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("results: shard %d of %d: want 0 ≤ i < n", i, n)
	}
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	if err := fileutil.MkdirAllIn(dir, ShardsDir); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	lock, err := lockDir(dir, shardLockName(i, n))
	var busy *BusyError
	switch {
	case errors.As(err, &busy):
		busy.Holder = fmt.Sprintf("dplab run --shard %d/%d", i, n)
		return nil, err
	case errors.Is(err, errLockUnsupported):
		if warn != nil {
			warn(fmt.Sprintf("%v; shard %d/%d runs unlocked: never run it twice at once", err, i, n))
		}
	case err != nil:
		return nil, err
	}
	defer func() {
		if err != nil {
			unlockDir(lock)
		}
	}()
	var merged KeySet
	if err := Scan(dir, warn, func(r *Record) {
		if r.Settled() {
			merged.Add(r.Key())
		}
	}); err != nil {
		return nil, err
	}
	s, err := openFile(dir, filepath.Join(ShardsDir, ShardFile(i, n)), lock, warn, visit)
	if err != nil {
		return nil, err
	}
	merged.each(func(k Key) { s.done.Add(k) })
	return s, nil
}

// ShardName is a shard record file found in a result directory.
type ShardName struct {
	Index, Count int
	Path         string
}

func (s ShardName) String() string { return fmt.Sprintf("shard %d/%d", s.Index, s.Count) }

var shardFileRE = regexp.MustCompile(`^shard-(\d+)-of-(\d+)\.jsonl$`)

// ShardFiles lists the shard record files of dir, by (count, index); none
// when dir has no ShardsDir.
func ShardFiles(dir string) ([]ShardName, error) {
	ents, err := os.ReadDir(filepath.Join(dir, ShardsDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	var out []ShardName
	for _, e := range ents {
		m := shardFileRE.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		i, err1 := strconv.Atoi(m[1])
		n, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil || i >= n {
			continue
		}
		out = append(out, ShardName{Index: i, Count: n, Path: filepath.Join(dir, ShardsDir, e.Name())})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Count != out[b].Count {
			return out[a].Count < out[b].Count
		}
		return out[a].Index < out[b].Index
	})
	return out, nil
}

// ScanShard calls visit with each record of a shard file, in order, without
// modifying it, as Scan does; a torn last line (a shard still running, or
// killed) is skipped with a warning.
func ScanShard(path string, warn func(string), visit func(*Record)) error {
	_, err := scanShard(path, -1, warn, visit)
	return err
}

// scanShard is ScanShard of the first limit bytes of the file (all of it
// if limit < 0); it returns the length of their complete lines.
func scanShard(path string, limit int64, warn func(string), visit func(*Record)) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit)
	}
	return scanRecords(r, path, warn, visit)
}

// UnmergedShardsError reports shard records that dplab merge has not yet
// added to a result directory's store: an unsharded run would run those
// trials again, and a later merge would then hold two records of each.
//
// With Forced set it reports, for dplab run --force, shard records of the
// cells about to rerun whether merged or not: the rerun drops those cells'
// records from the store only, so a later merge would add the old records
// back beside the new ones (as duplicates, the last merged being used).
type UnmergedShardsError struct {
	Dir    string
	Trials int      // settled trials in shard files and not in the store (Forced: of the forced cells)
	Files  []string // the shard files holding them
	Forced bool
}

func (e *UnmergedShardsError) Error() string {
	if e.Forced {
		return fmt.Sprintf("%s: --force reruns %d trial(s) whose earlier records stay in shard files (%s): a later 'dplab merge %s' would add them back beside the rerun's; delete or move %s first",
			e.Dir, e.Trials, strings.Join(e.Files, ", "), e.Dir, filepath.Join(e.Dir, ShardsDir))
	}
	return fmt.Sprintf("%s: %d trial(s) finished by shards are not merged into %s yet (%s): run 'dplab merge %s' first (or delete %s to discard them)",
		e.Dir, e.Trials, TrialsFile, strings.Join(e.Files, ", "), e.Dir, filepath.Join(e.Dir, ShardsDir))
}

// UnmergedShards returns an *UnmergedShardsError when dir's shard files
// (ShardFiles) hold a settled record (Record.Settled) of a trial of a cell
// that want selects, which done does not report: a trial a shard finished
// whose record dplab merge has not added to the store. Torn last lines of
// shards still running are skipped with warn.
func UnmergedShards(dir string, want func(cell string) bool, done func(Key) bool, warn func(string)) error {
	shards, err := ShardFiles(dir)
	if err != nil || len(shards) == 0 {
		return err
	}
	e := &UnmergedShardsError{Dir: dir}
	var seen KeySet
	for _, sh := range shards {
		found := false
		err := ScanShard(sh.Path, warn, func(r *Record) {
			k := r.Key()
			if !r.Settled() || !want(k.Cell) || done(k) || !seen.Add(k) {
				return
			}
			e.Trials++
			found = true
		})
		if err != nil {
			return err
		}
		if found {
			e.Files = append(e.Files, filepath.Base(sh.Path))
		}
	}
	if e.Trials == 0 {
		return nil
	}
	return e
}

// WriteSpecCopy writes the spec source src to dir/spec.toml atomically, as
// a run does: dplab merge gives a merged directory the copy an unsharded
// run leaves.
func WriteSpecCopy(dir string, src []byte) error {
	return fileutil.WriteFileAtomicIn(dir, "spec.toml", src)
}
