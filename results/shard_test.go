package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func shardRec(cell string, trial int, acc float64) Record {
	return Record{Experiment: "x", CellKey: cell, Dataset: "D", Mechanism: "m", Label: "M", Epsilon: 1, Trial: trial,
		Status: StatusOK, Metrics: map[string]Float{"test_accuracy": Float(acc)}, WallSeconds: 0.5, CodeVersion: "v"}
}

func appendAll(t *testing.T, s *Store, recs ...Record) {
	t.Helper()
	for _, r := range recs {
		if err := s.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenShardTakesNoLock: shards open while another process (here, an
// open Store) holds the directory's lock, each writes only its own file,
// and a trial stored in the directory's store counts as done for a shard.
func TestOpenShardTakesNoLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	main, _, err := openAll(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, main, shardRec("c1", 0, 0.9))
	holder, _, err := openAll(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	a, _, err := openShardAll(dir, 0, 2, nil)
	if err != nil {
		t.Fatalf("shard 0 beside a held lock: %v", err)
	}
	b, _, err := openShardAll(dir, 1, 2, nil)
	if err != nil {
		t.Fatalf("shard 1 beside shard 0: %v", err)
	}
	if !a.Done(Key{"c1", 0}) || a.Done(Key{"c1", 1}) {
		t.Error("a shard does not see the store's ok trials as done")
	}
	appendAll(t, a, shardRec("c1", 1, 0.8))
	appendAll(t, b, shardRec("c1", 2, 0.7))
	for i, want := range []int{1, 2} {
		var recs []Record
		err := ScanShard(ShardPath(dir, i, 2), nil, func(r *Record) { recs = append(recs, *r) })
		if err != nil || len(recs) != 1 || recs[0].Trial != want {
			t.Errorf("shard %d holds %v, %v", i, recs, err)
		}
	}
	if _, _, err := openShardAll(dir, 2, 2, nil); err == nil {
		t.Error("shard 2 of 2 accepted")
	}
}

// TestMergeShardsIdempotentAndDuplicates merges two shard files twice: the
// second merge adds nothing; a trial in two shards whose records differ in
// timing alone (wall_s, code_version, a wall_ diagnostic) is a duplicate.
func TestMergeShardsIdempotentAndDuplicates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	a, _, err := openShardAll(dir, 0, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	same := shardRec("c1", 1, 0.8)
	same.WallSeconds, same.CodeVersion = 9, "w" // timing differs only
	same.Diagnostics = map[string]Float{"wall_ns_per_iter": 7}
	appendAll(t, a, shardRec("c1", 0, 0.9), shardRec("c1", 1, 0.8), shardRec("c2", 0, 0.5))
	b, _, err := openShardAll(dir, 1, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, b, same, shardRec("c2", 0, 0.5), shardRec("c2", 1, 0.6))
	for round := range 2 {
		res, err := MergeShards(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantAdded := 5 // c2/0's second line is byte-identical to its first
		if round == 1 {
			wantAdded = 0
		}
		if recs, err := Read(dir, nil); res.Read != 6 || res.Added != wantAdded || len(recs) != 5 || err != nil {
			t.Fatalf("round %d: read %d, added %d (want %d), %d records (%v)", round, res.Read, res.Added, wantAdded, len(recs), err)
		}
		// c1/1 differs in timing; c2/0's lines are one.
		if len(res.Duplicates) != 1 {
			t.Fatalf("round %d: duplicates %+v", round, res.Duplicates)
		}
		if d := res.Duplicates[0]; d.Key != (Key{"c1", 1}) || len(d.Fields) != 0 || len(d.Sources) != 2 || d.Sources[0] != ShardFile(0, 2) || d.Sources[1] != ShardFile(1, 2) {
			t.Errorf("round %d: %+v", round, d)
		}
	}
	st, err := os.Stat(filepath.Join(dir, TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	before := st.Size()
	if _, err := MergeShards(dir, nil); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, TrialsFile)); st.Size() != before {
		t.Error("a repeated merge changed the store")
	}
}

// TestMergeShardsConflictAppendsNothing: records of one trial that differ
// beyond timing — a metric and ε spent, or the status (ok against
// infeasible) — fail the merge with a *ConflictError naming each trial, its
// files and the fields, and nothing is appended; once the wrong shard file
// is moved away the merge goes through (issue 34, item 9: the tampered
// record was warned about and used).
func TestMergeShardsConflictAppendsNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	main, err := Open(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, main, shardRec("c0", 0, 0.3))
	a, err := OpenShard(dir, 0, 2, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, a, shardRec("c1", 0, 0.9), shardRec("c2", 0, 0.5))
	tampered := shardRec("c1", 0, 0.1)
	tampered.Privacy.EpsSpent = 3
	infeasible := shardRec("c2", 0, 0.5)
	infeasible.Status, infeasible.Metrics = StatusInfeasible, nil
	fromStore := shardRec("c0", 0, 0.4)
	b, err := OpenShard(dir, 1, 2, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, b, tampered, infeasible, fromStore, shardRec("c3", 0, 0.7))
	store := filepath.Join(dir, TrialsFile)
	before, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	_, err = MergeShards(dir, nil)
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a *ConflictError", err)
	}
	got := map[Key]string{}
	for _, d := range ce.Conflicts {
		got[d.Key] = strings.Join(d.Sources, ",") + " " + strings.Join(d.Fields, ",")
	}
	s0, s1 := ShardFile(0, 2), ShardFile(1, 2)
	want := map[Key]string{
		{"c0", 0}: TrialsFile + "," + s1 + " metrics.test_accuracy",
		{"c1", 0}: s0 + "," + s1 + " metrics.test_accuracy,privacy.eps_spent",
		{"c2", 0}: s0 + "," + s1 + " metrics,status",
	}
	if len(got) != len(want) {
		t.Errorf("conflicts %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("conflict of %v: %q, want %q", k, got[k], w)
		}
	}
	msg := err.Error()
	for _, w := range []string{dir, "3 trial(s) have records that differ beyond timing", "appended nothing",
		"D / M / ε=1 / trial 0 (cell c1): shards/" + s0 + ", shards/" + s1 + " differ in metrics.test_accuracy, privacy.eps_spent"} {
		if !strings.Contains(msg, w) {
			t.Errorf("the error lacks %q:\n%s", w, msg)
		}
	}
	if after, _ := os.ReadFile(store); string(after) != string(before) {
		t.Errorf("the refused merge changed the store:\n%s", after)
	}
	if err := os.Rename(ShardPath(dir, 1, 2), filepath.Join(t.TempDir(), s1)); err != nil {
		t.Fatal(err)
	}
	res, err := MergeShards(dir, nil)
	if err != nil || res.Added != 2 {
		t.Fatalf("merge without the wrong shard: %v, %+v", err, res)
	}
}

// writeShards writes each list of records as one shard file of len(shards)
// in dir, closed.
func writeShards(t *testing.T, dir string, shards ...[]Record) {
	t.Helper()
	for i, recs := range shards {
		s, err := OpenShard(dir, i, len(shards), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		appendAll(t, s, recs...)
	}
}

// TestMergeShardsFilesChangedMeanwhile: MergeShards reads the shard files
// twice, to decide and then to append, holding only digests. A shard that
// goes on appending between the reads has only what the first read saw
// merged (the next merge adds the rest); a shard file whose records
// changed or went away between them stops the merge with the file named,
// and the store is cut back to its bytes before the merge, although the
// lines of the shard read before it were appended (and, more than
// flushBytes of them, written) already.
func TestMergeShardsFilesChangedMeanwhile(t *testing.T) {
	const first = 400 // shard 0's records: more than flushBytes
	setup := func(t *testing.T) (dir string, before []byte) {
		dir = filepath.Join(t.TempDir(), "out")
		store, err := Open(dir, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		appendAll(t, store, shardRec("c0", 0, 0.3))
		var shard0 []Record
		for i := range first {
			shard0 = append(shard0, shardRec("c1", i, 0.9))
		}
		writeShards(t, dir, shard0, []Record{shardRec("c2", 0, 0.5), shardRec("c2", 1, 0.6)})
		if st, err := os.Stat(ShardPath(dir, 0, 2)); err != nil || st.Size() <= flushBytes {
			t.Fatalf("shard 0 holds %v bytes (%v), want more than %d", st.Size(), err, flushBytes)
		}
		before, err = os.ReadFile(filepath.Join(dir, TrialsFile))
		if err != nil {
			t.Fatal(err)
		}
		return dir, before
	}
	t.Run("grown", func(t *testing.T) {
		dir, _ := setup(t)
		res, err := mergeShards(dir, nil, func() {
			s, err := OpenShard(dir, 1, 2, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			appendAll(t, s, shardRec("c2", 2, 0.7))
		})
		if err != nil || res.Read != first+2 || res.Added != first+2 {
			t.Fatalf("merge: %v, %+v; want %d read and added", err, res, first+2)
		}
		if recs, err := Read(dir, nil); err != nil || len(recs) != 1+first+2 {
			t.Fatalf("the store holds %d records (%v), want %d: the one appended meanwhile waits for the next merge", len(recs), err, 1+first+2)
		}
		if res, err := MergeShards(dir, nil); err != nil || res.Read != first+3 || res.Added != 1 {
			t.Fatalf("second merge: %v, %+v; want the record appended meanwhile added", err, res)
		}
	})
	for _, tc := range []struct {
		name   string
		shard1 []Record // what shard 1's file holds from between on
	}{
		{"edited", []Record{shardRec("c2", 0, 0.5), shardRec("c2", 1, 0.1)}},
		{"shortened", []Record{shardRec("c2", 0, 0.5)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, before := setup(t)
			_, err := mergeShards(dir, nil, func() {
				var b []byte
				for i := range tc.shard1 {
					line, err := AppendRecord(nil, &tc.shard1[i])
					if err != nil {
						t.Fatal(err)
					}
					b = append(append(b, line...), '\n')
				}
				if err := os.WriteFile(ShardPath(dir, 1, 2), b, 0o644); err != nil {
					t.Fatal(err)
				}
			})
			if err == nil || !strings.Contains(err.Error(), ShardPath(dir, 1, 2)+" changed during the merge") || !strings.Contains(err.Error(), "nothing was appended") {
				t.Fatalf("merge: %v; want shard 1's file named as changed, nothing appended", err)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, TrialsFile)); string(after) != string(before) {
				t.Errorf("the store changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// TestMergeShardsListsFieldsOfListedConflicts: a shard of other code
// conflicts in every trial; the merge holds the first record of only the
// conflicts its error lists (conflictListMax), and those have their fields.
func TestMergeShardsListsFieldsOfListedConflicts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	const n = conflictListMax + 5
	var a, b []Record
	for i := range n {
		a = append(a, shardRec("c", i, 0.5))
		other := shardRec("c", i, 0.5)
		other.Metrics["test_accuracy"] = 0.25
		b = append(b, other)
	}
	writeShards(t, dir, a, b)
	_, err := MergeShards(dir, nil)
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != n {
		t.Fatalf("err = %v, want a *ConflictError of %d trials", err, n)
	}
	for i, d := range ce.Conflicts {
		want := ""
		if i < conflictListMax {
			want = "metrics.test_accuracy"
		}
		if d.Key != (Key{"c", i}) || strings.Join(d.Fields, ",") != want || len(d.Sources) != 2 || d.Label != "M" {
			t.Errorf("conflict %d: %+v; want trial %d, fields %q", i, d, i, want)
		}
	}
	if msg := err.Error(); !strings.Contains(msg, "… and 5 more") || strings.Count(msg, "differ in metrics.test_accuracy") != conflictListMax {
		t.Errorf("the error does not list %d conflicts and count 5 more:\n%s", conflictListMax, msg)
	}
	if _, err := os.Stat(filepath.Join(dir, TrialsFile)); err != nil {
		t.Fatal(err)
	}
	if recs, err := Read(dir, nil); err != nil || len(recs) != 0 {
		t.Errorf("the store holds %d records (%v), want none", len(recs), err)
	}
}

// TestMergeShardsWithoutShards is an error naming the directory.
func TestMergeShardsWithoutShards(t *testing.T) {
	dir := t.TempDir()
	if _, err := MergeShards(dir, nil); err == nil {
		t.Fatal("merge of a directory without shards succeeded")
	}
}

// TestUnmergedShards: only settled shard records of wanted trials the store
// does not hold count, each trial once; a merge clears them.
func TestUnmergedShards(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	none := func(Key) bool { return false }
	all := func(string) bool { return true }
	if err := UnmergedShards(dir, all, none, nil); err != nil {
		t.Fatalf("no shards: %v", err)
	}
	failed := shardRec("c1", 3, 0)
	failed.Status, failed.Error = StatusFailed, "boom"
	a, _, err := openShardAll(dir, 0, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, a, shardRec("c1", 0, 0.9), shardRec("c1", 1, 0.8), failed, shardRec("old", 0, 0.1))
	b, _, err := openShardAll(dir, 1, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, b, shardRec("c1", 1, 0.8), shardRec("c1", 2, 0.7))
	want := func(cell string) bool { return cell == "c1" } // "old": a cell the spec no longer has
	done := func(k Key) bool { return k == Key{"c1", 2} }
	err = UnmergedShards(dir, want, done, nil)
	var um *UnmergedShardsError
	if !errors.As(err, &um) {
		t.Fatalf("err = %v, want *UnmergedShardsError", err)
	}
	// c1/0 and c1/1 (in both files, counted once); not the failed c1/3,
	// the merged c1/2 or the unwanted old/0.
	if um.Trials != 2 || strings.Join(um.Files, ",") != ShardFile(0, 2) {
		t.Errorf("got %d trials in %v, want 2 in [%s]", um.Trials, um.Files, ShardFile(0, 2))
	}
	if msg := um.Error(); !strings.Contains(msg, "dplab merge "+dir) {
		t.Errorf("error does not say to merge: %s", msg)
	}
	if _, err := MergeShards(dir, nil); err != nil {
		t.Fatal(err)
	}
	merged := map[Key]bool{}
	if err := Scan(dir, nil, func(r *Record) {
		if r.Settled() {
			merged[r.Key()] = true
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := UnmergedShards(dir, want, func(k Key) bool { return merged[k] }, nil); err != nil {
		t.Errorf("after the merge: %v", err)
	}
}
