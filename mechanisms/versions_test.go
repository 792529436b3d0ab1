package mechanisms

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/fielddoc"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// fingerprintsFile records each mechanism's Info.Version and the
// fingerprint of its release at that version (TestVersionFingerprints).
const fingerprintsFile = "testdata/fingerprints.txt"

// fingerprint hashes what a mechanism's test configuration releases and
// records on a fixed input: for each task, a fit on datatest.Tiny (400 rows,
// 5 features) at ε = 1, δ = 1e-5 with fixed streams, and of it the model's
// predictions at the first 50 rows and at 0, the noise, the traces, the ε
// its ledger spends, the calibration claim, the target scope and the
// assumptions. Numbers enter at 9 significant digits, so that the last
// bits of a platform's rounding do not count.
func fingerprint(t *testing.T, info Info) string {
	t.Helper()
	e, err := Lookup(info.Name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.Test()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, task := range info.Tasks {
		data := tinyData(t, task, 400, 5)
		b := Budget{Epsilon: 1, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
		r, err := m.Fit(context.Background(), data, b, rngs.New(rngs.Derive("version-fingerprint", info.Name)))
		if err != nil {
			t.Fatalf("%s on %s: %v", info.Name, task, err)
		}
		g, err := accounting.Config{}.Epsilon(r.Event, b.Delta)
		if err != nil {
			t.Fatalf("%s on %s: %v", info.Name, task, err)
		}
		fmt.Fprintf(h, "task %v\nepsilon %s\ncalibrated %v\nscope %q\nassumptions %q\n", task, num(g.Epsilon), r.Calibrated, r.TargetScope, r.Assumptions)
		for i := 0; i < min(50, data.Rows()); i++ {
			fmt.Fprintf(h, "predict %s\n", num(r.Model.Predict(data.X.RawRowView(i))))
		}
		fmt.Fprintf(h, "predict0 %s\n", num(r.Model.Predict(make([]float64, data.Cols()))))
		writeMap(h, "noise", r.Noise)
		for _, k := range slices.Sorted(maps.Keys(r.Trace)) {
			fmt.Fprintf(h, "trace %s:", k)
			for _, v := range r.Trace[k] {
				fmt.Fprintf(h, " %s", num(v))
			}
			fmt.Fprintln(h)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// writeMap writes m to h, sorted by key.
func writeMap(h hash.Hash, name string, m map[string]float64) {
	fmt.Fprintf(h, "%s:", name)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(h, " %s=%s", k, num(m[k]))
	}
	fmt.Fprintln(h)
}

// num formats x at 9 significant digits.
func num(x float64) string { return strconv.FormatFloat(x, 'g', 9, 64) }

// recordedVersion is one line of fingerprintsFile.
type recordedVersion struct {
	version     int
	fingerprint string
}

// readFingerprints reads fingerprintsFile ("name version fingerprint" lines;
// # starts a comment).
func readFingerprints(t *testing.T) map[string]recordedVersion {
	t.Helper()
	f, err := os.Open(fingerprintsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]recordedVersion{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		v, err := strconv.Atoi(fs[min(1, len(fs)-1)])
		if len(fs) != 3 || err != nil {
			t.Fatalf("%s:%d: want \"name version fingerprint\", got %q", fingerprintsFile, n, line)
		}
		out[fs[0]] = recordedVersion{v, fs[2]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVersionFingerprints keeps Info.Version, part of every cell key, in
// step with what a mechanism releases: a mechanism whose fingerprint (its
// release on a fixed input and seed) differs from the one recorded for its
// version fails, asking for a version bump, since stored trials of the old
// behaviour would otherwise be reused. A new version, or a new mechanism,
// fails until go generate ./mechanisms records it; go generate never
// records a changed fingerprint under an unchanged version.
func TestVersionFingerprints(t *testing.T) {
	recorded := readFingerprints(t)
	update := os.Getenv(fielddoc.UpdateEnv) != ""
	var lines []string
	for _, info := range List() {
		fp := fingerprint(t, info)
		lines = append(lines, fmt.Sprintf("%s %d %s", info.Name, info.Version, fp))
		r, ok := recorded[info.Name]
		switch {
		case ok && r.version == info.Version && r.fingerprint != fp:
			t.Errorf("%s: its release changed (fingerprint %s, recorded %s for version %d) but Info.Version is still %d: bump Info.Version in its registration, so that stored trials of the old behaviour are not reused, then run go generate ./mechanisms (if only its test params or the test's input changed, not its behaviour, delete its line of %s and run go generate ./mechanisms)",
				info.Name, fp, r.fingerprint, r.version, info.Version, fingerprintsFile)
			lines[len(lines)-1] = fmt.Sprintf("%s %d %s", info.Name, r.version, r.fingerprint)
		case ok && info.Version < r.version:
			t.Errorf("%s: Info.Version %d is below the recorded %d: versions only grow (stored trials are keyed by them)", info.Name, info.Version, r.version)
		case update:
		case !ok:
			t.Errorf("%s: no recorded fingerprint in %s: run go generate ./mechanisms", info.Name, fingerprintsFile)
		case r.version != info.Version:
			t.Errorf("%s: version %d is not recorded in %s (it records %d): run go generate ./mechanisms", info.Name, info.Version, fingerprintsFile, r.version)
		}
		delete(recorded, info.Name)
	}
	for name := range recorded {
		if !update {
			t.Errorf("%s: %s records a mechanism that is not registered: run go generate ./mechanisms", name, fingerprintsFile)
		}
	}
	if update && !t.Failed() {
		head := "# name, Info.Version and the fingerprint of its release at that version\n# (TestVersionFingerprints); written by go generate ./mechanisms.\n"
		if err := os.WriteFile(fingerprintsFile, []byte(head+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
