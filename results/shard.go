package results

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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
// (ShardFile) and its manifest (ShardManifestPath), and the spec copies
// (ShardSpecPath). Each file has exactly one writer, the process running its
// shard, so no lock is needed: a sharded run is safe on a network file
// system shared by hosts, where flock may not work across them.
const ShardsDir = "shards"

// ShardFile is the name of shard i of n's record file within ShardsDir.
func ShardFile(i, n int) string { return fmt.Sprintf("shard-%d-of-%d.jsonl", i, n) }

// ShardPath is the path of shard i of n's record file in the result
// directory dir.
func ShardPath(dir string, i, n int) string { return filepath.Join(dir, ShardsDir, ShardFile(i, n)) }

// ShardManifestPath is the path of shard i of n's manifest in dir: the
// manifest of a result directory, written by the shard's runs only.
func ShardManifestPath(dir string, i, n int) string {
	return filepath.Join(dir, ShardsDir, fmt.Sprintf("shard-%d-of-%d.json", i, n))
}

// ShardSpecPath is the path of the copy of a spec with SHA-256 sum (hex) in
// dir's ShardsDir. The name carries the digest, so shards of two versions of
// a spec never overwrite each other's copy.
func ShardSpecPath(dir, sum string) string {
	if len(sum) > 16 {
		sum = sum[:16]
	}
	return filepath.Join(dir, ShardsDir, "spec-"+sum+".toml")
}

// WriteShardSpec writes the spec source src to its ShardSpecPath in dir
// (atomically; shards write identical bytes, so their races are harmless)
// and returns the path.
func WriteShardSpec(dir string, src []byte) (string, error) {
	sum := sha256.Sum256(src)
	path := ShardSpecPath(dir, hex.EncodeToString(sum[:]))
	if b, err := os.ReadFile(path); err == nil && string(b) == string(src) {
		return path, nil
	}
	return path, fileutil.WriteFileAtomic(path, src)
}

// OpenShard opens (creating if needed) the record file of shard i of n in
// the result directory dir for appending, without taking the directory's
// lock: the file has one writer, the shard's process. It calls visit
// (unless nil) with each record of the shard file, as Open does. Trials
// stored settled in the shard file or in the directory's own store
// (TrialsFile, scanned without the lock and not modified) count as done, so
// a shard skips trials a merge or an unsharded run already stored. A torn
// last line of the shard file is truncated as Open does.
func OpenShard(dir string, i, n int, warn func(string), visit func(*Record)) (*Store, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("results: shard %d of %d: want 0 ≤ i < n", i, n)
	}
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, ShardsDir), 0o755); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	var merged KeySet
	if err := Scan(dir, warn, func(r *Record) {
		if r.Settled() {
			merged.Add(r.Key())
		}
	}); err != nil {
		return nil, err
	}
	s, err := openFile(ShardPath(dir, i, n), nil, warn, visit)
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
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	_, err = scanRecords(f, path, warn, visit)
	return err
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
	return fileutil.WriteFileAtomic(filepath.Join(dir, "spec.toml"), src)
}
