package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/internal/suggest"
)

var kindsCommand = &command{
	Name:      "kinds",
	UsageLine: "kinds [KIND...]",
	Short:     "list the figure and table kinds and the claim checks, or describe one and its keys",
	Long: `Without a name: every registered [[figure]] and [[table]] kind (a block's
kind = "..."; a figure without kind is "epsilon", a table too) with what it
draws, and every [[claim]] check (a claim's check = "...") with what it
decides.

With names: each kind's keys (besides name and kind; a claim's besides
check) with their TOML type and doc, and a small example block. A name that
is both a figure and a table kind (epsilon, curves, iterations) describes
both.

Everything is read from the kind registry, the claim checks and their doc
comments, so it is what "dplab run" accepts.`,
	Run: cmdKinds,
}

func cmdKinds(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := newFlagSet("kinds", stdout)
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	all := report.Kinds()
	if len(names) == 0 {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "BLOCK\tKIND\tWHAT IT DOES")
		for _, k := range all {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Block, k.Kind, firstSentence(k.Doc))
		}
		fmt.Fprintln(tw, "\nRun 'dplab kinds KIND' for a kind's keys.")
		return tw.Flush()
	}
	var known []string
	for _, k := range all {
		if !slices.Contains(known, k.Kind) {
			known = append(known, k.Kind)
		}
	}
	slices.Sort(known)
	first := true
	for _, n := range names {
		if !slices.Contains(known, n) {
			return badInput(fmt.Errorf("unknown figure or table kind or claim check %q%s; known kinds: %s", n, suggest.DidYouMean(n, known), strings.Join(known, ", ")))
		}
		for _, k := range all {
			if k.Kind != n {
				continue
			}
			if !first {
				fmt.Fprintln(stdout)
			}
			first = false
			kindDescribe(stdout, k)
		}
	}
	return nil
}

func kindDescribe(w io.Writer, k report.KindDoc) {
	fmt.Fprintf(w, "[[%s]] %s = %q\n", k.Block, k.Key, k.Kind)
	fmt.Fprintln(w, wrap(k.Doc, "  ", "  ", 80))
	fixed, head := "name and kind", fmt.Sprintf("  name = \"%s-example\"\n  kind = %q\n", k.Kind, k.Kind)
	if k.Key != "kind" { // a claim: its id is one of its keys
		fixed, head = k.Key, fmt.Sprintf("  %s = %q\n", k.Key, k.Kind)
	}
	fmt.Fprintf(w, "\nKeys (besides %s):\n", fixed)
	for _, p := range k.Params {
		fmt.Fprintf(w, "\n  %s  %s\n", p.Key, p.Type)
		fmt.Fprintln(w, wrap(p.Doc, "      ", "      ", 80))
	}
	fmt.Fprintf(w, "\nExample:\n\n  [[%s]]\n%s", k.Block, head)
	for _, line := range strings.Split(k.Example, "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// firstSentence returns text up to its first ". " that does not end an
// abbreviation ("e.g.", "i.e."), or all of it.
func firstSentence(text string) string {
	for from := 0; ; {
		i := strings.Index(text[from:], ". ")
		if i < 0 {
			return text
		}
		end := from + i + 1
		if !strings.HasSuffix(text[:end], "e.g.") && !strings.HasSuffix(text[:end], "i.e.") {
			return text[:end]
		}
		from = end
	}
}
