package results

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// MergeResult is what MergeShards did.
type MergeResult struct {
	Shards []ShardName // the shard files read
	Read   int         // records in the shard files
	Added  int         // records appended to the store (0 on a repeated merge)
	// Duplicates are the trials with more than one distinct ok record
	// among the store and the shard files.
	Duplicates []Duplicate
}

// Duplicate is a trial with several distinct ok records: produced twice
// (overlapping shard sets, a shard count changed between runs, a rerun
// shard). Aggregation uses the last one stored.
type Duplicate struct {
	Key            Key
	Label, Dataset string
	Epsilon        float64
	Sources        []string // where each record came from: a shard file name or TrialsFile
	// Differ is true when the records differ beyond wall_s and
	// code_version: the runs were not deterministic (or not of the same code
	// and data), and the figures depend on which was merged last.
	Differ bool
}

// MergeShards appends to the store of the result directory dir, under its
// lock, every record of dir's shard files (ShardFiles, in their order, each
// file in its order) that the store does not already hold byte for byte: a
// second merge of the same files adds nothing. It reports the trials with
// several distinct ok records (Duplicate). It does not check which trials
// are missing: that needs the spec (experiments/run.Gaps).
func MergeShards(dir string, warn func(string)) (*MergeResult, error) {
	shards, err := ShardFiles(dir)
	if err != nil {
		return nil, err
	}
	if len(shards) == 0 {
		return nil, fmt.Errorf("results: %s has no shard files (%s/shard-i-of-N.jsonl): nothing to merge", dir, ShardsDir)
	}
	var recs []Record
	store, err := Open(dir, warn, func(r *Record) { recs = append(recs, *r) })
	if err != nil {
		return nil, err
	}
	defer store.Close()
	res := &MergeResult{Shards: shards}
	// The store's lines, as their encoding: a shard line already there was
	// merged before.
	have := make(map[string]bool, len(recs))
	src := map[string]string{} // a line -> where it came from, for duplicates
	var buf []byte
	encode := func(r *Record) (string, error) {
		r.Schema = SchemaVersion
		var err error
		buf, err = AppendRecord(buf[:0], r)
		return string(buf), err
	}
	// ok lines per trial, in order of first appearance
	okLines := map[Key][]string{}
	okRec := map[string]*Record{}
	note := func(line string, r *Record, from string) {
		if _, seen := src[line]; !seen {
			src[line] = from
		}
		if r.Status != StatusOK || okRec[line] != nil {
			return
		}
		okRec[line] = r
		okLines[r.Key()] = append(okLines[r.Key()], line)
	}
	for i := range recs {
		line, err := encode(&recs[i])
		if err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
		have[line] = true
		note(line, &recs[i], TrialsFile)
	}
	for _, sh := range shards {
		var srecs []Record
		err := ScanShard(sh.Path, warn, func(r *Record) { srecs = append(srecs, *r) })
		if err != nil {
			return nil, err
		}
		res.Read += len(srecs)
		name := filepath.Base(sh.Path)
		for i := range srecs {
			r := &srecs[i]
			line, err := encode(r)
			if err != nil {
				return nil, fmt.Errorf("results: %w", err)
			}
			if src[line] == TrialsFile {
				src[line] = name // merged before: name the shard it came from
			}
			note(line, r, name)
			if have[line] {
				continue
			}
			have[line] = true
			if err := store.Append(*r); err != nil {
				return nil, err
			}
			res.Added++
		}
	}
	if err := store.Sync(); err != nil {
		return nil, err
	}
	for k, lines := range okLines {
		if len(lines) < 2 {
			continue
		}
		first := okRec[lines[0]]
		d := Duplicate{Key: k, Label: first.Label, Dataset: first.Dataset, Epsilon: float64(first.Epsilon)}
		for _, l := range lines {
			d.Sources = append(d.Sources, src[l])
			if !sameOutcome(first, okRec[l]) {
				d.Differ = true
			}
		}
		res.Duplicates = append(res.Duplicates, d)
	}
	slices.SortFunc(res.Duplicates, func(a, b Duplicate) int {
		if a.Key.Cell != b.Key.Cell {
			if a.Key.Cell < b.Key.Cell {
				return -1
			}
			return 1
		}
		return a.Key.Trial - b.Key.Trial
	})
	return res, nil
}

// sameOutcome reports whether two records of a trial agree apart from the
// fields that vary between identical runs: wall_s, code_version and the
// "wall_" diagnostics (Record.Diagnostics).
func sameOutcome(a, b *Record) bool {
	bx, err1 := AppendRecord(nil, WithoutTiming(a))
	by, err2 := AppendRecord(nil, WithoutTiming(b))
	return err1 == nil && err2 == nil && string(bx) == string(by)
}

// WithoutTiming returns a copy of r without the fields that vary between
// identical runs of a trial: wall_s, code_version and the diagnostics whose
// keys start with "wall_".
func WithoutTiming(r *Record) *Record {
	x := *r
	x.WallSeconds, x.CodeVersion = 0, ""
	if len(r.Diagnostics) > 0 {
		x.Diagnostics = make(map[string]Float, len(r.Diagnostics))
		for k, v := range r.Diagnostics {
			if !strings.HasPrefix(k, "wall_") {
				x.Diagnostics[k] = v
			}
		}
	}
	return &x
}
