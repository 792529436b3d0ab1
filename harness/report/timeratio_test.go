package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

const timeRatioSpec = `name = "tr"
seed = 1
trials = 3
epsilon = [0.5, 2]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 300, d = 4 }
[[mechanism]]
name = "linear-mixing"
label = "Mixing"
[[mechanism]]
name = "adassp"
label = "AdaSSP"
[[mechanism]]
name = "ridge"
label = "Ridge"
[[figure]]
name = "mse"
metric = "test_mse"
time_ratio = ["AdaSSP", "Mixing"]
`

// TestTimeRatioAndRelations: a figure's time_ratio puts the ratio of the two
// mechanisms' mean wall times at the largest ε (recomputed from the stored
// records) in the footnote (issue 13: not in a second panel title line), and the footnote names each private
// ledger's neighbouring relation (GaussMix is zero-out, AdaSSP's Gaussians
// add/remove) as recorded per trial.
func TestTimeRatioAndRelations(t *testing.T) {
	s := spectest.MustParse(t, timeRatioSpec)
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(s, run.Options{OutDir: dir, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	wall := map[string]float64{}
	n := map[string]float64{}
	for _, r := range recs {
		if r.Label == "Mixing" && r.Privacy.Relation != accounting.RelationZeroOut || r.Label == "AdaSSP" && r.Privacy.Relation != accounting.RelationAddRemove {
			t.Errorf("%s: relation %q", r.Label, r.Privacy.Relation)
		}
		if float64(r.Epsilon) == 2 {
			wall[r.Label] += r.WallSeconds
			n[r.Label]++
		}
	}
	v, err := newView(s, recs)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := decodeOutputs(s)
	if err != nil {
		t.Fatal(err)
	}
	fig := outs.figures[0].Draw(&View{v})
	// issue 13: the ratio is in the footnote, not a second panel title line.
	if fig.Panels[0].Note != "" {
		t.Errorf("panel note %q, want none", fig.Panels[0].Note)
	}
	const head = "AdaSSP / Mixing mean wall time per fit at ε = 2: "
	_, after, found := strings.Cut(captionText(fig.Caption), head)
	if !found {
		t.Fatalf("footnote %q lacks %q", captionText(fig.Caption), head)
	}
	want := (wall["AdaSSP"] / n["AdaSSP"]) / (wall["Mixing"] / n["Mixing"])
	if got, _, _ := strings.Cut(after, "×"); got+"×" != fmt.Sprintf("%.2f×", want) {
		t.Errorf("ratio %q, want %.2f×", got, want)
	}
	if !strings.Contains(captionText(fig.Caption), "neighbouring: add/remove (AdaSSP), zero-out (Mixing)") {
		t.Errorf("footnote %q", captionText(fig.Caption))
	}
	for _, bad := range []string{`["AdaSSP"]`, `["AdaSSP", "AdaSSP"]`, `["AdaSSP", "Nope"]`} {
		src := strings.Replace(timeRatioSpec, `["AdaSSP", "Mixing"]`, bad, 1)
		if _, err := parseChecked("t.toml", src); err == nil || !strings.Contains(err.Error(), "time_ratio") {
			t.Errorf("time_ratio = %s: %v", bad, err)
		}
	}
}
