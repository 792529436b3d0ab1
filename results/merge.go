package results

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// MergeResult is what MergeShards did.
type MergeResult struct {
	Shards []ShardName // the shard files read
	Read   int         // records in the shard files
	Added  int         // records appended to the store (0 on a repeated merge)
	// Duplicates are the trials with more than one distinct settled record
	// among the store and the shard files, all identical apart from timing
	// (records that differ beyond it are a *ConflictError).
	Duplicates []Duplicate
}

// Duplicate is a trial with several distinct settled records (ok or
// infeasible): produced twice (overlapping shard sets, a shard count
// changed between runs, a rerun shard). Aggregation uses the last one
// stored.
type Duplicate struct {
	Key            Key
	Label, Dataset string
	Epsilon        float64
	Sources        []string // where each record came from: a shard file name or TrialsFile
	// Fields are the JSON fields in which the records differ beyond
	// WithoutTiming's ("metrics.test_mse", "eps_spent"); none when they
	// agree apart from timing.
	Fields []string
}

// ConflictError reports trials whose settled records in a result
// directory's store and shard files differ beyond timing: runs of other
// code or data, or an edited file. The figures would depend on which record
// was merged last, so MergeShards appends nothing.
type ConflictError struct {
	Dir       string
	Conflicts []Duplicate // each with its Fields
}

// conflictListMax caps the trials a ConflictError lists; the rest are
// counted.
const conflictListMax = 20

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d trial(s) have records that differ beyond timing (runs of other code or data, or an edited file), so the merge appended nothing:", e.Dir, len(e.Conflicts))
	for i, d := range e.Conflicts {
		if i == conflictListMax {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.Conflicts)-i)
			break
		}
		eps := fmt.Sprintf("ε=%g", d.Epsilon)
		if math.IsInf(d.Epsilon, 1) {
			eps = "non-private"
		}
		files := make([]string, len(d.Sources))
		for j, src := range d.Sources {
			files[j] = src
			if src != TrialsFile {
				files[j] = filepath.Join(ShardsDir, src)
			}
		}
		fmt.Fprintf(&b, "\n  %s / %s / %s / trial %d (cell %s): %s differ in %s", d.Dataset, d.Label, eps, d.Key.Trial, d.Key.Cell,
			strings.Join(files, ", "), strings.Join(d.Fields, ", "))
	}
	b.WriteString("\nkeep one record of each trial (delete the others from their file, or move a wrong shard file away) and merge again")
	return b.String()
}

// MergeShards appends to the store of the result directory dir, under its
// lock, every record of dir's shard files (ShardFiles, in their order, each
// file in its order) that the store does not already hold byte for byte: a
// second merge of the same files adds nothing. It reports the trials with
// several distinct settled records identical apart from timing (Duplicate);
// when the records of a trial differ beyond timing it appends nothing and
// returns a *ConflictError naming them. It does not check which trials are
// missing: that needs the spec (experiments/run.Gaps).
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
	// settled lines per trial, in order of first appearance
	settledLines := map[Key][]string{}
	settledRec := map[string]*Record{}
	note := func(line string, r *Record, from string) {
		if _, seen := src[line]; !seen {
			src[line] = from
		}
		if !r.Settled() || settledRec[line] != nil {
			return
		}
		settledRec[line] = r
		settledLines[r.Key()] = append(settledLines[r.Key()], line)
	}
	for i := range recs {
		line, err := encode(&recs[i])
		if err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
		have[line] = true
		note(line, &recs[i], TrialsFile)
	}
	var add []Record // the shard records to append, in order
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
			add = append(add, *r)
		}
	}
	var conflicts []Duplicate
	for k, lines := range settledLines {
		if len(lines) < 2 {
			continue
		}
		first := settledRec[lines[0]]
		d := Duplicate{Key: k, Label: first.Label, Dataset: first.Dataset, Epsilon: float64(first.Epsilon)}
		for _, l := range lines {
			d.Sources = append(d.Sources, src[l])
			for _, f := range differingFields(first, settledRec[l]) {
				if !slices.Contains(d.Fields, f) {
					d.Fields = append(d.Fields, f)
				}
			}
		}
		if len(d.Fields) > 0 {
			conflicts = append(conflicts, d)
		} else {
			res.Duplicates = append(res.Duplicates, d)
		}
	}
	if len(conflicts) > 0 {
		sortDuplicates(conflicts)
		return nil, &ConflictError{Dir: dir, Conflicts: conflicts}
	}
	for i := range add {
		if err := store.Append(add[i]); err != nil {
			return nil, err
		}
	}
	if err := store.Sync(); err != nil {
		return nil, err
	}
	res.Added = len(add)
	sortDuplicates(res.Duplicates)
	return res, nil
}

// sortDuplicates sorts ds by cell, then trial.
func sortDuplicates(ds []Duplicate) {
	slices.SortFunc(ds, func(a, b Duplicate) int {
		if c := strings.Compare(a.Key.Cell, b.Key.Cell); c != 0 {
			return c
		}
		return a.Key.Trial - b.Key.Trial
	})
}

// differingFields returns the JSON fields, as dotted paths into the
// record's objects ("metrics.test_mse"), in which a and b differ beyond
// WithoutTiming's fields; none when they agree apart from timing.
func differingFields(a, b *Record) []string {
	var x, y map[string]any
	bx, err1 := AppendRecord(nil, WithoutTiming(a))
	by, err2 := AppendRecord(nil, WithoutTiming(b))
	if err1 != nil || err2 != nil || json.Unmarshal(bx, &x) != nil || json.Unmarshal(by, &y) != nil {
		return []string{"(a record that does not encode)"}
	}
	return diffPaths("", x, y)
}

// diffPaths returns the sorted paths (prefix + key) at which the JSON
// objects x and y differ, descending into objects both hold.
func diffPaths(prefix string, x, y map[string]any) []string {
	keys := slices.Sorted(maps.Keys(x))
	for k := range y {
		if _, ok := x[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		ox, okx := x[k].(map[string]any)
		oy, oky := y[k].(map[string]any)
		switch {
		case okx && oky:
			out = append(out, diffPaths(prefix+k+".", ox, oy)...)
		case !reflect.DeepEqual(x[k], y[k]):
			out = append(out, prefix+k)
		}
	}
	return out
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
