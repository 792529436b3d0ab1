package equivalence

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/dplab/dplab/harness/docgen"
)

// ReportFile is the name of a Report in runs/equivalence/<spec>/.
const ReportFile = "equivalence.json"

// Check compares the evidence of spec name that fresh holds (made by its
// Refresh from the new run) with the one committed holds, both read and
// their claims evaluated as dplab docs does, with the current spec and
// code.
func Check(committed, fresh *docgen.Generator, name string) (*Report, error) {
	side := func(g *docgen.Generator) (Side, error) {
		ev, out, err := g.Evidence(name)
		if ev == nil {
			return Side{}, err
		}
		s := Side{Path: g.EvidencePath(name), Evidence: ev, ClaimsErr: err}
		if out != nil {
			s.Claims = out.Claims
		}
		return s, nil
	}
	old, err := side(committed)
	if err != nil {
		return nil, err
	}
	new, err := side(fresh)
	if err != nil {
		return nil, err
	}
	r := Compare(old, new)
	if old.ClaimsErr != nil && len(r.newKeys) > 0 {
		// The current spec's cells of a mechanism whose code version
		// changed have new keys, which the committed evidence lacks: its
		// claims are evaluated with its cells filed under the keys the
		// comparison paired them with.
		ev := old.Evidence.Rekeyed(r.newKeys)
		out, err := committed.Outputs(name, ev)
		old.ClaimsErr = err
		if out != nil {
			old.Claims = out.Claims
		}
		r = Compare(old, new)
	}
	return r, nil
}

// JSON returns the report as ReportFile holds it.
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	return append(b, '\n'), err
}

// ParseReport reads a ReportFile's bytes; name names it in errors.
func ParseReport(name string, b []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if r.Verdict != Pass && r.Verdict != Fail {
		return nil, fmt.Errorf("%s: verdict %q: want %q or %q", name, r.Verdict, Pass, Fail)
	}
	return &r, nil
}

// codeText is " (code V1, V2)", "" without versions (no trials).
func codeText(versions []string) string {
	if len(versions) == 0 {
		return ""
	}
	return " (code " + strings.Join(versions, ", ") + ")"
}

// WriteText writes the report as a few summary lines and tables: the
// statistics that differ at Alpha uncorrected, the claims, the failures.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintf(tw, "%s: %s\n", r.Spec, strings.ToUpper(r.Verdict))
	fmt.Fprintf(tw, "  old\t%s%s\n", r.Old, codeText(r.OldCode))
	fmt.Fprintf(tw, "  new\t%s%s\n", r.New, codeText(r.NewCode))
	fmt.Fprintf(tw, "  cells\t%d only in the old, %d only in the new, %d compared across a new key (their mechanism's code version changed)\n", len(r.Missing), len(r.Extra), len(r.Rekeyed))
	fmt.Fprintf(tw, "  privacy\t%d quantities differ beyond %g relative\n", len(r.Privacy), PrivacyTol)
	for _, f := range []struct {
		name string
		f    Family
	}{{"metrics", r.Metrics}, {"diagnostics", r.Diagnostics}} {
		note := ""
		if f.name == "diagnostics" {
			note = " (reported, not in the verdict)"
		}
		fmt.Fprintf(tw, "  %s\t%d compared: %d identical, %d within %g of the half-width, %d differ at %g uncorrected, %d under Holm at family-wise %g%s\n",
			f.name, f.f.Compared, f.f.Identical, f.f.Close, Tenth, f.f.Uncorrected, Alpha, f.f.Holm, Alpha, note)
	}
	changed, timing := 0, 0
	for _, c := range r.Claims {
		if c.Changed {
			changed++
		}
		if c.Timing {
			timing++
		}
	}
	fmt.Fprintf(tw, "  claims\t%d (%d on wall-clock times), %d verdicts changed\n", len(r.Claims), timing, changed)
	if err := tw.Flush(); err != nil {
		return err
	}
	diffs := append(slices.Clone(r.Metrics.Differing), r.Diagnostics.Differing...)
	if len(diffs) > 0 {
		fmt.Fprintf(w, "\nstatistics that differ at %g uncorrected:\n", Alpha)
		fmt.Fprintln(tw, "  cell\tstatistic\told mean (n)\tnew mean (n)\thalf-width\tp\tHolm")
		for _, d := range diffs {
			holm := ""
			if d.Holm {
				holm = "rejected"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%.6g (%d)\t%.6g (%d)\t%.3g\t%.3g\t%s\n", d.Cell, d.Statistic, d.OldMean, d.OldN, d.NewMean, d.NewN, d.HalfWidth, d.P, holm)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Claims) > 0 {
		fmt.Fprintln(w, "\nclaims:")
		fmt.Fprintln(tw, "  claim\told verdict\tnew verdict\t")
		for _, c := range r.Claims {
			note := ""
			if c.Timing {
				note = "wall-clock"
			}
			if c.Changed {
				note = strings.TrimPrefix(note+", changed", ", ")
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.ID, verdictText(c.Old), verdictText(c.New), note)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.TimingChanged) > 0 {
		fmt.Fprintln(w, "\nclaims on wall-clock times whose verdict changed (reported, not in the verdict):")
		for _, c := range r.TimingChanged {
			fmt.Fprintf(w, "  - %s\n", c)
		}
	}
	if len(r.Failures) > 0 {
		fmt.Fprintln(w, "\nfailures:")
		for _, f := range r.Failures {
			fmt.Fprintf(w, "  - %s\n", f)
		}
	}
	return nil
}
