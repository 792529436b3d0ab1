package datasets

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dplab/dplab/internal/strictoml"
)

// sameBits reports how a and b differ (task, name, shape, feature names, any
// value of X or Y bit for bit), or "" when they are identical.
func sameBits(a, b *Loaded) string {
	pa, pb := parsedParts(a), parsedParts(b)
	for k := range pa {
		x, y := pa[k], pb[k]
		if (x == nil) != (y == nil) {
			return fmt.Sprintf("part %d: present %v vs %v", k, x != nil, y != nil)
		}
		if x == nil {
			continue
		}
		if x.Name != y.Name || x.Task != y.Task || (x.Features == nil) != (y.Features == nil) || !slices.Equal(x.Features, y.Features) {
			return fmt.Sprintf("part %d: name %q/%q, task %v/%v, features %d/%d", k, x.Name, y.Name, x.Task, y.Task, len(x.Features), len(y.Features))
		}
		xr, xc := x.X.Dims()
		yr, yc := y.X.Dims()
		if xr != yr || xc != yc || len(x.Y) != len(y.Y) {
			return fmt.Sprintf("part %d: %d × %d (%d targets) vs %d × %d (%d)", k, xr, xc, len(x.Y), yr, yc, len(y.Y))
		}
		for i := 0; i < xr; i++ {
			if r, s := x.X.RawRowView(i), y.X.RawRowView(i); !slices.EqualFunc(r, s, sameFloat) {
				return fmt.Sprintf("part %d: row %d differs", k, i)
			}
		}
		if !slices.EqualFunc(x.Y, y.Y, sameFloat) {
			return fmt.Sprintf("part %d: targets differ", k)
		}
	}
	return ""
}

func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// testParsed is a small Loaded with a fixed split, feature names, a NaN and
// a negative zero.
func testParsed(seed float64) *Loaded {
	tr := newDataset("t", Binary, 3, 2, []float64{seed, math.NaN(), math.Copysign(0, -1), 1e-310, math.MaxFloat64, -2.5}, []float64{0, 1, 1}, []string{"a", "b=é"})
	te := newDataset("t", Binary, 1, 2, []float64{7, 8}, []float64{0}, nil)
	return &Loaded{Train: tr, Test: te}
}

// countingParse returns a parse function returning want and counting calls.
func countingParse(want *Loaded, calls *int) func() (*Loaded, error) {
	return func() (*Loaded, error) { *calls++; return want, nil }
}

var testFiles = []VerifiedFile{{Rel: "t/a.csv", SHA256: strings.Repeat("ab", 32)}}

// entryPath is the file of (name, params, files)'s entry in c.
func entryPath(c *ParseCache, name string, params []byte, files []VerifiedFile) string {
	k := parseKey(name, params, files)
	return filepath.Join(c.dir, fmt.Sprintf("%x.bin", k[:16]))
}

// TestParseCacheRoundTrip: the first load parses and stores, the second,
// from another cache on the same directory (another process), reads the
// entry back bit for bit (NaN, −0, a subnormal, feature names, a nil
// feature list) without parsing; other params, another dataset name or
// another checksum of a file (a changed source) miss.
func TestParseCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := testParsed(1.5)
	calls := 0
	c := NewParseCache(dir)
	got, err := c.load("t", []byte(`{}`), testFiles, countingParse(want, &calls))
	if err != nil || got != want || calls != 1 || c.Misses() != 1 {
		t.Fatalf("first load: %v, parsed %d times", err, calls)
	}
	c2 := NewParseCache(dir)
	got, err = c2.load("t", []byte(`{}`), testFiles, countingParse(want, &calls))
	if err != nil || calls != 1 || c2.Hits() != 1 {
		t.Fatalf("second load: %v, parsed %d times, %d hits", err, calls, c2.Hits())
	}
	if d := sameBits(got, want); d != "" {
		t.Fatalf("entry read back differs: %s", d)
	}
	if got.Test.Features != nil {
		t.Error("a nil feature list came back non-nil")
	}
	changed := []VerifiedFile{{Rel: "t/a.csv", SHA256: strings.Repeat("cd", 32)}}
	for _, m := range []struct {
		what   string
		name   string
		params string
		files  []VerifiedFile
	}{{"other params", "t", `{"Preset":"code"}`, testFiles}, {"other dataset", "u", `{}`, testFiles}, {"changed file", "t", `{}`, changed}} {
		other := testParsed(2.5)
		before := calls
		got, err := c2.load(m.name, []byte(m.params), m.files, countingParse(other, &calls))
		if err != nil || calls != before+1 || got != other {
			t.Errorf("%s: not parsed (err %v): the entry of other inputs was used", m.what, err)
		}
	}
}

// TestParseCacheBadEntriesAreParsed: every kind of damaged entry (truncated
// anywhere, a flipped bit anywhere, another key, an empty file, a huge
// length) is ignored — the loader parses, no error — and rewritten whole.
func TestParseCacheBadEntriesAreParsed(t *testing.T) {
	dir := t.TempDir()
	want := testParsed(1.5)
	c := NewParseCache(dir)
	calls := 0
	if _, err := c.load("t", []byte(`{}`), testFiles, countingParse(want, &calls)); err != nil {
		t.Fatal(err)
	}
	path := entryPath(c, "t", []byte(`{}`), testFiles)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if _, err := NewParseCache(other).load("u", []byte(`{}`), testFiles, countingParse(want, &calls)); err != nil {
		t.Fatal(err)
	}
	otherKey, err := os.ReadFile(entryPath(NewParseCache(other), "u", []byte(`{}`), testFiles))
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{"empty": nil, "another key": otherKey, "trailing byte": append(slices.Clone(good), 0)}
	for _, n := range []int{1, 8, parseCacheHeader - 1, parseCacheHeader + 3, len(good) / 2, len(good) - 4, len(good) - 1} {
		bad["truncated to "+strconv.Itoa(n)] = good[:n]
	}
	for i := range good {
		b := slices.Clone(good)
		b[i] ^= 0x10
		bad["bit flipped at "+strconv.Itoa(i)] = b
	}
	huge := slices.Clone(good)
	for i := parseCacheHeader + 8 + 8; i < parseCacheHeader+8+16; i++ { // the first part's name length
		huge[i] = 0xff
	}
	bad["huge length"] = huge
	for what, b := range bad {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fresh := testParsed(3.5)
		before := calls
		got, err := NewParseCache(dir).load("t", []byte(`{}`), testFiles, countingParse(fresh, &calls))
		if err != nil || calls != before+1 || got != fresh {
			t.Errorf("%s: used the damaged entry (err %v)", what, err)
			continue
		}
		if rewritten, _ := os.ReadFile(path); len(rewritten) != len(good) {
			t.Errorf("%s: the entry was not rewritten whole", what)
		}
	}
}

// TestParseCacheConcurrentProcesses: caches on one directory (processes)
// loading the same entry at once all get the data, with no error, and
// leave one whole entry and no temporary file.
func TestParseCacheConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	want := testParsed(1.5)
	var wg sync.WaitGroup
	errs := make([]string, 16)
	for g := range errs {
		wg.Go(func() {
			for range 20 {
				got, err := NewParseCache(dir).load("t", []byte(`{}`), testFiles, func() (*Loaded, error) { return testParsed(1.5), nil })
				if err != nil {
					errs[g] = err.Error()
					return
				}
				if d := sameBits(got, want); d != "" {
					errs[g] = d
					return
				}
			}
		})
	}
	wg.Wait()
	for g, e := range errs {
		if e != "" {
			t.Errorf("goroutine %d: %s", g, e)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || !strings.HasSuffix(ents[0].Name(), ".bin") {
		t.Errorf("directory holds %v, want one entry", ents)
	}
}

// TestParseCacheBounded: an entry above MaxEntry is not stored; past
// MaxBytes the least recently used entries (a hit counts as a use) go; Clear
// removes every entry and leaves other files.
func TestParseCacheBounded(t *testing.T) {
	dir := t.TempDir()
	c := NewParseCache(dir)
	size, ok := parsedSize(testParsed(0))
	if !ok {
		t.Fatal("testParsed is not storable")
	}
	c.MaxBytes, c.MaxEntry = 2*size, size
	calls := 0
	names := []string{"a", "b", "c"}
	old := time.Now().Add(-time.Hour)
	for i, name := range names[:2] {
		if _, err := c.load(name, nil, testFiles, countingParse(testParsed(0), &calls)); err != nil {
			t.Fatal(err)
		}
		mt := old.Add(time.Duration(i) * time.Minute) // a stored first
		os.Chtimes(entryPath(c, name, nil, testFiles), mt, mt)
	}
	if _, err := c.load("a", nil, testFiles, countingParse(testParsed(0), &calls)); err != nil || c.Hits() != 1 { // a used last
		t.Fatalf("a not read back: %v", err)
	}
	if _, err := c.load("c", nil, testFiles, countingParse(testParsed(0), &calls)); err != nil {
		t.Fatal(err)
	}
	for name, kept := range map[string]bool{"a": true, "b": false, "c": true} {
		if _, err := os.Stat(entryPath(c, name, nil, testFiles)); (err == nil) != kept {
			t.Errorf("entry %s kept = %v, want %v", name, err == nil, kept)
		}
	}
	big := testParsed(0)
	big.All = newDataset("t", Binary, 1, 1, []float64{1}, []float64{1}, nil)
	if _, err := c.load("big", nil, testFiles, countingParse(big, &calls)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entryPath(c, "big", nil, testFiles)); err == nil {
		t.Error("an entry above MaxEntry was stored")
	}
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, bytes, err := c.Clear()
	if err != nil || n != 2 || bytes != 2*size {
		t.Errorf("Clear removed %d files, %d bytes (%v); want 2, %d", n, bytes, err, 2*size)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "keep.txt" {
		t.Errorf("after Clear the directory holds %v, want keep.txt only", ents)
	}
}

// TestParseCacheDisabled: DPLAB_NO_PARSE_CACHE=1 disables the default cache
// (every load parses, nothing written); "0" does not.
func TestParseCacheDisabled(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv(NoParseCacheEnv, "1")
	if d := DefaultParseCacheDir(); d != "" {
		t.Fatalf("DefaultParseCacheDir() = %q with %s=1, want \"\"", d, NoParseCacheEnv)
	}
	t.Setenv(NoParseCacheEnv, "0")
	if d := DefaultParseCacheDir(); !strings.HasSuffix(d, filepath.Join("dplab", "parsed")) {
		t.Fatalf("DefaultParseCacheDir() = %q with %s=0", d, NoParseCacheEnv)
	}
	e, err := Lookup("ijcnn1-binary")
	if err != nil {
		t.Fatal(err)
	}
	dir := ijcnn1Fixture(t, "1 3:1\n-1 11:0.125\n")
	c := NewParseCache("")
	for range 2 {
		if _, err := e.LoadVerified(dir, ijcnn1Verified(dir), nil, c); err != nil {
			t.Fatal(err)
		}
	}
	if c.Hits()+c.Misses() != 0 {
		t.Errorf("a disabled cache was used: %d hits, %d misses", c.Hits(), c.Misses())
	}
}

// ijcnn1Fixture writes small ijcnn1 files whose test file is test.
func ijcnn1Fixture(t *testing.T, test string) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"ijcnn1/ijcnn1": "-1.0 1:1 11:-0.5\n1.0 2:1 22:0.25\n", "ijcnn1/ijcnn1.t": test})
	return dir
}

// ijcnn1Verified are the fixture's files as VerifyFiles returns them (their
// real SHA-256s; the registry's would not match the fixture).
func ijcnn1Verified(dir string) []VerifiedFile {
	var out []VerifiedFile
	for _, rel := range []string{"ijcnn1/ijcnn1", "ijcnn1/ijcnn1.t"} {
		b, _ := os.ReadFile(filepath.Join(dir, rel))
		out = append(out, VerifiedFile{Rel: rel, SHA256: sha256Hex(b)})
	}
	return out
}

// TestLoadVerifiedThroughARegisteredLoader: Entry.LoadVerified keys a real
// loader's entry by its files' checksums and its params: a rewritten file
// (new checksum) is parsed again, and a params change too.
func TestLoadVerifiedThroughARegisteredLoader(t *testing.T) {
	e, err := Lookup("ijcnn1-binary")
	if err != nil {
		t.Fatal(err)
	}
	c := NewParseCache(t.TempDir())
	dir := ijcnn1Fixture(t, "1 3:1\n-1 11:0.125\n")
	for i := range 2 {
		got, err := e.LoadVerified(dir, ijcnn1Verified(dir), nil, c)
		if err != nil {
			t.Fatal(err)
		}
		want, err := e.Load(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := sameBits(got, want); d != "" || c.Hits() != int64(i) {
			t.Fatalf("load %d: %s (%d hits)", i+1, d, c.Hits())
		}
	}
	writeFiles(t, dir, map[string]string{"ijcnn1/ijcnn1.t": "1 3:1\n-1 11:0.25\n"})
	got, err := e.LoadVerified(dir, ijcnn1Verified(dir), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if got.All.X.At(3, 10) != 0.25 || c.Misses() != 2 {
		t.Errorf("changed file: X[3,10] = %v, %d misses; want the new file parsed", got.All.X.At(3, 10), c.Misses())
	}
	if _, err := e.LoadVerified(dir, ijcnn1Verified(dir), strictoml.DecodeKV([]string{"bogus=1"}), c); err == nil || !strings.Contains(err.Error(), "params") {
		t.Errorf("bad params: err = %v, want the params error", err)
	}
}

// TestParseCacheStoresEveryField: the entry layout stores every field of a
// Dataset (but its memo) and of a Loaded; a new field must be added to
// writeParsed and crcReader.dataset, then to this list.
func TestParseCacheStoresEveryField(t *testing.T) {
	for typ, want := range map[reflect.Type][]string{
		reflect.TypeFor[Dataset](): {"Name", "Task", "X", "Y", "Features", "memo"},
		reflect.TypeFor[Loaded]():  {"All", "Train", "Test"},
	} {
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s has fields %v; the parse cache stores %v", typ, got, want)
		}
	}
}

// loaderFingerprintsFile records loaderVersion and a fingerprint of each
// real loader's output on the shared data (TestLoaderFingerprints).
const loaderFingerprintsFile = "testdata/loader_fingerprints.txt"

// loaderFingerprint hashes a Loaded: shapes, names, tasks, feature names
// and every value at 9 significant digits (as the mechanisms' fingerprints,
// so that a platform's last-bit rounding does not count).
func loaderFingerprint(l *Loaded) string {
	h := sha256.New()
	w := bufio.NewWriter(h)
	for k, d := range parsedParts(l) {
		if d == nil {
			continue
		}
		n, cols := d.X.Dims()
		fmt.Fprintf(w, "part %d %s %v %d %d %q\n", k, d.Name, d.Task, n, cols, d.Features)
		for i := 0; i < n; i++ {
			for _, v := range d.X.RawRowView(i) {
				w.WriteString(strconv.FormatFloat(v, 'g', 9, 64))
				w.WriteByte(' ')
			}
			fmt.Fprintf(w, "| %s\n", strconv.FormatFloat(d.Y[i], 'g', 9, 64))
		}
	}
	w.Flush()
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// TestRealDatasetsParseCache: with DPLAB_DATA set, for every real check
// (each file-backed loader, with the params variants of realChecks) the
// verified files are loaded through a fresh parse cache (a miss that
// stores and returns the loader's output), then through another cache on
// the same directory (a hit), which must equal the first bit for bit. It also checks the loaders'
// fingerprints against loaderFingerprintsFile: an output that changed while
// loaderVersion stayed fails (bump it, then DPLAB_UPDATE_FINGERPRINTS=1).
func TestRealDatasetsParseCache(t *testing.T) {
	dir := sharedDataDir(t)
	cacheDir := t.TempDir()
	verify := NewVerifyCache("")
	var mu sync.Mutex
	prints := map[string]string{}
	t.Run("loaders", func(t *testing.T) {
		for key, rc := range realChecks {
			name, _, _ := strings.Cut(key, "/")
			t.Run(key, func(t *testing.T) {
				t.Parallel()
				e, err := Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				if miss := e.Missing(dir); len(miss) > 0 {
					t.Skipf("absent from %s: %v", dir, miss)
				}
				files, err := e.VerifyFiles(dir, verify)
				if err != nil {
					t.Fatal(err)
				}
				// The miss returns what the loader returned (TestParseCacheRoundTrip):
				// the parse the hit must equal.
				var want *Loaded
				fileBacked := len(e.Info.Files) > 0
				for i, c := range []*ParseCache{NewParseCache(cacheDir), NewParseCache(cacheDir)} {
					got, err := e.LoadVerified(dir, files, strictoml.DecodeKV(rc.kv), c)
					if err != nil {
						t.Fatal(err)
					}
					if hits := c.Hits(); fileBacked && hits != int64(i) || !fileBacked && hits != 0 {
						t.Errorf("load %d: %d hits (file-backed %v)", i+1, hits, fileBacked)
					}
					if i == 0 {
						want = got
					} else if d := sameBits(got, want); d != "" {
						t.Errorf("the entry read back differs from the parse: %s", d)
					}
				}
				if fileBacked {
					mu.Lock()
					prints[key] = loaderFingerprint(want)
					mu.Unlock()
				}
			})
		}
	})
	checkLoaderFingerprints(t, prints)
}

// checkLoaderFingerprints compares prints with loaderFingerprintsFile.
func checkLoaderFingerprints(t *testing.T, prints map[string]string) {
	keys := slices.Sorted(maps.Keys(prints))
	var b strings.Builder
	fmt.Fprintf(&b, "# loaderVersion, and each real loader's output fingerprint on the shared data (TestRealDatasetsParseCache)\nloaderVersion %d\n", loaderVersion)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %s\n", k, prints[k])
	}
	if os.Getenv("DPLAB_UPDATE_FINGERPRINTS") == "1" {
		if err := os.WriteFile(loaderFingerprintsFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(loaderFingerprintsFile)
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) == 2 && !strings.HasPrefix(line, "#") {
			recorded[f[0]] = f[1]
		}
	}
	var changed []string
	for _, k := range keys {
		if recorded[k] != prints[k] {
			changed = append(changed, k)
		}
	}
	switch {
	case recorded["loaderVersion"] != strconv.Itoa(loaderVersion):
		t.Errorf("%s records loaderVersion %s, the code has %d: rerun with DPLAB_UPDATE_FINGERPRINTS=1", loaderFingerprintsFile, recorded["loaderVersion"], loaderVersion)
	case len(changed) > 0:
		t.Errorf("the output of %v changed (or is not recorded) while loaderVersion stayed %d: parse cache entries of the old output would be read back. Bump loaderVersion (datasets/parsecache.go), then rerun with DPLAB_UPDATE_FINGERPRINTS=1", changed, loaderVersion)
	}
}
