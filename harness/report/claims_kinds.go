package report

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/dplab/dplab/internal/fielddoc"
)

// What each check kind decides and a small [[claim]] of it, for "dplab
// kinds" (experiments/README.md, "Paper claims", states the rules). Each
// example is valid in the kinds' test spec (kinds_test.go: dataset "Lin",
// mechanisms "AdaSSP" and "Ridge" at ε 0.5 and 2, metric test_mse, a
// [[curve]] "RDP" of the Gaussian mechanism, σ = 1, at α = 2 and 4), where
// TestClaimCheckExamples runs and checks it.
const (
	betterDoc = "a better than b at each point: a's 95% CI lies entirely on the better side of b's " +
		"(the metric's own direction, or better); overlapping CIs tie, as in the tables."
	betterExample = `id = "ridge-beats-adassp"
quote = "the non-private baseline is more accurate than AdaSSP"
where = "§5, Fig. 1"
quantity = "metric:test_mse"
a = { mechanism = "Ridge" }
b = { mechanism = "AdaSSP" }`

	ratioDoc = "a / b in a region at each point: the paper's value within a tolerance (or as a bound), " +
		"or min and/or max; the ratio's interval is formed from the sides' 95% CIs."
	ratioExample = `id = "adassp-near-ridge"
quote = "at ε = 2 AdaSSP's error is close to the non-private one"
where = "§5, Table 2"
quantity = "metric:test_mse"
epsilon = 2
a = { mechanism = "AdaSSP" }
b = { mechanism = "Ridge" }
min = 0.5
max = 2
reading = "close: within a factor 2"`

	differenceDoc = "a − b in a region at each point: the paper's value within a tolerance (or as a bound), " +
		"or min and/or max; the difference's interval is formed from the sides' 95% CIs."
	differenceExample = `id = "adassp-gap"
quote = "AdaSSP's test MSE exceeds the non-private one by at most 0.1"
where = "§5"
quantity = "metric:test_mse"
a = { mechanism = "AdaSSP" }
b = { mechanism = "Ridge" }
paper_value = 0.1
paper_is = "upper_bound"`

	valueDoc = "a's value in a region at each point: the paper's value within a tolerance (or as a bound), " +
		"or min and/or max."
	valueExample = `id = "rdp-at-order-2"
quote = "the Gaussian mechanism with σ = 1 is (2, 1)-RDP"
where = "Prop. 7"
quantity = "curve"
curve = "RDP"
x = 2
paper_value = 1
tolerance = 0.01`

	crossoverDoc = "where b starts to be better than a along an axis (over: ε, a swept params key, or x): " +
		"below at (or the paper's paper_value) a is better, above it b is, as better decides."
	crossoverExample = `id = "adassp-overtakes"
quote = "above ε = 1 AdaSSP does better than the baseline"
where = "Fig. 2"
quantity = "metric:test_mse"
a = { mechanism = "Ridge" }
b = { mechanism = "AdaSSP" }
at = 1`

	monotoneDoc = "a increasing or decreasing along an axis (over: ε, a swept params key, or x): " +
		"each step's change, next − previous, lies above 0 or below; with a side b, " +
		"the gap a − b follows the axis instead (\"the gap narrows as ε grows\")."
	monotoneExample = `id = "adassp-improves"
quote = "AdaSSP's error falls as ε grows"
where = "Fig. 1"
quantity = "metric:test_mse"
mechanism = "AdaSSP"
direction = "decreasing"`
)

// CheckKinds lists the [[claim]] check kinds, sorted.
func CheckKinds() []string { return slices.Sorted(maps.Keys(checkKinds)) }

// claimKindDocs documents every check kind as a [[claim]] block's "kind":
// its doc, example and the keys that apply to it (checkKind.applies).
func claimKindDocs() []KindDoc {
	var out []KindDoc
	for _, name := range CheckKinds() {
		k := checkKinds[name]
		var keys []fielddoc.Field
		for _, f := range fielddoc.Fields(reflect.TypeOf(claimSpec{}), kindDocs) {
			if k.applies(f.Key) {
				keys = append(keys, f)
			}
		}
		out = append(out, KindDoc{Block: "claim", Kind: name, Key: "check", Doc: k.doc, Example: strings.TrimSpace(k.example), Params: keys})
	}
	return out
}
