package run

import (
	"bytes"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/mechanisms"
)

// TestEvalRows: the rows a trial scores, which a predictions worker gets,
// are its metrics' parts (the binary defaults: test and training) and its
// tuning selection's: the test part for oracle tuning, the validation part
// for private tuning that selects on it; a spec of train metrics only
// scores the training rows alone.
func TestEvalRows(t *testing.T) {
	src := func(metrics string) string {
		return `name = "e"
seed = 1
trials = 1
epsilon = [1]
delta = "1e-5"
` + metrics + `
[[dataset]]
name = "synthetic-logistic"
params = { n = 100, d = 2 }
split = { test = 0.2, validation = 0.2 }

[[mechanism]]
name = "dpsgd"
label = "plain"

[[mechanism]]
name = "dpsgd"
label = "oracle"
[mechanism.tuning]
mode = "oracle"
candidates = { learning_rate = [0.1, 1] }

[[mechanism]]
name = "dpsgd"
label = "private"
[mechanism.tuning]
mode = "private"
select_on = "validation"
mean = 2
candidates = { learning_rate = [0.1, 1] }
`
	}
	data := &split{train: &datasets.Dataset{Task: datasets.Binary}, val: &datasets.Dataset{}, test: &datasets.Dataset{}}
	for _, tc := range []struct {
		metrics string
		want    map[string]mechanisms.EvalRows
	}{
		{"", map[string]mechanisms.EvalRows{
			"plain":   {Test: data.test, Train: data.train},
			"oracle":  {Test: data.test, Train: data.train},
			"private": {Test: data.test, Validation: data.val, Train: data.train},
		}},
		{`metrics = ["train_accuracy"]`, map[string]mechanisms.EvalRows{
			"plain":   {Train: data.train},
			"oracle":  {Test: data.test, Train: data.train},
			"private": {Validation: data.val, Train: data.train},
		}},
	} {
		s := spectest.MustParse(t, src(tc.metrics))
		cells := spectest.Cells(t, s)
		r := newRunner(s, cells, Options{Cache: &DataCache{}}, &bytes.Buffer{})
		for i := range cells {
			label := s.Mechanisms[cells[i].Mechanism].Label
			if got := r.evalRows(&cells[i], data); got != tc.want[label] {
				t.Errorf("metrics %q, %s: rows %s, want %s", tc.metrics, label, got.Roles(), tc.want[label].Roles())
			}
		}
	}
}
