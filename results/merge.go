package results

import (
	"bytes"
	"crypto/sha256"
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
	Dir string
	// Conflicts are the trials, by cell and trial; the first
	// conflictListMax, those Error lists, with their Fields.
	Conflicts []Duplicate
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
// missing: that needs the spec (harness/run.Gaps).
//
// It holds no record (a merge of 10⁶ trials peaked at 5.9 GB, now 218 MB
// with its render; /usr/bin/time -f %M): the store and
// the shard files are scanned, and of each distinct line (a record as
// AppendRecord encodes it) a merger keeps a digest, per trial, and where
// the line was first seen. With no conflict the shard files are read again,
// each up to where its first read ended (a running shard may have appended
// since), and the lines to add appended in that order; a line the first
// read did not see (a file changed meanwhile) stops the merge, and the
// store is cut back to its length before it: a merge appends all or
// nothing.
func MergeShards(dir string, warn func(string)) (*MergeResult, error) {
	return mergeShards(dir, warn, nil)
}

// mergeShards is MergeShards, calling between (unless nil) once it has
// read every file and found no conflict, before it reads the shard files
// again: a test changes them there.
func mergeShards(dir string, warn func(string), between func()) (*MergeResult, error) {
	shards, err := ShardFiles(dir)
	if err != nil {
		return nil, err
	}
	if len(shards) == 0 {
		return nil, fmt.Errorf("results: %s has no shard files (%s/shard-i-of-N.jsonl): nothing to merge", dir, ShardsDir)
	}
	m := &merger{shards: shards, trials: map[string]*trialSlots{}, others: map[lineSum]lineState{}}
	store, err := Open(dir, warn, func(r *Record) { m.see(r, fromStore) })
	if err != nil {
		return nil, err
	}
	defer store.Close()
	res := &MergeResult{Shards: shards}
	ends := make([]int64, len(shards)) // each shard file's complete lines, as first read
	counts := make([]int, len(shards)) // and their records
	for i, sh := range shards {
		if m.err != nil {
			break
		}
		ends[i], err = scanShard(sh.Path, -1, warn, func(r *Record) {
			counts[i]++
			m.see(r, int32(i))
		})
		if err != nil {
			return nil, err
		}
		res.Read += counts[i]
	}
	if m.err != nil {
		return nil, m.err
	}
	dups, conflicts := m.duplicates()
	if len(conflicts) > 0 {
		if err := m.conflictFields(dir, conflicts[:min(len(conflicts), conflictListMax)], ends); err != nil {
			return nil, err
		}
		return nil, &ConflictError{Dir: dir, Conflicts: conflicts}
	}
	if between != nil {
		between()
	}
	if res.Added, err = m.appendShards(store, ends, counts); err != nil {
		return nil, err
	}
	res.Duplicates = dups
	return res, nil
}

// lineSum is the digest of a line as a merger compares lines: the first
// 128 bits of its SHA-256 (two distinct lines among 2³² share one with a
// probability below 2⁻⁶⁴; a collision would drop a record as merged
// before, or hide a conflict).
type lineSum [16]byte

// lineState says whether the store holds a line, and whether this merge
// appended it.
type lineState uint8

const (
	lineStored lineState = 1 << iota
	lineAdded
)

// fromStore is mergeLine.src of a line first seen in the store; a shard
// file's lines have its index in merger.shards.
const fromStore = -1

// mergeLine is a distinct settled line of a trial.
type mergeLine struct {
	sum   lineSum
	src   int32 // where it came from: fromStore, or the first shard file holding it (a line merged before names its shard)
	state lineState
}

// mergeTrial is what a merger keeps of a trial's settled lines: 48 bytes
// while it has one distinct line. The zero value is no trial (a line's
// digest is never zero).
type mergeTrial struct {
	bare  lineSum // of its first line without timing (WithoutTiming)
	first mergeLine
	more  *mergeMore // nil while the trial has one distinct line
}

// mergeMore holds the later distinct settled lines of a trial, a duplicate
// or a conflict.
type mergeMore struct {
	lines    []mergeLine
	conflict bool // one differs from the first beyond timing
	// The second line's label, dataset and ε: the first's when they agree
	// apart from timing (conflictFields sets a conflict's from its first).
	label, dataset string
	epsilon        float64
}

// line returns the trial's line with digest sum; nil if none.
func (t *mergeTrial) line(sum lineSum) *mergeLine {
	if t.first.sum == sum {
		return &t.first
	}
	if t.more != nil {
		for i := range t.more.lines {
			if t.more.lines[i].sum == sum {
				return &t.more.lines[i]
			}
		}
	}
	return nil
}

// trialSlots holds a cell's mergeTrials by trial index, as KeySet's
// trialBits holds its bits: dense[t] for 0 ≤ t < len(dense), far the
// others (negative indices, and those farGap beyond the end), so that a
// trial takes 48 bytes (up to 96 after the slice grew): with a map by
// trial, the live heap of a merge of 10⁶ trials of one cell was 144 MB,
// with trialSlots 52–62 MB (GODEBUG=gctrace=1).
type trialSlots struct {
	dense []mergeTrial
	far   map[int]mergeTrial
}

// get returns trial t's entry, and whether it has one.
func (s *trialSlots) get(t int) (mergeTrial, bool) {
	if t >= 0 && t < len(s.dense) {
		return s.dense[t], s.dense[t].first.sum != lineSum{}
	}
	m, ok := s.far[t]
	return m, ok
}

// put sets trial t's entry.
func (s *trialSlots) put(t int, m mergeTrial) {
	switch {
	case t >= 0 && t < len(s.dense):
	case t >= 0 && t < len(s.dense)+farGap:
		s.dense = slices.Grow(s.dense, t+1-len(s.dense))[:t+1]
		claimFar(s.far, len(s.dense), func(t int, m mergeTrial) { s.dense[t] = m })
	default:
		if s.far == nil {
			s.far = map[int]mergeTrial{}
		}
		s.far[t] = m
		return
	}
	s.dense[t] = m
}

// each calls f with each trial's index and entry.
func (s *trialSlots) each(f func(t int, m *mergeTrial)) {
	for t := range s.dense {
		if s.dense[t].first.sum != (lineSum{}) {
			f(t, &s.dense[t])
		}
	}
	for t, m := range s.far {
		f(t, &m)
	}
}

// merger gathers what MergeShards decides from: the digests of the lines
// of the store and of the shard files, the settled ones by trial.
type merger struct {
	shards []ShardName
	trials map[string]*trialSlots // by cell key
	others map[lineSum]lineState  // the lines of failed and skipped trials
	toAdd  int                    // distinct lines first seen in a shard file
	buf    []byte
	err    error // the first record that did not encode
}

// sum returns the digest of r's line (bare: of WithoutTiming(r)'s), r's
// schema being the current one, as Store.Append writes it; false, with
// m.err set, if r does not encode.
func (m *merger) sum(r *Record, bare bool) (lineSum, bool) {
	r.Schema = SchemaVersion
	x := r
	if bare {
		x = WithoutTiming(r)
	}
	var err error
	if m.buf, err = AppendRecord(m.buf[:0], x); err != nil {
		if m.err == nil {
			m.err = fmt.Errorf("results: %w", err)
		}
		return lineSum{}, false
	}
	h := sha256.Sum256(m.buf)
	return lineSum(h[:16]), true
}

// see notes a record read from src (fromStore or a shard file's index).
func (m *merger) see(r *Record, src int32) {
	sum, ok := m.sum(r, false)
	if !ok {
		return
	}
	var state lineState
	if src == fromStore {
		state = lineStored
	}
	if !r.Settled() {
		if _, seen := m.others[sum]; !seen {
			m.others[sum] = state
			m.countNew(state)
		}
		return
	}
	cell := m.trials[r.CellKey]
	if cell == nil {
		cell = &trialSlots{}
		m.trials[r.CellKey] = cell
	}
	t, seen := cell.get(r.Trial)
	l := t.line(sum)
	switch {
	case !seen:
		if t.bare, ok = m.sum(r, true); !ok {
			return
		}
		t.first = mergeLine{sum: sum, src: src, state: state}
		m.countNew(state)
	case l != nil:
		if l.src == fromStore && src != fromStore {
			l.src = src // merged before: name the shard it came from
		}
	default:
		if t.more == nil {
			t.more = &mergeMore{label: r.Label, dataset: r.Dataset, epsilon: float64(r.Epsilon)}
		}
		t.more.lines = append(t.more.lines, mergeLine{sum: sum, src: src, state: state})
		m.countNew(state)
		bare, ok := m.sum(r, true)
		if !ok {
			return
		}
		t.more.conflict = t.more.conflict || bare != t.bare
	}
	cell.put(r.Trial, t)
}

// countNew counts a new distinct line to add when the store lacks it.
func (m *merger) countNew(state lineState) {
	if state&lineStored == 0 {
		m.toAdd++
	}
}

// source names where a line came from: TrialsFile or its shard file.
func (m *merger) source(src int32) string {
	if src == fromStore {
		return TrialsFile
	}
	return filepath.Base(m.shards[src].Path)
}

// duplicates returns the trials with several distinct settled lines: those
// identical apart from timing and those that conflict, each sorted by
// cell and trial; a conflict has no Fields yet (conflictFields).
func (m *merger) duplicates() (dups, conflicts []Duplicate) {
	for cell, trials := range m.trials {
		trials.each(func(trial int, t *mergeTrial) {
			if t.more == nil {
				return
			}
			d := Duplicate{Key: Key{Cell: cell, Trial: trial}, Label: t.more.label, Dataset: t.more.dataset, Epsilon: t.more.epsilon,
				Sources: []string{m.source(t.first.src)}}
			for _, l := range t.more.lines {
				d.Sources = append(d.Sources, m.source(l.src))
			}
			if t.more.conflict {
				conflicts = append(conflicts, d)
			} else {
				dups = append(dups, d)
			}
		})
	}
	sortDuplicates(dups)
	sortDuplicates(conflicts)
	return dups, conflicts
}

// conflictFields reads the store and the shard files (each up to its end)
// again for the trials of conflicts, holding the first record of each, and
// sets each one's Fields, the JSON fields in which its records differ from
// its first beyond timing, and its label, dataset and ε, the first's. The
// caller passes the conflicts a ConflictError lists: holding one record of
// every conflicting trial would bring back the memory this merge saves
// (a shard of other code conflicts in every trial).
func (m *merger) conflictFields(dir string, conflicts []Duplicate, ends []int64) error {
	type trialFields struct {
		d     *Duplicate
		first *Record
		seen  []lineSum
	}
	want := make(map[Key]*trialFields, len(conflicts))
	for i := range conflicts {
		want[conflicts[i].Key] = &trialFields{d: &conflicts[i]}
	}
	visit := func(r *Record) {
		f := want[r.Key()]
		if f == nil || !r.Settled() {
			return
		}
		sum, ok := m.sum(r, false)
		if !ok || slices.Contains(f.seen, sum) {
			return
		}
		f.seen = append(f.seen, sum)
		if f.first == nil {
			first := *r // the records of a scan are decoded afresh: its maps are its own
			f.first = &first
			f.d.Label, f.d.Dataset, f.d.Epsilon = r.Label, r.Dataset, float64(r.Epsilon)
			return
		}
		for _, name := range differingFields(f.first, r) {
			if !slices.Contains(f.d.Fields, name) {
				f.d.Fields = append(f.d.Fields, name)
			}
		}
	}
	if err := Scan(dir, nil, visit); err != nil {
		return err
	}
	for i, sh := range m.shards {
		if _, err := scanShard(sh.Path, ends[i], nil, visit); err != nil {
			return err
		}
	}
	return m.err
}

// take reports, for a record read again from a shard file, whether to
// append it (the first time its line is met, when the store lacks it),
// marking its line appended; known is false for a line the first read did
// not see.
func (m *merger) take(r *Record) (add, known bool) {
	sum, ok := m.sum(r, false)
	if !ok {
		return false, true
	}
	state := func(s *lineState) (bool, bool) {
		if *s != 0 {
			return false, true
		}
		*s = lineAdded
		return true, true
	}
	if !r.Settled() {
		s, seen := m.others[sum]
		if !seen {
			return false, false
		}
		add, known = state(&s)
		m.others[sum] = s
		return add, known
	}
	cell := m.trials[r.CellKey]
	if cell == nil {
		return false, false
	}
	t, seen := cell.get(r.Trial)
	l := t.line(sum)
	if !seen || l == nil {
		return false, false
	}
	add, known = state(&l.state)
	cell.put(r.Trial, t)
	return add, known
}

// appendShards reads the shard files again, each up to ends[i] (where it
// held counts[i] records), and appends to store the lines it lacks, each
// once, in order; it returns how many. If a file is not as first read, or
// a write fails, the store is cut back to its length before the merge.
func (m *merger) appendShards(store *Store, ends []int64, counts []int) (int, error) {
	size, err := store.size()
	if err != nil {
		return 0, err
	}
	added := 0
	err = func() error {
		for i, sh := range m.shards {
			n := 0
			var stop error
			_, err := scanShard(sh.Path, ends[i], nil, func(r *Record) {
				if n++; stop != nil {
					return
				}
				switch add, known := m.take(r); {
				case !known:
					stop = fmt.Errorf("results: %s changed during the merge (record %d is not one it held when read first); merge again", sh.Path, n)
				case add:
					if stop = store.Append(*r); stop == nil {
						added++
					}
				}
			})
			switch {
			case err != nil:
				return err
			case stop != nil:
				return stop
			case m.err != nil:
				return m.err
			case n != counts[i]:
				return fmt.Errorf("results: %s changed during the merge (%d records where it held %d when read first); merge again", sh.Path, n, counts[i])
			}
		}
		if added != m.toAdd {
			return fmt.Errorf("results: the shard files changed during the merge (%d records to add, %d found again); merge again", m.toAdd, added)
		}
		return store.Sync()
	}()
	if err != nil {
		if terr := store.truncate(size); terr != nil {
			return 0, fmt.Errorf("%w; cutting %s back to its %d bytes before the merge also failed: %v", err, store.Path(), size, terr)
		}
		return 0, fmt.Errorf("%w (nothing was appended)", err)
	}
	return added, nil
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
// WithoutTiming's fields; none when they agree apart from timing, that is
// when their encodings without timing are the same. Numbers are compared
// as written (json.Number), so that a field differs exactly when its
// encoding does ("-0" and "0" differ).
func differingFields(a, b *Record) []string {
	x, err1 := decodeObject(WithoutTiming(a))
	y, err2 := decodeObject(WithoutTiming(b))
	if err1 != nil || err2 != nil {
		return []string{"(a record that does not encode)"}
	}
	return diffPaths("", x, y)
}

// decodeObject returns r's encoding decoded as a JSON object, its numbers
// as json.Number.
func decodeObject(r *Record) (map[string]any, error) {
	b, err := AppendRecord(nil, r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x map[string]any
	err = dec.Decode(&x)
	return x, err
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

// IsTimingKey reports whether a diagnostics key is a wall-clock
// measurement, which varies between identical runs: its name (after a
// group prefix, "node1/") starts with "wall_".
func IsTimingKey(k string) bool {
	_, name, ok := strings.Cut(k, "/")
	if !ok {
		name = k
	}
	return strings.HasPrefix(name, "wall_")
}

// WithoutTiming returns a copy of r without the fields that vary between
// identical runs of a trial: wall_s, code_version and the timing
// diagnostics (IsTimingKey).
func WithoutTiming(r *Record) *Record {
	x := *r
	x.WallSeconds, x.CodeVersion = 0, ""
	if len(r.Diagnostics) > 0 {
		x.Diagnostics = make(map[string]Float, len(r.Diagnostics))
		for k, v := range r.Diagnostics {
			if !IsTimingKey(k) {
				x.Diagnostics[k] = v
			}
		}
	}
	return &x
}
